// End to end: the real @bugsnag/source-maps CLI uploads a Node bundle's map, the real
// @bugsnag/node client sends an error thrown inside the minified bundle to Errata, and the API
// shows the stack trace as the developer wrote it (mapped on the pipeline's thread, before grouping).
import { createRequire } from 'node:module'
import Bugsnag from '@bugsnag/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorEvent } from '../../contract/events.ts'
import { seedProject, type SeededProject } from '../../server/test-support/seed.ts'
import { JS_APP_DIR, readJsApp, runSourceMapsCli, uploadForm } from '../../server/test-support/source-map-uploads.ts'
import { createTestContext, listen, type TestContext } from '../../server/test-support/test-app.ts'

let ctx: TestContext
let server: { url: string; close(): Promise<void> }
let seeded: SeededProject
const UTIL_SOURCE = readJsApp('src/util.js').split('\n')

beforeAll(async () => {
  ctx = await createTestContext()
  server = await listen(ctx)
  seeded = await seedProject(ctx, { user: 'Maps E2E', organization: 'Maps E2E', project: 'Checkout', type: 'node' })
  const upload = await runSourceMapsCli([
    'upload-node',
    '--source-map', 'dist-node/app.min.js.map',
    '--bundle', 'dist-node/app.min.js',
    '--api-key', seeded.project.api_key,
    '--app-version', '1.2.3',
    '--endpoint', server.url,
  ])
  if (upload.code !== 0) throw new Error(`the CLI failed: ${upload.output}`)
})
afterAll(async () => {
  await server?.close()
  await ctx?.close()
})

describe('source maps through ingestion', () => {
  it('maps the real @bugsnag/node client\'s error: original file, line, method and code context, the minified frame beside it', async () => {
    Bugsnag.start({
      apiKey: seeded.project.api_key,
      endpoints: { notify: `${server.url}/notify`, sessions: `${server.url}/sessions` },
      projectRoot: JS_APP_DIR,
      appVersion: '1.2.3',
      autoDetectErrors: false,
      autoTrackSessions: false,
      logger: null,
    })
    const app = createRequire(import.meta.url)(`${JS_APP_DIR}dist-node/app.min.js`) as { checkout(cart: unknown): unknown }
    let thrown: Error | undefined
    try {
      app.checkout({ items: [{ name: 'hat' }] })
    } catch (err) {
      thrown = err as Error
    }
    await new Promise<void>((resolve, reject) => Bugsnag.notify(thrown!, undefined, (err) => (err ? reject(err) : resolve())))

    const list = await ctx.request(`/api/projects/${seeded.project.id}/events?full_reports=true`, { token: seeded.user.token })
    const [summary] = (await list.json()) as Array<{ id: string }>
    const res = await ctx.request(`/api/projects/${seeded.project.id}/events/${summary!.id}`, { token: seeded.user.token })
    const event = (await res.json()) as ErrorEvent
    const [thrownAt, computeTotal, checkout] = event.exceptions[0]!.stacktrace
    expect(thrownAt).toMatchObject({ file: 'src/util.js', line: 5, in_project: true })
    expect(thrownAt!.code!['5']).toBe(UTIL_SOURCE[4])
    expect(thrownAt!.minified).toMatchObject({ file: 'dist-node/app.min.js', line: 1 })
    expect(computeTotal).toMatchObject({ file: 'src/util.js', line: 3, method: 'computeTotal', in_project: true })
    expect(checkout).toMatchObject({ file: 'src/index.js', line: 4, method: 'checkout', in_project: true })
    expect(event.symbolication).toMatchObject({ status: 'mapped' })

    // Grouped by the mapped frames: the error's in-project frame is the original source.
    const errors = (await (await ctx.request(`/api/projects/${seeded.project.id}/errors`, { token: seeded.user.token })).json()) as Array<{
      error_class: string
      events: number
    }>
    expect(errors).toEqual([expect.objectContaining({ error_class: 'TypeError', events: 1 })])
  })

  it('takes a tiny map whose section names line 100,000,000 at once, and indexes the events it matches', async () => {
    // 136 bytes that used to hold every request for about 30 s and take gigabytes, once at upload
    // and again for every event that matched it, restarts included.
    const map = JSON.stringify({ version: 3, sections: [{ offset: { line: 100_000_000, column: 0 }, map: { version: 3, sources: ['far.js'], names: ['far'], mappings: 'AAAAA' } }] })
    const upload = await fetch(`${server.url}/sourcemap`, {
      method: 'POST',
      body: uploadForm({ apiKey: seeded.project.api_key, appVersion: '9.9.9', minifiedUrl: 'https://cdn.example.com/far.min.js' }, { sourceMap: map }),
    })
    expect(upload.status).toBe(200)
    const frames = [
      { file: 'https://cdn.example.com/far.min.js', lineNumber: 100_000_001, columnNumber: 1, method: 'a' },
      { file: 'https://cdn.example.com/far.min.js', lineNumber: 7, columnNumber: 1, method: 'b' },
    ]
    const notify = await fetch(`${server.url}/notify`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': seeded.project.api_key, 'Bugsnag-Payload-Version': '5' },
      body: JSON.stringify({
        notifier: { name: 'Bugsnag JavaScript', version: '8.0.0', url: 'https://github.com/bugsnag/bugsnag-js' },
        events: [{ exceptions: [{ errorClass: 'FarAway', message: 'far', type: 'browserjs', stacktrace: frames }], app: { version: '9.9.9' } }],
      }),
    })
    expect(notify.status).toBe(200)
    const list = await ctx.request(`/api/projects/${seeded.project.id}/events?full_reports=true`, { token: seeded.user.token })
    const event = ((await list.json()) as ErrorEvent[]).find((e) => e.exceptions[0]!.class === 'FarAway')!
    expect(event.exceptions[0]!.stacktrace[0]).toMatchObject({ file: 'far.js', line: 1, column: 1 })
    expect(event.exceptions[0]!.stacktrace[1]).toMatchObject({ file: 'https://cdn.example.com/far.min.js', line: 7 })
    expect(event.symbolication).toMatchObject({ status: 'partial', mapped_frames: 1 })
  })
})
