// Mapped frames through ingestion and back out of the API: stored compact (code by reference to
// source_code_snippets, the minified original as what differs), read in the API's shape.
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorEvent, StackFrame } from '../../contract/events.ts'
import type { SourceMap } from '../../contract/source-maps.ts'
import { queryRows } from '../db/client.ts'
import { eventPayloads } from '../db/schema.ts'
import { ingestAt } from '../test-support/ingest.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { browserCheckoutEvent, readJsApp, uploadForm } from '../test-support/source-map-uploads.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'
import { buildPayload } from '../webhooks/payload.ts'
import { decodeEventPayload, encodeEventPayload } from './event-payload.ts'

const SCRIPT_URL = 'https://cdn.example.com/assets/app.min.js'
const UTIL_SOURCE = readJsApp('src/util.js').split('\n')

let ctx: TestContext
let seeded: SeededProject

const browserEvent = () => browserCheckoutEvent(SCRIPT_URL)

const api = async <T,>(path: string): Promise<T> => {
  const res = await ctx.request(`/api${path}`, { token: seeded.user.token })
  expect(res.status, path).toBe(200)
  return (await res.json()) as T
}

const snippetCount = async (projectId = seeded.project.id) =>
  (await queryRows<{ n: number }>(ctx.deps.database.db, sql`SELECT count(*)::int AS n FROM source_code_snippets WHERE project_id = ${projectId}`))[0]!.n

async function storedPayloadOf(eventId: string) {
  const [row] = await ctx.deps.database.db.select().from(eventPayloads).where(eq(eventPayloads.eventId, eventId))
  return { bytes: row!.payload.byteLength, payload: decodeEventPayload(row!.payload) }
}

/** util.js's throw as the map gives it: the API's frame, code context and minified original included. */
function expectThrowFrame(frame: StackFrame | undefined) {
  expect(frame).toMatchObject({ file: 'src/util.js', line: 5, method: null, in_project: true })
  expect(frame!.code).toEqual(Object.fromEntries([2, 3, 4, 5, 6, 7, 8].map((n) => [String(n), UTIL_SOURCE[n - 1]])))
  // The browser notifier marks no frame in project; the original path is.
  expect(frame!.minified).toEqual({ line: 1, column: expect.any(Number), file: SCRIPT_URL, method: null, in_project: false, code: null })
}

beforeAll(async () => {
  ctx = await createTestContext()
  seeded = await seedProject(ctx, { user: 'Frames', organization: 'Frames Org', project: 'Shop', type: 'browser' })
  const res = await ctx.request('/sourcemap', {
    method: 'POST',
    body: uploadForm(
      { apiKey: seeded.project.api_key, appVersion: '1.2.3', minifiedUrl: SCRIPT_URL },
      { sourceMap: readJsApp('dist/app.min.js.map'), minifiedFile: readJsApp('dist/app.min.js') },
    ),
  })
  expect(res.status).toBe(200)
})
afterAll(async () => {
  await ctx?.close()
})

describe('mapped frames, stored by reference', () => {
  let eventId: string
  let errorId: string

  it('stores code context once per line window and the minified original compactly; the API shows both as before', async () => {
    await ingestAt(ctx, seeded.project.id, [{ at: new Date(), event: browserEvent() }])
    const [event] = await api<ErrorEvent[]>(`/projects/${seeded.project.id}/events?per_page=1`)
    eventId = event!.id
    errorId = event!.error_id
    // The bundle's frames mapped; the page's inline script is left as it is.
    expect(event!.symbolication).toMatchObject({ status: 'mapped', mapped_frames: 3 })
    expectThrowFrame(event!.exceptions[0]!.stacktrace[0])
    expect(event!.exceptions[0]!.stacktrace[1]).toMatchObject({ method: 'computeTotal', minified: { method: 'u', file: SCRIPT_URL } })

    // Event detail, the error's latest event and the event by id read the same.
    expect(await api<ErrorEvent>(`/projects/${seeded.project.id}/events/${eventId}`)).toEqual(event)
    expect(await api<ErrorEvent>(`/events/${eventId}`)).toEqual(event)
    expect(await api<ErrorEvent>(`/projects/${seeded.project.id}/errors/${errorId}/latest_event`)).toEqual(event)

    // Stored: each mapped frame refers to its snippet, and keeps of the minified frame what differs.
    const { payload } = await storedPayloadOf(eventId)
    const stored = payload.exceptions[0]!.stacktrace[0] as unknown as Record<string, unknown>
    expect(stored).not.toHaveProperty('code')
    expect(stored.code_ref).toMatch(/^[A-Za-z0-9_-]{22}$/)
    // in_project kept as it differs from the mapped frame's.
    expect(stored.minified).toEqual([SCRIPT_URL, 1, event!.exceptions[0]!.stacktrace[0]!.minified!.column, null, false])
    // What repeats from the mapped frame before (the minified file, the upload) is 0.
    const next = payload.exceptions[0]!.stacktrace[1] as unknown as Record<string, unknown>
    expect(next.minified).toEqual([0, 1, event!.exceptions[0]!.stacktrace[1]!.minified!.column, 'u', false])
    expect(next.source_map_id).toBe(0)
    expect(event!.exceptions[0]!.stacktrace[1]!.source_map_id).toBe(event!.exceptions[0]!.stacktrace[0]!.source_map_id)
    const mappedFrames = event!.exceptions[0]!.stacktrace.filter((frame) => frame.minified)
    expect(await snippetCount()).toBe(new Set(mappedFrames.map((frame) => JSON.stringify(frame.code))).size)
  })

  it('writes no snippet again for the same lines, and groups the same crash into the same error', async () => {
    const before = await snippetCount()
    await ingestAt(ctx, seeded.project.id, [{ at: new Date(), event: browserEvent() }, { at: new Date(), event: browserEvent() }])
    expect(await snippetCount()).toBe(before)
    const events = await api<ErrorEvent[]>(`/projects/${seeded.project.id}/events?per_page=3`)
    expect(events.map((event) => event.error_id)).toEqual([errorId, errorId, errorId])
    for (const event of events) expectThrowFrame(event.exceptions[0]!.stacktrace[0])
  })

  it('keeps the code of events already mapped when their source map upload is deleted', async () => {
    const [upload] = await api<SourceMap[]>(`/projects/${seeded.project.id}/source_maps`)
    const deleted = await ctx.request(`/api/projects/${seeded.project.id}/source_maps/${upload!.id}`, { method: 'DELETE', token: seeded.user.token })
    expect(deleted.status).toBe(204)
    expectThrowFrame((await api<ErrorEvent>(`/events/${eventId}`)).exceptions[0]!.stacktrace[0])
  })

  it("puts the code back in a privacy retrieval's file", async () => {
    const created = await ctx.request(`/api/projects/${seeded.project.id}/event_data_requests`, {
      method: 'POST',
      token: seeded.user.token,
      json: { filters: { 'user.id': [{ type: 'eq', value: 'shopper-1' }] }, report_type: 'gdpr' },
    })
    expect(created.status).toBe(201)
    await ctx.jobs.drain()
    const done = await api<{ status: string; url: string }>(`/projects/${seeded.project.id}/event_data_requests/${((await created.json()) as { id: string }).id}`)
    expect(done.status).toBe('COMPLETED')
    const file = await ctx.request(new URL(done.url).pathname, { token: seeded.user.token })
    const rows = (await file.text()).split('\n').filter(Boolean).map((line) => JSON.parse(line) as ErrorEvent)
    expect(rows).toHaveLength(3)
    for (const row of rows) expectThrowFrame(row.exceptions[0]!.stacktrace[0])
  })

  it("puts the code back in a webhook's error member", async () => {
    const document = (await buildPayload(ctx.deps.database.db, ctx.deps.webhooks!.urls, {
      projectId: seeded.project.id,
      trigger: 'exception',
      errorId,
      eventId,
      details: { message: 'New exception' },
    })) as { error: { exceptions: { stacktrace: { file: string; lineNumber: string; code?: Record<string, string> }[] }[] } }
    const [frame] = document.error.exceptions[0]!.stacktrace
    expect(frame).toMatchObject({ file: 'src/util.js', lineNumber: '5' })
    // Three lines either side in a webhook (spec section 8), from the stored snippet.
    expect(frame!.code).toEqual(Object.fromEntries([2, 3, 4, 5, 6, 7, 8].map((n) => [String(n), UTIL_SOURCE[n - 1]])))
  })

  it('reads events stored with "code": null beside code_ref, as they were', async () => {
    const event = await api<ErrorEvent>(`/events/${eventId}`)
    const { payload } = await storedPayloadOf(eventId)
    for (const frame of payload.exceptions[0]!.stacktrace as unknown as Record<string, unknown>[]) if (frame.code_ref) frame.code = null
    await ctx.deps.database.db.update(eventPayloads).set({ payload: encodeEventPayload(payload) }).where(eq(eventPayloads.eventId, eventId))
    expect(await api<ErrorEvent>(`/events/${eventId}`)).toEqual(event)
  })

  it('reads events stored before, with code context and minified frames inline, as they were', async () => {
    const event = await api<ErrorEvent>(`/events/${eventId}`)
    const { id: _id, url: _url, html_url: _html, project_id: _project, error_id: _error, received_at: _at, ...inline } = event
    await ctx.deps.database.db.update(eventPayloads).set({ payload: encodeEventPayload(inline) }).where(eq(eventPayloads.eventId, eventId))
    expect(await api<ErrorEvent>(`/events/${eventId}`)).toEqual(event)
  })

  it('removes the snippets with their project', async () => {
    const other = await seedProject(ctx, { user: seeded.user, organization: 'Gone Org', project: 'Gone', type: 'browser' })
    const res = await ctx.request('/sourcemap', {
      method: 'POST',
      body: uploadForm({ apiKey: other.project.api_key, appVersion: '1.2.3', minifiedUrl: SCRIPT_URL }, { sourceMap: readJsApp('dist/app.min.js.map') }),
    })
    expect(res.status).toBe(200)
    await ingestAt(ctx, other.project.id, [{ at: new Date(), event: browserEvent() }])
    expect(await snippetCount(other.project.id)).toBeGreaterThan(0)
    expect((await ctx.request(`/api/projects/${other.project.id}`, { method: 'DELETE', token: seeded.user.token })).status).toBe(204)
    await ctx.jobs.drain()
    expect(await snippetCount(other.project.id)).toBe(0)
    expect(await snippetCount()).toBeGreaterThan(0)
  })
})
