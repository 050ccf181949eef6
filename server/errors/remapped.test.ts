// GET /projects/{id}/errors/{id}/remapped: an error whose events came before their source map,
// and the error the same crash groups as once the map is uploaded.
import { createRequire } from 'node:module'
import { and, eq, ne } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { RemappedError } from '../../contract/errors.ts'
import type { SourceMap } from '../../contract/source-maps.ts'
import { errors, sourceCodeSnippets } from '../db/schema.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { JS_APP_DIR, readJsApp, uploadForm } from '../test-support/source-map-uploads.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'

let ctx: TestContext
let seeded: SeededProject

beforeAll(async () => {
  ctx = await createTestContext()
  seeded = await seedProject(ctx, { user: 'Remap', organization: 'Remap Org', project: 'Shop', type: 'node' })
})
afterAll(async () => {
  await ctx?.close()
})

/** The frames of checkout()'s TypeError in the minified CommonJS bundle, as @bugsnag/node sends them. */
function bundleFrames(): Record<string, unknown>[] {
  const app = createRequire(import.meta.url)(`${JS_APP_DIR}dist-node/app.min.js`) as { checkout(cart: unknown): unknown }
  let stack = ''
  try {
    app.checkout({ items: [{ name: 'hat' }] })
  } catch (err) {
    stack = (err as Error).stack ?? ''
  }
  return stack
    .split('\n')
    .map((line) => /^\s*at (?:(.+?) \()?(.+):(\d+):(\d+)\)?$/.exec(line))
    .filter((match) => match !== null && match[2]!.startsWith(JS_APP_DIR))
    .map((match) => ({ method: match![1], file: match![2]!.slice(JS_APP_DIR.length), lineNumber: Number(match![3]), columnNumber: Number(match![4]), inProject: true }))
}

async function notify(message: string): Promise<void> {
  const res = await ctx.request('/notify', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': seeded.project.api_key, 'Bugsnag-Payload-Version': '4' },
    body: JSON.stringify({
      notifier: { name: 'Bugsnag Node', version: '8.0.0', url: 'https://github.com/bugsnag/bugsnag-js' },
      events: [{ exceptions: [{ errorClass: 'TypeError', message, type: 'nodejs', stacktrace: bundleFrames() }], app: { version: '2.0.0' } }],
    }),
  })
  expect(res.status).toBe(200)
}

const errorOf = async (message: string) =>
  (await ctx.deps.database.db.select({ id: errors.id }).from(errors).where(and(eq(errors.projectId, seeded.project.id), eq(errors.message, message))))[0]!.id

async function remapped(errorId: string): Promise<RemappedError> {
  const res = await ctx.request(`/api/projects/${seeded.project.id}/errors/${errorId}/remapped`, { token: seeded.user.token })
  expect(res.status).toBe(200)
  return (await res.json()) as RemappedError
}

it('names the error that events mapped by a map uploaded since now group as; nothing stored changes', async () => {
  await notify('before the map')
  const unmapped = await errorOf('before the map')
  const latest = await (await ctx.request(`/api/projects/${seeded.project.id}/errors/${unmapped}/latest_event`, { token: seeded.user.token })).json()
  expect(latest.symbolication).toMatchObject({ status: 'missing' })
  // No map yet.
  expect(await remapped(unmapped)).toEqual({ map_available: false })

  const upload = await ctx.request('/sourcemap', {
    method: 'POST',
    body: uploadForm(
      { apiKey: seeded.project.api_key, appVersion: '2.0.0', minifiedUrl: 'dist-node/app.min.js' },
      { sourceMap: readJsApp('dist-node/app.min.js.map'), minifiedFile: readJsApp('dist-node/app.min.js') },
    ),
  })
  expect(upload.status).toBe(200)
  // A map exists, but no event has grouped as the mapped frames yet.
  expect(await remapped(unmapped)).toEqual({ map_available: true, mapped_error: null })
  // Nothing written by looking: no event counted as mapped by the upload, no code snippet stored.
  const maps = (await (await ctx.request(`/api/projects/${seeded.project.id}/source_maps`, { token: seeded.user.token })).json()) as SourceMap[]
  expect(maps.map((map) => map.events_mapped)).toEqual([0])
  expect(await ctx.deps.database.db.select().from(sourceCodeSnippets).where(eq(sourceCodeSnippets.projectId, seeded.project.id))).toEqual([])

  await notify('after the map')
  const mapped = await errorOf('after the map')
  expect(mapped).not.toBe(unmapped)
  expect(await remapped(unmapped)).toEqual({
    map_available: true,
    mapped_error: { id: mapped, error_class: 'TypeError', message: 'after the map', events: 1 },
  })
  // The mapped error misses no map.
  expect(await remapped(mapped)).toEqual({ map_available: false })
  // Read-only: the stored event is as it was.
  const again = await (await ctx.request(`/api/projects/${seeded.project.id}/errors/${unmapped}/latest_event`, { token: seeded.user.token })).json()
  expect(again).toEqual(latest)
  expect(await ctx.deps.database.db.select({ id: errors.id }).from(errors).where(and(eq(errors.projectId, seeded.project.id), ne(errors.id, unmapped), ne(errors.id, mapped)))).toEqual([])
})

it('404s an error of another project', async () => {
  const other = await seedProject(ctx, { user: 'Other', organization: 'Other Org', project: 'Else', type: 'node' })
  const res = await ctx.request(`/api/projects/${other.project.id}/errors/${await errorOf('before the map')}/remapped`, { token: other.user.token })
  expect(res.status).toBe(404)
})
