// Which events say a source map is missing, from the notifiers' real payloads (test/fixtures/wire)
// through POST /notify and back out of the Events API.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { and, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorEvent } from '../../contract/events.ts'
import { events } from '../db/schema.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { readJsApp, uploadForm } from '../test-support/source-map-uploads.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'

const WIRE = join(import.meta.dirname, '../../test/fixtures/wire')

interface WireFrame {
  file: string
  lineNumber: number
  columnNumber: number
  inProject?: boolean
}
interface WirePayload {
  events: { exceptions: { errorMessage: string; stacktrace: WireFrame[] }[] }[]
}

const fixture = (name: string) => (JSON.parse(readFileSync(join(WIRE, `${name}.request.json`), 'utf8')) as { json: WirePayload }).json

/** The fixture's payload with its first event's message made `message` and its first frame changed by `frame`. */
function variant(name: string, message: string, frame: Partial<WireFrame> = {}): WirePayload {
  const payload = fixture(name)
  const exception = payload.events[0]!.exceptions[0]!
  exception.errorMessage = message
  Object.assign(exception.stacktrace[0]!, frame)
  return payload
}

let ctx: TestContext
let seeded: SeededProject

beforeAll(async () => {
  ctx = await createTestContext()
  seeded = await seedProject(ctx, { user: 'Maps', organization: 'Maps Org', project: 'Shop', type: 'node' })
})
afterAll(async () => {
  await ctx?.close()
})

/** Sends the payload as its notifier did and reads its event back from the Events API. */
async function notifyAndRead(payload: WirePayload): Promise<ErrorEvent> {
  const res = await ctx.request('/notify', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': seeded.project.api_key, 'Bugsnag-Payload-Version': '4' },
    body: JSON.stringify(payload),
  })
  expect(res.status).toBe(200)
  const message = payload.events[0]!.exceptions[0]!.errorMessage
  const [row] = await ctx.deps.database.db
    .select({ id: events.id })
    .from(events)
    .where(and(eq(events.projectId, seeded.project.id), eq(events.message, message)))
  expect(row, message).toBeDefined()
  const read = await ctx.request(`/api/projects/${seeded.project.id}/events/${row!.id}`, { token: seeded.user.token })
  expect(read.status).toBe(200)
  return (await read.json()) as ErrorEvent
}

describe('a source map is reported missing only for frames that look minified or bundled', () => {
  it('never for @bugsnag/node\'s in-project frames of files Node runs as written', async () => {
    const event = await notifyAndRead(fixture('node-notify-cjs-inproject'))
    expect(event.exceptions[0]!.stacktrace[0]).toMatchObject({ file: 'cjs-probe.cjs', in_project: true })
    expect(event.symbolication).toBeUndefined()

    for (const file of ['/app/src/server.ts', 'dist/index.js']) {
      const built = await notifyAndRead(variant('node-notify-cjs-inproject', `thrown in ${file}`, { file, lineNumber: 42, columnNumber: 7 }))
      expect(built.symbolication, file).toBeUndefined()
    }
  })

  it('for a Node frame in project of a minified bundle', async () => {
    const event = await notifyAndRead(variant('node-notify-cjs-inproject', 'thrown in a bundle', { file: '/app/dist/server.min.js', lineNumber: 1, columnNumber: 4812 }))
    expect(event.symbolication).toEqual({ status: 'missing', mapped_frames: 0, missing: [{ url: '/app/dist/server.min.js', app_version: null }], errors: [] })
  })

  it('for any frame a map was uploaded for, minified-looking or not, when the map does not cover it', async () => {
    const res = await ctx.request('/sourcemap', {
      method: 'POST',
      body: uploadForm({ apiKey: seeded.project.api_key, minifiedUrl: 'dist/index.js' }, { sourceMap: readJsApp('dist-node/app.min.js.map') }),
    })
    expect(res.status).toBe(200)
    const event = await notifyAndRead(variant('node-notify-cjs-inproject', 'thrown past the map', { file: 'dist/index.js', lineNumber: 42, columnNumber: 7 }))
    expect(event.symbolication).toEqual({
      status: 'failed',
      mapped_frames: 0,
      missing: [],
      errors: [{ url: 'dist/index.js', message: 'line 42, column 7 is not in the source map' }],
    })
  })

  it('for a browser event\'s script file, and not for the page\'s own inline script', async () => {
    const inline = await notifyAndRead(fixture('browser-notify-handled'))
    expect(inline.exceptions[0]!.stacktrace[0]!.file).toBe('http://localhost:8080/checkout')
    expect(inline.symbolication).toBeUndefined()

    const script = 'http://localhost:8080/assets/index-B7xK2pQz.js'
    const event = await notifyAndRead(variant('browser-notify-handled', 'thrown in a script', { file: script }))
    // (Its fetch by URL is refused too: a loopback address.)
    expect(event.symbolication).toMatchObject({ status: 'missing', mapped_frames: 0, missing: [{ url: script, app_version: '1.2.3' }] })
  })
})
