// End to end: the real @bugsnag/source-maps CLI uploads a Node bundle's map, the real
// @bugsnag/node client sends an error thrown inside the minified bundle to Errata, and the API
// shows the stack trace as the developer wrote it (mapped on the pipeline's thread, before grouping).
import { createRequire } from 'node:module'
import Bugsnag from '@bugsnag/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorEvent } from '../../contract/events.ts'
import { seedProject, type SeededProject } from '../../server/test-support/seed.ts'
import { JS_APP_DIR, readJsApp, runSourceMapsCli } from '../../server/test-support/source-map-uploads.ts'
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
})
