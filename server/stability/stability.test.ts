import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stabilitySchema, stabilityTrendSchema, type Stability, type StabilityBucket } from '../../contract/stability.ts'
import { queryRows } from '../db/client.ts'
import { ingestAt, notifierEvent } from '../test-support/ingest.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

let ctx: TestContext
let seeded: SeededProject
let outsider: TestUser

const HOUR = 3_600_000
const DAY = 24 * HOUR
const eq = (field: string, value: string) => `filters[${field}][][type]=eq&filters[${field}][][value]=${encodeURIComponent(value)}`
const MARCH = `${eq('event.since', '2025-03-01T00:00:00Z')}&${eq('event.before', '2025-03-03T00:00:00Z')}`

const sendSessions = async (project: SeededProject, body: Record<string, unknown>) => {
  const res = await ctx.request('/sessions', {
    method: 'POST',
    headers: { 'Bugsnag-Api-Key': project.project.api_key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ notifier: { name: 'test' }, ...body }),
  })
  expect(res.status).toBe(202)
}

/** An event of `release` (stage, version), unhandled unless said otherwise, in `session` when given. */
const event = (
  errorClass: string,
  release: { stage: string; version: string },
  session?: { id: string; startedAt?: string },
  unhandled = true,
) =>
  notifierEvent(errorClass, {
    unhandled,
    app: { releaseStage: release.stage, version: release.version },
    ...(session && { session: { ...session, events: { handled: unhandled ? 0 : 1, unhandled: unhandled ? 1 : 0 } } }),
  })

const PROD_1 = { stage: 'production', version: '1.0.0' }
const PROD_2 = { stage: 'production', version: '2.0.0' }
const STAGING_2 = { stage: 'staging', version: '2.0.0' }

async function stability(project: SeededProject, query = MARCH, token = project.user.token): Promise<Stability> {
  const res = await ctx.request(`/api/projects/${project.project.id}/stability?${query}`, { token })
  expect(res.status).toBe(200)
  return stabilitySchema.parse(await res.json())
}

beforeAll(async () => {
  ctx = await createTestContext()
  seeded = await seedProject(ctx, { user: 'Stability Admin' })
  outsider = await ctx.createUser('Outsider')

  // Node's per-minute counts and a browser's one entry per session.
  await sendSessions(seeded, {
    app: { releaseStage: 'production', version: '1.0.0' },
    sessionCounts: [{ startedAt: '2025-03-01T10:00:00.000Z', sessionsStarted: 10 }],
  })
  await sendSessions(seeded, {
    app: { releaseStage: 'production', version: '2.0.0' },
    sessionCounts: [{ startedAt: '2025-03-02T10:00:00.000Z', sessionsStarted: 4 }],
  })
  await sendSessions(seeded, {
    app: { releaseStage: 'staging', version: '2.0.0' },
    sessions: [
      { id: 'b1', startedAt: '2025-03-02T11:00:05Z' },
      { id: 'b2', startedAt: '2025-03-02T11:00:50Z' },
    ],
  })

  const s1 = { id: 'session-1', startedAt: '2025-03-01T10:00:30.000Z' }
  await ingestAt(ctx, seeded.project.id, [
    // One session, three unhandled events (two errors, two requests): crashed once. Received
    // two hours after the session started, still counted at its start minute.
    { at: new Date('2025-03-01T12:00:00Z'), event: event('TypeError', PROD_1, s1) },
    { at: new Date('2025-03-01T12:00:01Z'), event: event('TypeError', PROD_1, s1) },
    { at: new Date('2025-03-01T12:00:02Z'), event: event('RangeError', PROD_1, s1) },
    { at: new Date('2025-03-01T10:05:00Z'), event: event('TypeError', PROD_1, { id: 'session-2', startedAt: '2025-03-01T10:01:00Z' }) },
    // Handled only: not crashed.
    { at: new Date('2025-03-01T10:06:00Z'), event: event('Warning', PROD_1, { id: 'session-3', startedAt: '2025-03-01T10:02:00Z' }, false) },
    // No session: not counted anywhere.
    { at: new Date('2025-03-01T10:07:00Z'), event: event('TypeError', PROD_1) },
    { at: new Date('2025-03-02T10:00:10Z'), event: event('TypeError', PROD_2, { id: 'session-4', startedAt: '2025-03-02T10:00:01Z' }) },
    // No start time: the minute the event was received.
    { at: new Date('2025-03-02T11:00:40Z'), event: event('TypeError', STAGING_2, { id: 'b1' }) },
  ])
})
afterAll(() => ctx.close())

describe('GET /projects/{id}/stability', () => {
  it('counts sessions and crashed sessions per release, newest release first, with totals', async () => {
    const answer = await stability(seeded)
    expect(answer.total).toEqual({ sessions: 16, crashed_sessions: 4, crash_free_rate: 0.75, first_seen: '2025-03-01T10:00:00.000Z' })
    expect(answer.releases).toEqual([
      {
        release_stage: 'staging',
        app_version: '2.0.0',
        sessions: 2,
        crashed_sessions: 1,
        crash_free_rate: 0.5,
        first_seen: '2025-03-02T11:00:00.000Z',
        last_seen: '2025-03-02T11:00:00.000Z',
      },
      {
        release_stage: 'production',
        app_version: '2.0.0',
        sessions: 4,
        crashed_sessions: 1,
        crash_free_rate: 0.75,
        first_seen: '2025-03-02T10:00:00.000Z',
        last_seen: '2025-03-02T10:00:00.000Z',
      },
      {
        release_stage: 'production',
        app_version: '1.0.0',
        sessions: 10,
        crashed_sessions: 2,
        crash_free_rate: 0.8,
        first_seen: '2025-03-01T10:00:00.000Z',
        last_seen: '2025-03-01T10:01:00.000Z',
      },
    ])
  })

  it('stores one crashed session per session id, at its start minute, from unhandled events only', async () => {
    const rows = await queryRows<{ session_id: string; started_minute: Date | string }>(
      ctx.deps.database.db,
      sql`SELECT session_id, started_minute FROM crashed_sessions WHERE project_id = ${seeded.project.id} ORDER BY session_id`,
    )
    expect(rows.map((r) => [r.session_id, new Date(r.started_minute).toISOString()])).toEqual([
      ['b1', '2025-03-02T11:00:00.000Z'],
      ['session-1', '2025-03-01T10:00:00.000Z'],
      ['session-2', '2025-03-01T10:01:00.000Z'],
      ['session-4', '2025-03-02T10:00:00.000Z'],
    ])
  })

  it('counts only sessions that started within event.since and event.before', async () => {
    const answer = await stability(seeded, `${eq('event.since', '2025-03-02T00:00:00Z')}&${eq('event.before', '2025-03-02T11:00:00Z')}`)
    expect(answer.total).toEqual({ sessions: 4, crashed_sessions: 1, crash_free_rate: 0.75, first_seen: '2025-03-02T10:00:00.000Z' })
    expect(answer.releases.map((r) => [r.release_stage, r.app_version])).toEqual([['production', '2.0.0']])
  })

  it('narrows to the release stages given', async () => {
    const answer = await stability(seeded, `${MARCH}&${eq('app.release_stage', 'staging')}`)
    expect(answer.total).toMatchObject({ sessions: 2, crashed_sessions: 1, crash_free_rate: 0.5 })
    expect(answer.releases).toHaveLength(1)
    const both = await stability(seeded, `${MARCH}&${eq('app.release_stage', 'staging')}&${eq('app.release_stage', 'production')}`)
    expect(both.total.sessions).toBe(16)
  })

  it('defaults to the last 30 days', async () => {
    const project = await seedProject(ctx, { user: seeded.user, project: 'Recent' })
    const now = Date.now()
    const recent = new Date(now - HOUR).toISOString()
    await sendSessions(project, { app: { version: '3.0.0' }, sessionCounts: [{ startedAt: recent, sessionsStarted: 5 }] })
    await sendSessions(project, {
      app: { version: '3.0.0' },
      sessionCounts: [{ startedAt: new Date(now - 31 * DAY).toISOString(), sessionsStarted: 100 }],
    })
    await ingestAt(ctx, project.project.id, [
      { at: new Date(now - HOUR + 5_000), event: event('TypeError', { stage: 'production', version: '3.0.0' }, { id: 'r1', startedAt: recent }) },
    ])
    const answer = await stability(project, '')
    expect(answer.total).toMatchObject({ sessions: 5, crashed_sessions: 1, crash_free_rate: 0.8 })
  })

  it('never answers a rate below 0, and null without sessions', async () => {
    const project = await seedProject(ctx, { user: seeded.user, project: 'Late sessions' })
    await sendSessions(project, {
      app: { releaseStage: 'production', version: '1.0.0' },
      sessionCounts: [{ startedAt: '2025-03-01T10:00:00Z', sessionsStarted: 1 }],
    })
    await ingestAt(ctx, project.project.id, [
      { at: new Date('2025-03-01T10:00:10Z'), event: event('A', PROD_1, { id: 'x1', startedAt: '2025-03-01T10:00:00Z' }) },
      { at: new Date('2025-03-01T10:00:20Z'), event: event('A', PROD_1, { id: 'x2', startedAt: '2025-03-01T10:00:00Z' }) },
      // Sessions never sent for this version.
      { at: new Date('2025-03-01T10:00:30Z'), event: event('A', PROD_2, { id: 'x3', startedAt: '2025-03-01T10:00:00Z' }) },
    ])
    const answer = await stability(project)
    expect(answer.total).toMatchObject({ sessions: 1, crashed_sessions: 3, crash_free_rate: 0 })
    expect(answer.releases.map((r) => [r.app_version, r.sessions, r.crashed_sessions, r.crash_free_rate])).toEqual([
      ['1.0.0', 1, 2, 0],
      ['2.0.0', 0, 1, null],
    ])
  })

  it('answers zeros and a null rate for a project without sessions', async () => {
    const project = await seedProject(ctx, { user: seeded.user, project: 'Quiet' })
    expect(await stability(project)).toEqual({ total: { sessions: 0, crashed_sessions: 0, crash_free_rate: null, first_seen: null }, releases: [] })
  })

  it('answers 404 to someone outside the organization and for an unknown project', async () => {
    const res = await ctx.request(`/api/projects/${seeded.project.id}/stability`, { token: outsider.token })
    expect(res.status).toBe(404)
    const unknown = await ctx.request('/api/projects/000000000000000000000000/stability', { token: seeded.user.token })
    expect(unknown.status).toBe(404)
  })

  it('answers 400 naming a filter it does not take', async () => {
    const get = (query: string) => ctx.request(`/api/projects/${seeded.project.id}/stability?${query}`, { token: seeded.user.token })
    const version = await get(eq('app.version', '1.0.0'))
    expect(version.status).toBe(400)
    expect(((await version.json()) as { errors: string[] }).errors[0]).toMatch(/^filters\[app\.version\]: not supported/)
    const ne = await get('filters[app.release_stage][][type]=ne&filters[app.release_stage][][value]=staging')
    expect(ne.status).toBe(400)
    expect(((await ne.json()) as { errors: string[] }).errors[0]).toMatch(/^filters\[app\.release_stage\]: only type eq/)
    const time = await get(eq('event.since', 'yesterday'))
    expect(time.status).toBe(400)
    expect(((await time.json()) as { errors: string[] }).errors[0]).toMatch(/^filters\[event\.since\]/)
  })

  it('deletes a project’s crashed sessions with the project', async () => {
    const project = await seedProject(ctx, { user: seeded.user, project: 'Doomed' })
    await ingestAt(ctx, project.project.id, [
      { at: new Date('2025-03-01T10:00:10Z'), event: event('A', PROD_1, { id: 'd1', startedAt: '2025-03-01T10:00:00Z' }) },
    ])
    const count = async () =>
      (await queryRows<{ n: number }>(ctx.deps.database.db, sql`SELECT count(*)::int AS n FROM crashed_sessions WHERE project_id = ${project.project.id}`))[0]!.n
    expect(await count()).toBe(1)
    const res = await ctx.request(`/api/projects/${project.project.id}`, { method: 'DELETE', token: seeded.user.token })
    expect(res.status).toBe(204)
    expect(await count()).toBe(0)
  })
})

describe('GET /projects/{id}/stability/trend', () => {
  const trend = async (query: string, token = seeded.user.token) => {
    const res = await ctx.request(`/api/projects/${seeded.project.id}/stability/trend?${query}`, { token })
    return { status: res.status, body: (await res.json()) as unknown }
  }
  const bucket = (from: string, sessions: number, crashed: number, rate: number | null): StabilityBucket => ({
    from: `${from}:00:00.000Z`,
    to: new Date(Date.parse(`${from}:00:00.000Z`) + DAY).toISOString(),
    sessions,
    crashed_sessions: crashed,
    crash_free_rate: rate,
  })

  it('cuts the period into buckets of sessions and crashed sessions, by the minute each session started', async () => {
    const { status, body } = await trend(`${MARCH}&resolution=1d`)
    expect(status).toBe(200)
    expect(stabilityTrendSchema.parse(body)).toEqual([bucket('2025-03-01T00', 10, 2, 0.8), bucket('2025-03-02T00', 6, 2, 1 - 2 / 6)])
  })

  it('answers empty buckets with a null rate, and narrows to the release stages given', async () => {
    const since = `${eq('event.since', '2025-03-02T10:00:00Z')}&${eq('event.before', '2025-03-02T13:00:00Z')}`
    const all = stabilityTrendSchema.parse((await trend(`${since}&resolution=1h`)).body)
    expect(all.map((b) => [b.from.slice(11, 13), b.sessions, b.crashed_sessions, b.crash_free_rate])).toEqual([
      ['10', 4, 1, 0.75],
      ['11', 2, 1, 0.5],
      ['12', 0, 0, null],
    ])
    const staging = stabilityTrendSchema.parse((await trend(`${since}&resolution=1h&${eq('app.release_stage', 'staging')}`)).body)
    expect(staging.map((b) => b.sessions)).toEqual([0, 2, 0])
  })

  it('answers 400 naming a bad resolution or a filter it does not take, and 404 to someone who cannot see the project', async () => {
    const resolution = await trend(`${MARCH}&resolution=weekly`)
    expect(resolution.status).toBe(400)
    expect((resolution.body as { errors: string[] }).errors[0]).toMatch(/^resolution: /)
    const tooMany = await trend(`${eq('event.since', '2020-01-01T00:00:00Z')}&${eq('event.before', '2025-01-01T00:00:00Z')}&resolution=1h`)
    expect(tooMany.status).toBe(400)
    expect((tooMany.body as { errors: string[] }).errors[0]).toMatch(/at most 2000/)
    const version = await trend(eq('app.version', '1.0.0'))
    expect(version.status).toBe(400)
    expect((version.body as { errors: string[] }).errors[0]).toMatch(/^filters\[app\.version\]: not supported/)
    expect((await trend(MARCH, outsider.token)).status).toBe(404)
  })
})
