// Code snippets no stored event uses are removed when events are deleted, by retention or a privacy
// deletion (docs/operations.md, "Retention"): those only deleted events used go, those a
// remaining event uses stay, and an event using one again writes it again.
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorEvent, StackFrame } from '../../contract/events.ts'
import { filtersToParams, type Filters } from '../../contract/filters.ts'
import { openPglite, queryRows } from '../db/client.ts'
import { migrate } from '../db/migrate.ts'
import { eventPayloads } from '../db/schema.ts'
import { enqueueRetentionSweep } from '../retention/retention.jobs.ts'
import { ingestAt } from '../test-support/ingest.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { browserCheckoutEvent, readJsApp, uploadForm } from '../test-support/source-map-uploads.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'
import { decodeEventPayload } from './event-payload.ts'

const DAY = 86_400_000
const SCRIPT_URL = 'https://cdn.example.com/assets/app.min.js'
/** The server's clock runs this far ahead of the real one: tests move time by moving it. */
let offsetMs = 0
const clock = () => new Date(Date.now() + offsetMs)
const daysAgo = (days: number) => new Date(Date.now() - days * DAY)

let ctx: TestContext
let seeded: SeededProject
const db = () => ctx.deps.database.db

beforeAll(async () => {
  ctx = await createTestContext({ retention: { defaultDays: 30, intervalMs: 60_000, sourceMapsKept: 2 } }, { clock, privacy: { batchSize: 2 } })
  seeded = await seedProject(ctx, { user: 'Snippets', organization: 'Snippets Org', project: 'Expiring', type: 'browser' })
}, 60_000)
afterAll(async () => {
  await ctx?.close()
})

/** A browser project of the organization with the test app's map uploaded. */
async function browserProject(name: string): Promise<string> {
  const created = await ctx.request(`/api/organizations/${seeded.organization.id}/projects`, {
    method: 'POST',
    token: seeded.user.token,
    json: { name, type: 'browser' },
  })
  expect(created.status).toBe(201)
  const project = (await created.json()) as { id: string; api_key: string }
  const res = await ctx.request('/sourcemap', {
    method: 'POST',
    body: uploadForm(
      { apiKey: project.api_key, appVersion: '1.2.3', minifiedUrl: SCRIPT_URL },
      { sourceMap: readJsApp('dist/app.min.js.map'), minifiedFile: readJsApp('dist/app.min.js') },
    ),
  })
  expect(res.status).toBe(200)
  // Uploaded before the events the tests receive in the past, so that it maps them.
  await db().execute(sql`UPDATE source_maps SET uploaded_at = uploaded_at - interval '60 days' WHERE project_id = ${project.id}`)
  return project.id
}

/** checkout()'s crash, every frame (`full`) or only its outer frames (one mapped frame), by `user`. */
function crash(user: string, frames: 'full' | 'outer'): Record<string, unknown> {
  const event = browserCheckoutEvent(SCRIPT_URL) as { exceptions: { stacktrace: unknown[] }[] }
  if (frames === 'outer') event.exceptions[0]!.stacktrace = event.exceptions[0]!.stacktrace.slice(2)
  return { ...event, user: { id: user } }
}

const snippetsOf = async (projectId: string) =>
  new Set(
    (await queryRows<{ hash: string }>(db(), sql`SELECT hash FROM source_code_snippets WHERE project_id = ${projectId}`)).map((row) => row.hash),
  )

/** The project's events, newest first, as the API shows them. */
async function eventsOf(projectId: string): Promise<ErrorEvent[]> {
  const res = await ctx.request(`/api/projects/${projectId}/events?per_page=100`, { token: seeded.user.token })
  expect(res.status).toBe(200)
  return (await res.json()) as ErrorEvent[]
}

/** The snippets an event's stored payload refers to. */
async function refsOf(eventId: string): Promise<Set<string>> {
  const [row] = await db().select().from(eventPayloads).where(eq(eventPayloads.eventId, eventId))
  const frames = decodeEventPayload(row!.payload).exceptions.flatMap((exception) => exception.stacktrace as unknown as { code_ref?: string }[])
  return new Set(frames.flatMap((frame) => (frame.code_ref ? [frame.code_ref] : [])))
}

/** Every mapped frame shows its code context. */
function expectCode(event: ErrorEvent | undefined) {
  const mapped = event!.exceptions[0]!.stacktrace.filter((frame: StackFrame) => frame.minified)
  expect(mapped.length).toBeGreaterThan(0)
  for (const frame of mapped) expect(frame.code, `${frame.file}:${frame.line}`).toEqual(expect.objectContaining({ [String(frame.line)]: expect.any(String) }))
}

async function sweep(): Promise<void> {
  await enqueueRetentionSweep(db(), clock())
  await ctx.jobs.drain()
}

async function deleteEventsOf(projectId: string, filters: Filters): Promise<void> {
  const params = filtersToParams(filters, new URLSearchParams({ skip_confirmation: 'true' }))
  const res = await ctx.request(`/api/projects/${projectId}/event_data_deletions?${params}`, { method: 'POST', token: seeded.user.token })
  expect(res.status).toBe(201)
  await ctx.jobs.drain()
  const done = await ctx.request(`/api/projects/${projectId}/event_data_deletions/${((await res.json()) as { id: string }).id}`, { token: seeded.user.token })
  expect(await done.json()).toMatchObject({ status: 'COMPLETED' })
}

describe('code snippets no stored event uses', () => {
  it('go with the events retention expires; those a remaining event uses stay; a recurrence writes them again', async () => {
    const projectId = await browserProject('Retained')
    await ingestAt(ctx, projectId, [{ at: daysAgo(10), event: crash('old', 'full') }])
    await ingestAt(ctx, projectId, [{ at: daysAgo(0), event: crash('new', 'outer') }])
    const [outer, full] = await eventsOf(projectId)
    const fullRefs = await refsOf(full!.id)
    const outerRefs = await refsOf(outer!.id)
    // The full crash uses snippets the outer one does not, and one they share.
    expect(outerRefs.size).toBe(1)
    expect([...outerRefs].every((hash) => fullRefs.has(hash))).toBe(true)
    expect(fullRefs.size).toBeGreaterThan(1)
    expect(await snippetsOf(projectId)).toEqual(fullRefs)

    // 25 days on, the full crash (35 days old) is past the 30 days kept; the outer one (25) is not.
    offsetMs = 25 * DAY
    await sweep()
    expect((await eventsOf(projectId)).map((event) => event.id)).toEqual([outer!.id])
    expect(await snippetsOf(projectId)).toEqual(outerRefs)
    const [kept] = await eventsOf(projectId)
    expectCode(kept)

    // The same crash again: its snippets are written again, and it shows its code.
    await ingestAt(ctx, projectId, [{ at: clock(), event: crash('again', 'full') }])
    expect(await snippetsOf(projectId)).toEqual(fullRefs)
    const [recurrence] = await eventsOf(projectId)
    expect(await refsOf(recurrence!.id)).toEqual(fullRefs)
    expectCode(recurrence)
    offsetMs = 0
  })

  it('go with the events a privacy deletion deletes, all of them with the last event; a recurrence writes them again', async () => {
    const projectId = await browserProject('Private')
    await ingestAt(ctx, projectId, [{ at: daysAgo(3), event: crash('leaving', 'full') }])
    await ingestAt(ctx, projectId, [{ at: daysAgo(0), event: crash('staying', 'outer') }])
    const [outer, full] = await eventsOf(projectId)
    const fullRefs = await refsOf(full!.id)
    const outerRefs = await refsOf(outer!.id)
    expect(await snippetsOf(projectId)).toEqual(fullRefs)

    await deleteEventsOf(projectId, { 'user.id': [{ type: 'eq', value: 'leaving' }] })
    expect((await eventsOf(projectId)).map((event) => event.id)).toEqual([outer!.id])
    expect(await snippetsOf(projectId)).toEqual(outerRefs)
    expectCode((await eventsOf(projectId))[0])

    // The last event deleted: no snippet is left.
    await deleteEventsOf(projectId, { 'user.id': [{ type: 'eq', value: 'staying' }] })
    expect(await eventsOf(projectId)).toEqual([])
    expect(await snippetsOf(projectId)).toEqual(new Set())

    await ingestAt(ctx, projectId, [{ at: new Date(), event: crash('back', 'full') }])
    expect(await snippetsOf(projectId)).toEqual(fullRefs)
    expectCode((await eventsOf(projectId))[0])
  })

  it('are written again by an event received soon after they were removed', async () => {
    const projectId = await browserProject('Soon')
    // Ingested twice, so that ingestion knows the snippets exist and needs to write nothing for them.
    await ingestAt(ctx, projectId, [{ at: new Date(), event: crash('leaving', 'full') }])
    await ingestAt(ctx, projectId, [{ at: new Date(), event: crash('leaving', 'full') }])
    const fullRefs = await snippetsOf(projectId)
    expect(fullRefs.size).toBeGreaterThan(1)
    await deleteEventsOf(projectId, { 'user.id': [{ type: 'eq', value: 'leaving' }] })
    expect(await snippetsOf(projectId)).toEqual(new Set())

    await ingestAt(ctx, projectId, [{ at: new Date(), event: crash('back', 'full') }])
    expect(await snippetsOf(projectId)).toEqual(fullRefs)
    expectCode((await eventsOf(projectId))[0])
  })

  it('are kept up to a day after the last event that used them was received', async () => {
    const projectId = await browserProject('Recent')
    await ingestAt(ctx, projectId, [{ at: new Date(Date.now() - 12 * 3_600_000), event: crash('leaving', 'full') }])
    await ingestAt(ctx, projectId, [{ at: new Date(), event: crash('staying', 'outer') }])
    const [, full] = await eventsOf(projectId)
    const fullRefs = await refsOf(full!.id)
    await deleteEventsOf(projectId, { 'user.id': [{ type: 'eq', value: 'leaving' }] })
    expect(await snippetsOf(projectId)).toEqual(fullRefs)
  })
})

describe('snippets stored before last_used_at', () => {
  it('count as used when the migration ran, not when they were first written: events since may use them', async () => {
    const database = await openPglite()
    try {
      await migrate(database, { through: '0005-retention.sql' })
      await database.execScript(`
        INSERT INTO organizations (id, name, slug) VALUES ('o1', 'Org', 'org');
        INSERT INTO projects (id, organization_id, name, slug, type, api_key) VALUES ('p1', 'o1', 'Web', 'web', 'browser', 'k1');
        INSERT INTO source_code_snippets (project_id, hash, lines, created_at) VALUES ('p1', 'h1', '{"1": "x"}', now() - interval '300 days');`)
      const migratedAt = Date.now()
      await migrate(database)
      const [row] = await queryRows<{ last_used_at: string }>(database.db, sql`SELECT last_used_at::text FROM source_code_snippets`)
      expect(new Date(row!.last_used_at).getTime()).toBeGreaterThanOrEqual(migratedAt - 60_000)
    } finally {
      await database.close()
    }
  })
})
