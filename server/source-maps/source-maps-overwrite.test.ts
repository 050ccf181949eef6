// overwrite=true is last-writer-wins, however many uploads of one source map arrive at once
// (a CI job retried, several build agents): each succeeds and one upload with its files remains.
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sourceMapFiles, sourceMaps } from '../db/schema.ts'
import { seedProject } from '../test-support/seed.ts'
import { readJsApp, uploadForm } from '../test-support/source-map-uploads.ts'
import { loadConfig } from '../config.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'

let ctx: TestContext
let apiKey: string
let projectId: string

beforeAll(async () => {
  // A build uploading from one address: the 20 at once here are more than the default allows in progress.
  const defaults = loadConfig({ LOG_LEVEL: 'silent' })
  ctx = await createTestContext({ sourceMaps: { ...defaults.sourceMaps, uploadsPerAddress: 20 } })
  const { project } = await seedProject(ctx, { user: 'Uploader', organization: 'Overwrite Org', project: 'Web shop', type: 'browser' })
  apiKey = project.api_key
  projectId = project.id
})
afterAll(() => ctx?.close())

describe('POST /sourcemap with overwrite=true', () => {
  it('takes 20 uploads of the same map at once: all succeed, one remains with its own files', { timeout: 120_000 }, async () => {
    const minifiedUrl = 'https://cdn.example.com/assets/raced.min.js'
    const fields = { apiKey, appVersion: '4.0.0', minifiedUrl, overwrite: 'true' }
    // Each upload its own minified file, so the one left can be told apart.
    const minified = (n: number) => `console.log(${n})\n`
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        ctx.request('/sourcemap', { method: 'POST', body: uploadForm(fields, { sourceMap: readJsApp('dist/app.min.js.map'), minifiedFile: minified(n) }) }),
      ),
    )
    expect(await Promise.all(answers.map(async (res) => `${res.status} ${res.status === 200 ? '' : await res.text()}`))).toEqual(Array(20).fill('200 '))

    const rows = await ctx.deps.database.db
      .select({ id: sourceMaps.id })
      .from(sourceMaps)
      .where(and(eq(sourceMaps.projectId, projectId), eq(sourceMaps.minifiedUrl, minifiedUrl)))
    expect(rows).toHaveLength(1)
    // No files of the replaced uploads are left behind, and the one left has all of its own.
    const files = await ctx.deps.database.db.select({ sourceMapId: sourceMapFiles.sourceMapId, role: sourceMapFiles.role }).from(sourceMapFiles)
    expect(new Set(files.map((file) => file.sourceMapId))).toEqual(new Set([rows[0]!.id]))
    expect(files.map((file) => file.role).sort()).toEqual(['map', 'minified', 'source_content', 'source_content'])
  })
})
