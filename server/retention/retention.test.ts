// Retention: the sweep deletes events past each project's retention through the privacy
// deletion's steps, so counters and rollups stay exactly what the remaining events give; keeps
// errors people decided about (a recurrence lands on them) and removes the others; fires no
// webhook; prunes old source maps; and two sweeps at once count nothing twice.
import { sql } from 'drizzle-orm'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { parseAllowList } from '../outbound/allow-list.ts'
import { queryRows } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { sourceMaps } from '../db/schema.ts'
import { JobRunner } from '../jobs/job-runner.ts'
import type { JobContext } from '../jobs/jobs.ts'
import { ingestAt, notifierEvent } from '../test-support/ingest.ts'
import { countersAgainstEvents, rollupsAgainstRebuild } from '../test-support/recomputed.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../test-support/webhook-receiver.ts'
import { enqueueRetentionSweep, retentionJobHandlers, RETENTION_JOBS } from './retention.jobs.ts'

const DAY = 86_400_000
const settings = { defaultDays: 30, intervalMs: 60_000, sourceMapsKept: 2 }
/** The server's clock runs this far ahead of the real one: tests move time by moving it. */
let offsetMs = 0
const clock = () => new Date(Date.now() + offsetMs)
const daysAgo = (days: number) => new Date(Date.now() - days * DAY)

let ctx: TestContext
let receiver: WebhookReceiver
let web: SeededProject
let mobile: { id: string }
const db = () => ctx.deps.database.db

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  ctx = await createTestContext(
    { retention: settings, webhookAllow: parseAllowList('127.0.0.1') },
    { clock, privacy: { batchSize: 2 }, webhooks: { retryDelayMs: () => 0 } },
  )
  web = await seedProject(ctx, { user: 'Keeper', organization: 'Retention Org', project: 'Web' })
  const res = await ctx.request(`/api/organizations/${web.organization.id}/projects`, { method: 'POST', token: web.user.token, json: { name: 'Mobile' } })
  mobile = (await res.json()) as { id: string }
}, 60_000)
afterAll(async () => {
  await ctx?.close()
  await receiver?.close()
})

const alice = { id: 'alice', email: 'alice@example.com' }
const bob = { id: 'bob', email: 'bob@example.com' }
function event(errorClass: string, options: { user?: Record<string, unknown>; session?: string; version?: string } = {}) {
  return notifierEvent(errorClass, {
    unhandled: options.session !== undefined,
    ...(options.user ? { user: options.user } : {}),
    app: { releaseStage: 'production', version: options.version ?? '1.0.0' },
    ...(options.session ? { session: { id: options.session, startedAt: daysAgo(41).toISOString(), events: { handled: 0, unhandled: 1 } } } : {}),
  })
}

/** Queues a sweep at the server's time and runs it. */
async function sweep(): Promise<void> {
  await enqueueRetentionSweep(db(), clock())
  await ctx.jobs.drain()
}

const errorsOf = (projectId: string) =>
  queryRows<{ id: string; error_class: string; status: string; events: number; users: number; last_event_id: string | null }>(
    db(),
    sql`SELECT id, error_class, status, events_count::int AS events, users_count::int AS users, last_event_id
      FROM errors WHERE project_id = ${projectId} ORDER BY error_class`,
  )
const eventsOf = (projectId: string) =>
  queryRows<{ error_class: string; received_at: string }>(
    db(),
    sql`SELECT error_class, received_at::text FROM events WHERE project_id = ${projectId} ORDER BY received_at, id`,
  )
const count = async (query: ReturnType<typeof sql>) => (await queryRows<{ n: number }>(db(), query))[0]!.n

/** Errors kept when their events expired: they keep when they were first seen, and in which release. */
const keptIds = new Set<string>()
const withoutFirst = ({ first_seen: _seen, first_release_stage: _stage, first_app_version: _version, ...rest }: Record<string, unknown>) => rest

/** Stored counters and rollups equal a recomputation from the remaining events. */
async function expectExact(projectId: string) {
  const counters = await countersAgainstEvents(db(), projectId)
  const comparable = (rows: Record<string, unknown>[]) => rows.map((row) => (keptIds.has(row.id as string) ? withoutFirst(row) : row))
  // Errors kept without events have nothing to recompute from: their counters are zero.
  const withEvents = new Set(counters.expected.map((row) => row.id))
  expect(comparable(counters.stored.filter((row) => withEvents.has(row.id)))).toEqual(comparable(counters.expected))
  for (const kept of counters.stored.filter((row) => !withEvents.has(row.id))) expect(kept).toMatchObject({ events: 0, users: 0, user_keys: null })
  const { stored, rebuilt } = await rollupsAgainstRebuild(db(), projectId)
  expect(stored).toEqual(rebuilt)
}

describe('retention settings', () => {
  it('keep events 90 days, sweep every 5 minutes and keep 20 source maps a URL unless told otherwise', () => {
    expect(loadConfig({}).retention).toEqual({ defaultDays: 90, intervalMs: 300_000, sourceMapsKept: 20 })
    expect(loadConfig({ ERRATA_RETENTION_DAYS: '30', ERRATA_SOURCE_MAPS_KEPT: '5' }).retention).toMatchObject({ defaultDays: 30, sourceMapsKept: 5 })
  })

  it('refuse days that are not whole or out of range, naming the variable', () => {
    for (const days of ['0', '3651', '7.5', 'a week']) expect(() => loadConfig({ ERRATA_RETENTION_DAYS: days })).toThrow(/ERRATA_RETENTION_DAYS/)
    expect(() => loadConfig({ ERRATA_RETENTION_INTERVAL_MS: '10' })).toThrow(/ERRATA_RETENTION_INTERVAL_MS/)
    expect(() => loadConfig({ ERRATA_SOURCE_MAPS_KEPT: '0' })).toThrow(/ERRATA_SOURCE_MAPS_KEPT/)
  })
})

describe('the retention sweep', () => {
  const errorId = async (errorClass: string) => (await errorsOf(web.project.id)).find((e) => e.error_class === errorClass)!.id
  let fixedId: string
  let openId: string
  let deliveriesBefore: number

  beforeAll(async () => {
    const override = await ctx.request(`/api/projects/${mobile.id}`, { method: 'PATCH', token: web.user.token, json: { event_retention_days: 60 } })
    expect(override.status).toBe(200)
    await ingestAt(ctx, web.project.id, [
      { at: daysAgo(40), event: event('OldOpenError', { user: alice, version: '0.9.0' }) },
      { at: daysAgo(35), event: event('OldOpenError', { user: bob, version: '0.9.0' }) },
      { at: daysAgo(40), event: event('OldFixedError', { user: alice }) },
      { at: daysAgo(45), event: event('OldCommentedError', { user: bob }) },
      { at: daysAgo(40), event: event('MixedError', { user: alice, session: 's-old' }) },
      { at: daysAgo(5), event: event('MixedError', { user: bob }) },
      { at: daysAgo(1), event: event('FreshError', { user: alice }) },
    ])
    await ingestAt(ctx, mobile.id, [
      { at: daysAgo(70), event: event('MobileOldError', { user: alice }) },
      { at: daysAgo(40), event: event('MobileKeptError', { user: bob }) },
    ])
    // People decided about two of the errors whose events all expire.
    const base = `/api/projects/${web.project.id}/errors`
    fixedId = await errorId('OldFixedError')
    openId = await errorId('OldOpenError')
    keptIds.add(fixedId)
    const fixed = await ctx.request(`${base}/${fixedId}`, { method: 'PATCH', token: web.user.token, json: { operation: 'fix' } })
    expect(fixed.status).toBe(200)
    const commented = await ctx.request(`${base}/${await errorId('OldCommentedError')}/comments`, {
      method: 'POST',
      token: web.user.token,
      json: { message: 'seen in the outage' },
    })
    expect(commented.status).toBe(201)
    // A webhook for everything, from now on: expiry must not fire it.
    const hook = await ctx.request(`/api/projects/${web.project.id}/webhooks`, {
      method: 'POST',
      token: web.user.token,
      json: { url: receiver.url, triggers: ['firstException', 'exception', 'reopened', 'comment', 'errorStateManualChange', 'errorEventFrequency'], settings: { errorEventFrequency: { threshold: 1, unit: 'events', hours: 1 } } },
    })
    expect(hook.status).toBe(201)
    await ctx.jobs.drain()
    deliveriesBefore = await count(sql`SELECT count(*)::int AS n FROM webhook_deliveries`)
    // Source maps of one minified URL: two newest kept, 1.0.0 kept for its stored events, 0.1.0 removed.
    const upload = (version: string, daysOld: number) => ({
      id: newId(),
      projectId: web.project.id,
      kind: 'js' as const,
      minifiedUrl: 'https://app.example.com/main.js',
      appVersion: version,
      sizeBytes: 10,
      storedBytes: 10,
      uploadedAt: daysAgo(daysOld),
    })
    await db().insert(sourceMaps).values([upload('0.1.0', 50), upload('1.0.0', 40), upload('1.1.0', 20), upload('1.2.0', 10)])
    await sweep()
  }, 120_000)

  it('deletes the events past the default retention and past a project’s own', async () => {
    expect((await eventsOf(web.project.id)).map((e) => e.error_class)).toEqual(['MixedError', 'FreshError'])
    expect((await eventsOf(mobile.id)).map((e) => e.error_class)).toEqual(['MobileKeptError'])
    const payloads = await count(sql`SELECT count(*)::int AS n FROM event_payloads p JOIN events g ON g.id = p.event_id WHERE g.project_id = ${web.project.id}`)
    expect(payloads).toBe(2)
    expect(await count(sql`SELECT count(*)::int AS n FROM crashed_sessions WHERE session_id = 's-old'`)).toBe(0)
    expect(await count(sql`SELECT count(*)::int AS n FROM event_data_deletion_work`)).toBe(0)
  })

  it('keeps the errors people decided about and removes the others left without events', async () => {
    const errors = await errorsOf(web.project.id)
    expect(errors.map((e) => e.error_class)).toEqual(['FreshError', 'MixedError', 'OldCommentedError', 'OldFixedError'])
    expect(errors.find((e) => e.id === fixedId)).toMatchObject({ status: 'fixed', events: 0, users: 0, last_event_id: null })
    expect(errors.find((e) => e.error_class === 'MixedError')).toMatchObject({ events: 1, users: 1 })
    expect((await errorsOf(mobile.id)).map((e) => e.error_class)).toEqual(['MobileKeptError'])
  })

  it('leaves counters, users and rollups exactly as a recomputation from the remaining events', async () => {
    await expectExact(web.project.id)
    await expectExact(mobile.id)
  })

  it('fires no webhook', async () => {
    await ctx.jobs.drain()
    expect(await count(sql`SELECT count(*)::int AS n FROM webhook_deliveries`)).toBe(deliveriesBefore)
  })

  it('removes source maps past the newest of their URL that no stored event can use', async () => {
    const left = await queryRows<{ app_version: string }>(db(), sql`SELECT app_version FROM source_maps WHERE project_id = ${web.project.id} ORDER BY app_version`)
    expect(left.map((r) => r.app_version)).toEqual(['1.0.0', '1.1.0', '1.2.0'])
  })

  it('sends a recurrence to the kept error, and a new one where the error was removed', async () => {
    await ingestAt(ctx, web.project.id, [
      { at: new Date(), event: event('OldFixedError', { user: bob }) },
      { at: new Date(), event: event('OldOpenError', { user: bob }) },
    ])
    const errors = await errorsOf(web.project.id)
    expect(errors.find((e) => e.error_class === 'OldFixedError')).toMatchObject({ id: fixedId, status: 'open', events: 1, users: 1 })
    const [first] = await queryRows<{ first_seen: Date }>(db(), sql`SELECT first_seen FROM errors WHERE id = ${fixedId}`)
    expect(new Date(first!.first_seen).getTime()).toBeLessThan(daysAgo(39).getTime())
    const recurred = errors.find((e) => e.error_class === 'OldOpenError')!
    expect(recurred.id).not.toBe(openId)
    expect(recurred).toMatchObject({ events: 1, users: 1 })
    await expectExact(web.project.id)
    // The webhook works: the reopening is delivered.
    await ctx.jobs.drain()
    expect(await count(sql`SELECT count(*)::int AS n FROM webhook_deliveries`)).toBeGreaterThan(deliveriesBefore)
  })

  it('counts nothing twice when two sweeps run at once', async () => {
    await ingestAt(
      ctx,
      web.project.id,
      Array.from({ length: 12 }, (_, i) => ({
        at: daysAgo(29 - i / 24),
        event: event(`RaceError${i % 3}`, { user: i % 2 ? alice : { id: `user-${i}` }, session: i % 4 === 0 ? `s-race-${i}` : undefined }),
      })),
    )
    const before = await eventsOf(web.project.id)
    // Two days later those twelve have expired; two processes' sweeps (a lease taken over) race.
    offsetMs = 2 * DAY
    const logger = pino({ level: 'silent' })
    const run = (id: string) => {
      const [handler] = retentionJobHandlers(db(), ctx.deps.privacy!, settings, logger)
      const job: JobContext<never> = {
        id,
        kind: RETENTION_JOBS.sweep,
        payload: undefined as never,
        attempt: 1,
        maxAttempts: 1,
        signal: new AbortController().signal,
        fence: async () => {},
        heldRow: sql`SELECT NULL AS id, NULL AS payload`,
      }
      return handler!.run(job)
    }
    await Promise.all([run('a'), run('b')])
    const after = await eventsOf(web.project.id)
    expect(before.length - after.length).toBe(12)
    expect(after.some((e) => e.error_class.startsWith('RaceError'))).toBe(false)
    expect((await errorsOf(web.project.id)).some((e) => e.error_class.startsWith('RaceError'))).toBe(false)
    await expectExact(web.project.id)
    expect(await count(sql`SELECT count(*)::int AS n FROM event_data_deletion_work`)).toBe(0)
  }, 120_000)

  it('queues one sweep at a time, which one of two processes’ runners runs', async () => {
    const completed = () => count(sql`SELECT count(*)::int AS n FROM jobs WHERE kind = ${RETENTION_JOBS.sweep} AND state = 'completed'`)
    const done = await completed()
    expect(await enqueueRetentionSweep(db(), clock())).not.toBeNull()
    expect(await enqueueRetentionSweep(db(), clock())).toBeNull()
    const logger = pino({ level: 'silent' })
    const other = new JobRunner({ database: ctx.deps.database, logger, clock, handlers: retentionJobHandlers(db(), ctx.deps.privacy!, settings, logger) })
    await Promise.all([ctx.jobs.drain(), other.drain()])
    await other.stop()
    expect(await completed()).toBe(done + 1)
    await expectExact(web.project.id)
  })

  it('runs a sweep as soon as the background jobs start', async () => {
    const completed = () => count(sql`SELECT count(*)::int AS n FROM jobs WHERE kind = ${RETENTION_JOBS.sweep} AND state = 'completed'`)
    const done = await completed()
    ctx.jobs.start()
    await expect.poll(completed, { timeout: 30_000, interval: 50 }).toBe(done + 1)
  }, 60_000)
})
