// Every mutation the dashboard runs comes from a factory in src/api with a mutationKey and a cache
// rule (meta.cache, cache-rules.ts): a new mutation without a rule, or one written in a feature
// instead of src/api, fails here rather than leaving stale data on some page.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { MutationMeta } from '@tanstack/react-query'

const apiModules = import.meta.glob<Record<string, unknown>>(['./*.ts', '!./*.test.ts'], { eager: true })

const mutationFactories = Object.entries(apiModules).flatMap(([file, exports]) =>
  Object.entries(exports)
    .filter(([name, value]) => name.endsWith('Mutation') && typeof value === 'function')
    .map(([name, factory]) => ({ file, name, factory: factory as (...ids: string[]) => { mutationKey?: readonly unknown[]; meta?: MutationMeta } })),
)

const srcDir = join(import.meta.dirname, '..')
const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'test' ? [] : sourceFiles(path)
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : []
  })

describe('mutation keys and the cache policy', () => {
  it('finds the factories', () => {
    expect(mutationFactories.length).toBeGreaterThan(20)
  })

  it.each(mutationFactories.map((f) => [`${f.file} ${f.name}`, f] as const))('%s has a mutationKey and a cache rule', (_, { factory }) => {
    // Factories take ids (or a scope object) and only put them into the key and the rule.
    const { mutationKey, meta } = factory('id-1', 'id-2')
    expect(mutationKey, 'mutationKey').toBeDefined()
    expect(meta?.cache, 'mutationWithCacheRule({ …, cache }), cache: {} when nothing cached changes').toBeDefined()
  })

  it('defines mutations only in src/api factories (a feature spreads one into useMutation)', () => {
    const outside = sourceFiles(srcDir)
      .filter((file) => !relative(srcDir, file).startsWith('api/'))
      .filter((file) => /\bmutationFn\s*:|\bmutationOptions\s*\(/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(srcDir, file))
    expect(outside).toEqual([])
  })
})
