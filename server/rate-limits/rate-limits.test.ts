// Per-project rate limiting: the quota API and its refusals, the sampling rule through the real
// ingestion path (what is kept, what is counted), counting shared by concurrent transactions (as
// several processes on one PostgreSQL, and several indexers sharing ingest_log), and the two
// rate-limit webhook triggers as a real HTTP
// receiver on 127.0.0.1 gets them: one of each for a burst, not a flood.
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RateLimit } from '../../contract/rate-limits.ts'
import type { Webhook } from '../../contract/webhooks.ts'
import { queryRows, withTransaction } from '../db/client.ts'
import { createProcessor } from '../ingest/process/process.ts'
import { acceptedPayload, appendToIngestLog, ingestAt, notifierEvent, tableIndexer } from '../test-support/ingest.ts'
import { seedMember, seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'
import { atWallClock } from '../test-support/wall-clock.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../test-support/webhook-receiver.ts'
import { parseAllowList } from '../outbound/allow-list.ts'
import { applyRateLimits } from './rate-limit-step.ts'
import { keptBetween, keptInWindow } from './sampling.ts'

let ctx: TestContext
let receiver: WebhookReceiver
let main: SeededProject
let member: TestUser
let outsider: TestUser

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  ctx = await createTestContext({ webhookAllow: parseAllowList('127.0.0.1') }, { webhooks: { retryDelayMs: () => 0 } })
  main = await seedProject(ctx, { user: 'Quota Admin', organization: 'Quota Org', project: 'Quota' })
  member = await seedMember(ctx, main.organization.id, 'Quota Member')
  outsider = await ctx.createUser('Quota Outsider')
})
afterAll(async () => {
  await ctx?.close()
  await receiver?.close()
})

const limitPath = (projectId: string) => `/api/projects/${projectId}/rate_limit`
const setLimit = (projectId: string, json: unknown, token = main.user.token) => ctx.request(limitPath(projectId), { method: 'PATCH', token, json })
const readLimit = async (projectId: string) => (await (await ctx.request(limitPath(projectId), { token: main.user.token })).json()) as RateLimit

async function newProject(name: string): Promise<string> {
  const res = await ctx.request(`/api/organizations/${main.organization.id}/projects`, { method: 'POST', token: main.user.token, json: { name } })
  return ((await res.json()) as { id: string }).id
}

async function storedEvents(projectId: string): Promise<number> {
  const [row] = await queryRows<{ n: number | string }>(ctx.deps.database.db, sql`SELECT count(*) AS n FROM events WHERE project_id = ${projectId}`)
  return Number(row!.n)
}

/** `n` events of one error, received at `at` (a minute chosen by the test), through the real ingest path. */
const burstAt = (projectId: string, at: Date, n: number, errorClass = 'Flood') =>
  ingestAt(ctx, projectId, Array.from({ length: n }, () => ({ at, event: notifierEvent(errorClass) })))

const HOUR = 3_600_000
const isToday = (at: Date) => at.toISOString().slice(0, 10) === new Date().toISOString().slice(0, 10)

/** The start of the minute before the current one: inside the last 24 hours, and a whole minute of its own. */
const lastMinute = () => new Date(Math.floor(Date.now() / 60_000) * 60_000 - 60_000)

describe('the sampling rule', () => {
  it('keeps the quota, then 1 in 2 of the next quota, 1 in 3 of the one after, …', () => {
    expect(keptBetween(0, 10, 10)).toBe(10)
    expect([11, 12, 13, 14, 20].map((c) => keptInWindow(c, 10))).toEqual([false, true, false, true, true])
    expect(keptBetween(10, 20, 10)).toBe(5)
    expect(keptBetween(20, 30, 10)).toBe(4)
    expect(keptBetween(0, 40, 10)).toBe(22)
    // The stored events grow with the logarithm of those received (docs/ingestion.md).
    expect(keptBetween(0, 10_000, 1000) / 1000).toBeCloseTo(2.93, 1)
    expect(keptBetween(0, 100_000, 1000) / 1000).toBeCloseTo(5.19, 1)
  })
})

describe('the quota API', () => {
  it('is off by default; an admin sets and clears each quota; members read it', async () => {
    const fresh = await readLimit(main.project.id)
    expect(fresh).toMatchObject({
      events_per_minute: null,
      events_per_day: null,
      events_today: 0,
      events_last_minute: 0,
      events_last_hour: 0,
      busiest_minute_24h: 0,
      dropped_last_24h: 0,
      last_dropped_at: null,
    })
    expect(fresh.hours).toHaveLength(24)
    expect(fresh.hours.every((h) => h.events === 0 && h.dropped === 0)).toBe(true)
    const set = await setLimit(main.project.id, { events_per_minute: 600, events_per_day: 100_000 })
    expect(set.status).toBe(200)
    expect(await set.json()).toMatchObject({ events_per_minute: 600, events_per_day: 100_000 })
    const res = await setLimit(main.project.id, { events_per_minute: null })
    expect(await res.json()).toMatchObject({ events_per_minute: null, events_per_day: 100_000 })
    const asMember = await ctx.request(limitPath(main.project.id), { token: member.token })
    expect(asMember.status).toBe(200)
    expect(await asMember.json()).toMatchObject({ events_per_minute: null, events_per_day: 100_000 })
    expect(await (await setLimit(main.project.id, { events_per_day: null })).json()).toMatchObject({ events_per_minute: null, events_per_day: null })
  })

  it('answers 403 to a member who tries to change it and 404 to outsiders', async () => {
    expect((await setLimit(main.project.id, { events_per_day: 5 }, member.token)).status).toBe(403)
    expect((await ctx.request(limitPath(main.project.id), { token: outsider.token })).status).toBe(404)
    expect((await setLimit(main.project.id, { events_per_day: 5 }, outsider.token)).status).toBe(404)
    expect((await setLimit('no-such-project', { events_per_day: 5 })).status).toBe(404)
    expect((await readLimit(main.project.id)).events_per_day).toBeNull()
  })

  it('refuses bad input with 400, naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ events_per_minute: 0 }, 'events_per_minute: must be at least 1, or null for no limit'],
      [{ events_per_day: 2.5 }, 'events_per_day: must be a whole number of events, or null for no limit'],
      [{ events_per_day: '100' }, 'events_per_day: must be a whole number of events, or null for no limit'],
      [{ events_per_minute: 2_000_000_000 }, 'events_per_minute: must be at most 1,000,000,000'],
      [{}, 'body: give events_per_minute, events_per_day or both'],
    ]
    for (const [body, message] of cases) {
      const res = await setLimit(main.project.id, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(((await res.json()) as { errors: string[] }).errors).toContain(message)
    }
    const unknown = await setLimit(main.project.id, { events_per_hour: 5 })
    expect(unknown.status).toBe(400)
    expect(((await unknown.json()) as { errors: string[] }).errors.join(' ')).toContain('events_per_hour')
  })
})

describe('sampling above the quota', () => {
  it('keeps the documented fraction, counts the rest in the shared window, and shows the drops', async () => {
    const projectId = await newProject('Sampled')
    await setLimit(projectId, { events_per_minute: 10 })
    const minute = lastMinute()
    await burstAt(projectId, minute, 40)
    // 10 + 5 + 4 + 3 of events 1–40 (the rule above); the count goes on across batches: 41–50 keep 45 and 50.
    expect(await storedEvents(projectId)).toBe(22)
    await burstAt(projectId, minute, 10)
    expect(await storedEvents(projectId)).toBe(24)
    const limit = await readLimit(projectId)
    expect(limit).toMatchObject({ events_per_minute: 10, dropped_last_24h: 26, events_today: minute.getUTCDate() === new Date().getUTCDate() ? 50 : 0 })
    expect(limit.last_dropped_at).toBe(minute.toISOString())
    // The error's counters hold the stored events only: the dropped ones are counted on the project.
    const [error] = (await (await ctx.request(`/api/projects/${projectId}/errors`, { token: main.user.token })).json()) as Array<{ events: number }>
    expect(error!.events).toBe(24)
    // The next minute starts a window of its own.
    await burstAt(projectId, new Date(minute.getTime() + 60_000), 10)
    expect(await storedEvents(projectId)).toBe(34)
  })

  it('does not limit a project without a quota (it counts its events all the same), and does not count events of discarded errors', async () => {
    const projectId = await newProject('Unlimited')
    const first = lastMinute()
    await burstAt(projectId, first, 30)
    expect(await storedEvents(projectId)).toBe(30)
    expect(await readLimit(projectId)).toMatchObject({ events_today: isToday(first) ? 30 : 0, dropped_last_24h: 0 })

    const [noisy] = (await (await ctx.request(`/api/projects/${projectId}/errors`, { token: main.user.token })).json()) as Array<{ id: string }>
    await ctx.request(`/api/projects/${projectId}/errors/${noisy!.id}`, { method: 'PATCH', token: main.user.token, json: { operation: 'discard' } })
    await setLimit(projectId, { events_per_minute: 5 })
    const minute = new Date(lastMinute().getTime() + 60_000)
    await burstAt(projectId, minute, 20, 'Flood')
    await burstAt(projectId, minute, 5, 'Other')
    // The discarded error's 20 events used none of the quota: the 5 others are all kept.
    expect(await storedEvents(projectId)).toBe(35)
    expect((await readLimit(projectId)).dropped_last_24h).toBe(0)
    const [window] = await queryRows<{ events: number | string }>(
      ctx.deps.database.db,
      sql`SELECT events FROM project_event_windows WHERE project_id = ${projectId} AND span = 'minute' AND starts_at = ${minute.toISOString()}::timestamptz`,
    )
    expect(Number(window!.events)).toBe(5)
  })

  it('applies a quota set in the middle of a window to the events that window counted before it was set', async () => {
    const projectId = await newProject('Late quota')
    const minute = lastMinute()
    await burstAt(projectId, minute, 30)
    await setLimit(projectId, { events_per_minute: 10 })
    // Events 31–40 of the minute: past three quotas' worth, 1 in 4 is kept (32, 36 and 40).
    await burstAt(projectId, minute, 10)
    expect(await storedEvents(projectId)).toBe(30 + keptBetween(30, 40, 10))
    expect((await readLimit(projectId)).dropped_last_24h).toBe(10 - keptBetween(30, 40, 10))
  })

  it('counts exactly once when two transactions index the same project at once (several processes)', async () => {
    const projectId = await newProject('Shared')
    await setLimit(projectId, { events_per_minute: 10 })
    const at = lastMinute()
    const processor = createProcessor()
    const batchOf = async () =>
      (await processor.process([acceptedPayload(projectId, { payloadVersion: '5', events: Array.from({ length: 20 }, () => notifierEvent('Shared')) }, at)])).events
    const [a, b] = [await batchOf(), await batchOf()]
    const db = ctx.deps.database.db
    // Without the project write lock the indexer holds: the shared rows alone keep the count and the notices exact.
    const results = await Promise.all([a, b].map((batch) => withTransaction(db, async (tx) => applyRateLimits(tx, batch))))
    // 40 events in one minute, in whichever order the transactions took: 22 kept, 18 counted as dropped,
    // and one notice of each kind between them.
    expect(results[0]!.kept.length + results[1]!.kept.length).toBe(22)
    expect(results.flatMap((r) => r.notices.map((n) => n.trigger)).sort()).toEqual(['projectApproachingRateLimit', 'projectSamplingStarted'])
    const [row] = await queryRows<{ events: number | string; dropped: number | string }>(
      db,
      sql`SELECT events, dropped FROM project_event_windows WHERE project_id = ${projectId} AND span = 'minute'`,
    )
    expect({ events: Number(row!.events), dropped: Number(row!.dropped) }).toEqual({ events: 40, dropped: 18 })
  })
})

describe('recent volume', () => {
  it('counts every project’s events, quota or not: the last minute, the last hour, today, the busiest minute and each of the last 24 hours', async () => {
    const projectId = await newProject('Volume')
    // Read at 30 s into a minute; events in the minute before it, three hours before, and 25 hours before.
    const readAt = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30_000)
    const minute = new Date(readAt.getTime() - 90_000)
    const earlier = new Date(minute.getTime() - 3 * HOUR)
    const dayBefore = new Date(minute.getTime() - 25 * HOUR)
    await burstAt(projectId, minute, 30)
    await burstAt(projectId, earlier, 12)
    await burstAt(projectId, dayBefore, 40)
    expect(await storedEvents(projectId)).toBe(82)

    const limit = await atWallClock(readAt, () => readLimit(projectId))
    const sameDay = (at: Date) => at.toISOString().slice(0, 10) === readAt.toISOString().slice(0, 10)
    expect(limit).toMatchObject({
      events_per_minute: null,
      events_per_day: null,
      events_last_minute: 30,
      events_last_hour: 30,
      busiest_minute_24h: 30,
      events_today: (sameDay(minute) ? 30 : 0) + (sameDay(earlier) ? 12 : 0) + (sameDay(dayBefore) ? 40 : 0),
      dropped_last_24h: 0,
    })
    const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / HOUR) * HOUR).toISOString()
    expect(limit.hours).toHaveLength(24)
    expect(limit.hours.at(-1)!.hour).toBe(hourOf(readAt))
    expect(limit.hours.filter((h) => h.events > 0)).toEqual([
      { hour: hourOf(earlier), events: 12, dropped: 0 },
      { hour: hourOf(minute), events: 30, dropped: 0 },
    ])
    // A minute later, that minute is no longer the last one.
    expect((await atWallClock(readAt.getTime() + 60_000, () => readLimit(projectId))).events_last_minute).toBe(0)
  })

  it('shows each hour’s drops beside its events once a quota samples them', async () => {
    const projectId = await newProject('Volume sampled')
    await setLimit(projectId, { events_per_minute: 10 })
    const readAt = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30_000)
    const minute = new Date(readAt.getTime() - 90_000)
    await burstAt(projectId, minute, 40)
    const limit = await atWallClock(readAt, () => readLimit(projectId))
    const hour = new Date(Math.floor(minute.getTime() / HOUR) * HOUR).toISOString()
    expect(limit.hours.find((h) => h.hour === hour)).toEqual({ hour, events: 40, dropped: 40 - keptBetween(0, 40, 10) })
    expect(limit).toMatchObject({ events_last_minute: 40, dropped_last_24h: 40 - keptBetween(0, 40, 10) })
  })
})

describe('several indexers on one database', () => {
  it('three indexers taking one project’s requests in small batches keep the rule, count every drop once and send one of each trigger', async () => {
    const projectId = await newProject('Three indexers')
    await ctx.request(`/api/projects/${projectId}/webhooks`, {
      method: 'POST',
      token: main.user.token,
      json: { url: receiver.url, triggers: ['projectSamplingStarted', 'projectApproachingRateLimit'] },
    })
    await setLimit(projectId, { events_per_minute: 10 })
    const at = lastMinute()
    // 60 requests of one event each, received in one minute, waiting in ingest_log as several processes share it.
    await appendToIngestLog(
      ctx.deps.database.db,
      Array.from({ length: 60 }, () => acceptedPayload(projectId, { payloadVersion: '5', events: [notifierEvent('Shared log')] }, at)),
    )
    const indexers = [0, 1, 2].map(() => tableIndexer(ctx))
    await Promise.all(indexers.map((w) => w.idle()))
    await Promise.all(indexers.map((w) => w.close()))
    expect(await storedEvents(projectId)).toBe(keptBetween(0, 60, 10))
    expect((await readLimit(projectId)).dropped_last_24h).toBe(60 - keptBetween(0, 60, 10))
    const from = receiver.received.length
    await ctx.jobs.drain()
    const got = receiver.received.slice(from).filter((r) => (r.json.project as { id: string }).id === projectId)
    expect(got.map((r) => (r.json.trigger as { type: string }).type).sort()).toEqual(['projectApproachingRateLimit', 'projectSamplingStarted'])
  })
})

describe('rate-limit webhook triggers', () => {
  it('a burst sends one projectApproachingRateLimit and one projectSamplingStarted, with the documented payload', async () => {
    const projectId = await newProject('Flooded')
    const hookRes = await ctx.request(`/api/projects/${projectId}/webhooks`, {
      method: 'POST',
      token: main.user.token,
      json: { url: receiver.url, triggers: ['projectSamplingStarted', 'projectApproachingRateLimit'] },
    })
    expect(hookRes.status).toBe(201)
    const webhook = (await hookRes.json()) as Webhook
    // Without a quota, nothing fires however many events arrive.
    const from = receiver.received.length
    const apiKey = (await (await ctx.request(`/api/projects/${projectId}`, { token: main.user.token })).json()) as { api_key: string }
    const notify = async (n: number) => {
      const res = await ctx.request('/notify', {
        method: 'POST',
        headers: { 'Bugsnag-Api-Key': apiKey.api_key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ payloadVersion: '5', events: Array.from({ length: n }, () => notifierEvent('Burst')) }),
      })
      expect(res.status).toBe(200)
    }
    await notify(50)
    await ctx.jobs.drain()
    expect(receiver.received.length).toBe(from)

    await setLimit(projectId, { events_per_day: 100 })
    // A burst of 300 events today, in several requests, after the 50 above: they count towards
    // the day's quota (counted without one), so the warning comes at 80 and sampling above 100.
    for (let i = 0; i < 6; i++) await notify(50)
    await ctx.jobs.drain()
    const got = receiver.received.slice(from)
    const types = got.map((r) => (r.json.trigger as { type: string }).type).sort()
    expect(types).toEqual(['projectApproachingRateLimit', 'projectSamplingStarted'])
    for (const request of got) {
      expect(request.headers['x-errata-delivery']).toBeTruthy()
      const doc = request.json as Record<string, Record<string, unknown>>
      expect(Object.keys(doc).sort()).toEqual(['account', 'project', 'trigger'])
      expect(doc.account).toEqual({ id: main.organization.id, name: 'Quota Org', url: `http://errata.test/organizations/${main.organization.id}` })
      expect(doc.project).toEqual({ id: projectId, name: 'Flooded', url: `http://errata.test/projects/${projectId}/errors` })
      expect(Object.keys(doc.trigger!).sort()).toEqual(['message', 'type'])
    }
    const byType = Object.fromEntries(got.map((r) => [(r.json.trigger as { type: string }).type, (r.json.trigger as { message: string }).message]))
    expect(byType.projectApproachingRateLimit).toBe(
      'Project has used 80% of its daily event quota (80 of 100 events); events above the quota will be sampled',
    )
    expect(byType.projectSamplingStarted).toBe('Project is over its event quota of 100 events a day: events are being sampled')

    // More of the flood: the same sampling episode, and within 2 hours of the last warning: nothing more.
    for (let i = 0; i < 4; i++) await notify(50)
    await ctx.jobs.drain()
    expect(receiver.received.length).toBe(from + 2)
    expect((await readLimit(projectId)).dropped_last_24h).toBe(550 - keptBetween(0, 550, 100))
    const deliveries = (await (await ctx.request(`/api/webhooks/${webhook.id}/deliveries`, { token: main.user.token })).json()) as unknown[]
    expect(deliveries).toHaveLength(2)
  })
})
