import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errors } from '../../db/schema.ts'
import { seedProject } from '../../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../../test-support/test-app.ts'
import { withoutContentHash } from './content-hash.ts'
import { normalizeFileForGrouping } from './grouping.ts'

/**
 * Output file names of two builds of one app that differ only by an unrelated change, by chunk:
 * vite.json and esbuild.json from real builds (generate.mjs), the others in those bundlers' shapes.
 */
const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/bundle-names')
const bundlers = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.json'))
  .map((name) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as { tool: string; builds: [Record<string, string>, Record<string, string>] })
const url = (host: string, file: string) => new URL(file, host).href
const chunks = bundlers.flatMap(({ tool, builds: [first, second] }) =>
  Object.keys(first).map((chunk) => ({ tool, chunk, first: first[chunk]!, second: second[chunk]! })),
)

describe('file names for grouping', () => {
  it('has fixtures from each bundler whose builds renamed every chunk', () => {
    expect(bundlers.map((b) => b.tool.split(' ')[0]).sort()).toEqual(['Next.js', 'Parcel', 'esbuild', 'vite', 'webpack'])
    for (const { first, second } of chunks) expect(first).not.toBe(second)
  })

  it.each(chunks)('$tool $chunk: the same file in both builds, from any CDN host and cache buster', ({ first, second }) => {
    expect(normalizeFileForGrouping(url('https://cdn-1.example.com', first))).toBe(normalizeFileForGrouping(`${url('https://cdn-2.example.com', second)}?v=1699999999#x`))
  })

  it('keeps the chunks of one build apart', () => {
    for (const { builds } of bundlers) {
      const names = Object.values(builds[0]).map(normalizeFileForGrouping)
      expect(new Set(names).size).toBe(names.length)
    }
  })

  it('replaces the content hash with *, keeping the name, its folder and the extension', () => {
    const cases: Array<[string, string]> = [
      ['main.3f2a9c1b7d4e5f60.js', 'main.*.js'],
      ['123.a1b2c3d4.chunk.js', '123.*.chunk.js'],
      ['index-B7xKq2_d.js', 'index-*.js'],
      ['vendor-DdKe-9Xz.js', 'vendor-*.js'],
      ['vendor--abc1234.js', 'vendor-*.js'],
      ['index-BbAeMfzU.js', 'index-*.js'],
      ['chunk-ABCDEFGH.js', 'chunk-*.js'],
      ['chunk-FVPW27KR.mjs', 'chunk-*.mjs'],
      ['index.3f2a9c1b.js', 'index.*.js'],
      ['framework-4ed89e9640adfb9e.js', 'framework-*.js'],
      ['9f96d65d-7b812644c8c0f1f1.js', '9f96d65d-*.js'],
      ['ed150ef9.ec0fa51ac82b6bd3.js', 'ed150ef9.*.js'],
      ['runtime~main.0c7e1d2a.js', 'runtime~main.*.js'],
    ]
    for (const [name, normalized] of cases) expect(withoutContentHash(name), name).toBe(normalized)
    expect(normalizeFileForGrouping('https://cdn-1.example.com/assets/app.js')).toBe('/assets/app.js')
    expect(normalizeFileForGrouping('http://localhost:5173/assets/index-B7xKq2_d.js?v=2')).toBe('/assets/index-*.js')
    expect(normalizeFileForGrouping('/_next/static/9mZwqBCnTgpeDf8YuxLCW/_buildManifest.js')).toBe('/_next/static/*/_buildManifest.js')
    expect(normalizeFileForGrouping('/_next/static/chunks/pages/index-0a1b2c3d4e5f6a7b.js')).toBe('/_next/static/chunks/pages/index-*.js')
  })

  it('keeps names that read as words, versions and files that are not bundles', () => {
    const kept = [
      'index-helpers.js',
      'vendor-react.js',
      'user-profile.js',
      'app-settings.js', // 8 lower-case letters after a dash
      'page-UserCard.js', // CamelCase
      'page-HomePage.mjs',
      'chunk-vendors2.js', // a word and a number
      'lib-crypto32.cjs',
      'app-deadbeef.js', // hex letters, no digit
      'polyfill-es2015.js',
      'jquery-3.7.1.min.js',
      'react-dom.production.min.js',
      'lodash.debounce.js',
      'jquery.Position.js',
      'webpack-runtime.js',
      'main-app.js',
      '3f2a9c1b7d4e5f60.js', // a hash alone: no name to group by
      'chunk-B7xKq2_d.tsx', // a source file, not a bundle
      'notes-B7xKq2_d.py',
    ]
    for (const name of kept) expect(withoutContentHash(name), name).toBe(name)
    expect(normalizeFileForGrouping('/src/pages/UserCard-Settings.tsx')).toBe('/src/pages/UserCard-Settings.tsx')
    expect(normalizeFileForGrouping('/_next/static/chunks/pages/_app.js')).toBe('/_next/static/chunks/pages/_app.js')
  })
})

describe('grouping across deploys (through POST /notify)', () => {
  let ctx: TestContext
  let owner: TestUser
  let projectId: string
  let apiKey: string

  beforeAll(async () => {
    ctx = await createTestContext()
    owner = await ctx.createUser('Owner')
    const { project } = await seedProject(ctx, { user: owner, organization: 'Deploys Org', project: 'Deploys', type: 'js' })
    projectId = project.id
    apiKey = project.api_key
  })
  afterAll(() => ctx.close())

  /** A browser event (frames not in project, so the top frame decides) thrown in `file`. */
  const browserEvent = (errorClass: string, file: string, line: number) => ({
    exceptions: [{ errorClass, message: 'Cannot read properties of null', type: 'browserjs', stacktrace: [{ file, method: 'pay', lineNumber: line, columnNumber: 12 }] }],
  })
  const notify = (events: unknown[]) =>
    ctx.request('/notify', { method: 'POST', headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': apiKey, 'Bugsnag-Payload-Version': '4' }, body: JSON.stringify({ payloadVersion: '4', events }) })

  it('groups the same bug from two builds, served by two CDN hosts, as one error, and stores each frame as sent', async () => {
    const deploys = [
      { host: 'https://cdn-1.example.com', query: '', pick: (c: (typeof chunks)[number]) => c.first },
      { host: 'https://cdn-2.example.com', query: '?v=2', pick: (c: (typeof chunks)[number]) => c.second },
    ]
    for (const [i, deploy] of deploys.entries()) {
      const res = await notify(chunks.map((c) => browserEvent(`TypeError ${c.tool} ${c.chunk}`, `${url(deploy.host, deploy.pick(c))}${deploy.query}`, 1 + i)))
      expect(res.status).toBe(200)
    }
    const rows = await ctx.deps.database.db.select().from(errors).where(eq(errors.projectId, projectId))
    expect(rows.map((row) => [row.errorClass, row.eventsCount]).sort()).toEqual(chunks.map((c) => [`TypeError ${c.tool} ${c.chunk}`, 2]).sort())

    const vite = chunks.find((c) => c.tool.startsWith('vite') && c.chunk.includes('checkout'))!
    const error = rows.find((row) => row.errorClass === `TypeError ${vite.tool} ${vite.chunk}`)!
    const list = await ctx.request(`/api/projects/${projectId}/errors/${error.id}/events`, { token: owner.token })
    const files = ((await list.json()) as Array<{ exceptions: Array<{ stacktrace: Array<{ file: string }> }> }>).map((e) => e.exceptions[0]!.stacktrace[0]!.file)
    expect(files.sort()).toEqual([url('https://cdn-1.example.com', vite.first), `${url('https://cdn-2.example.com', vite.second)}?v=2`])
  })
})
