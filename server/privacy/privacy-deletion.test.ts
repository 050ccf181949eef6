// After a completed deletion nothing of the deleted events is left anywhere: lists, pivots,
// trends, rollups, error counters, users affected, crashed sessions, retrieval files and the
// events that were still on their way into the tables. Every rollup and counter is compared
// with what a recomputation from the remaining events gives.
import { sql } from 'drizzle-orm'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { filtersToParams, type Filters } from '../../contract/filters.ts'
import { eventDataDeletionSchema, eventDataRequestSchema, type EventDataRequest } from '../../contract/privacy.ts'
import { queryRows } from '../db/client.ts'
import { JobRunner } from '../jobs/job-runner.ts'
import { ingestAt, notifierEvent } from '../test-support/ingest.ts'
import { countersAgainstEvents, rollupsAgainstRebuild } from '../test-support/recomputed.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'
import type { DeletionStep, DeletionStepRunner } from './delete-events.ts'
import { privacyJobHandlers } from './privacy.jobs.ts'

let ctx: TestContext
/** Called by the test's waitForIngestedBefore before it waits: events arriving during a deletion. */
let duringWait: ((at: Date) => Promise<void>) | null = null

beforeAll(async () => {
  ctx = await createTestContext(
    {},
    {
      privacy: {
        batchSize: 3,
        waitForIngestedBefore: async (at) => {
          const arrive = duringWait
          duringWait = null
          await arrive?.(at)
          await ctx.deps.ingestWriter.indexed()
        },
      },
    },
  )
})
afterAll(() => ctx.close())

/** A second process's job runner with the privacy jobs, on the same database. */
const anotherRunner = (privacy = ctx.deps.privacy!) =>
  new JobRunner({
    database: ctx.deps.database,
    logger: pino({ level: 'silent' }),
    handlers: privacyJobHandlers(ctx.deps.database.db, privacy, pino({ level: 'silent' })),
  })

const HOUR = 3_600_000
// Two days ago, on the hour: requests select events received before they were made.
const base = Math.floor((Date.now() - 48 * HOUR) / HOUR) * HOUR
const at = (hours: number) => new Date(base + hours * HOUR)

const alice = { id: 'alice', email: 'alice@example.com', name: 'Alice' }
const bob = { id: 'bob', email: 'bob@example.com', name: 'Bob' }
const ALICE: Filters = { 'user.id': [{ type: 'eq', value: alice.id }] }

interface EventOptions {
  message?: string
  user?: Record<string, unknown> | null
  device?: Record<string, unknown>
  session?: string
  release?: [string, string]
  context?: string
}
function event(errorClass: string, options: EventOptions = {}) {
  return notifierEvent(errorClass, {
    exceptions: [
      {
        errorClass,
        message: options.message ?? `${errorClass} happened`,
        type: 'nodejs',
        stacktrace: [{ file: 'src/app.js', method: 'run', lineNumber: 3, columnNumber: 7, inProject: true }],
      },
    ],
    unhandled: true,
    ...(options.user ? { user: options.user } : {}),
    device: { osName: 'linux', ...options.device },
    app: { releaseStage: options.release?.[0] ?? 'production', version: options.release?.[1] ?? '1.0.0' },
    ...(options.context ? { context: options.context } : {}),
    ...(options.session ? { session: { id: options.session, startedAt: at(0).toISOString(), events: { handled: 0, unhandled: 1 } } } : {}),
  })
}

const api = (path: string) => `/api${path}`
async function json<T>(path: string, token: string): Promise<T> {
  const res = await ctx.request(api(path), { token })
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200)
  return (await res.json()) as T
}

describe('a completed deletion leaves no trace', () => {
  let seeded: SeededProject
  let mobile: { id: string }
  let token: string
  let earlierExport: EventDataRequest
  let deletionId: string
  let deletingBefore: Date | undefined
  const orgPath = () => `/organizations/${seeded.organization.id}`

  beforeAll(async () => {
    seeded = await seedProject(ctx, { user: 'Officer', organization: 'Trace Org', project: 'Web' })
    token = seeded.user.token
    const res = await ctx.request(api(`${orgPath()}/projects`), { method: 'POST', token, json: { name: 'Mobile' } })
    mobile = (await res.json()) as { id: string }
    const p = seeded.project.id
    await ingestAt(ctx, p, [
      // Shared by Alice and Bob; Alice's is the newest, with its own message and version.
      { at: at(1), event: event('SharedError', { user: bob, message: 'bob saw this', session: 's-bob', release: ['production', '1.0.0'] }) },
      { at: at(2), event: event('SharedError', { user: alice, message: 'alice first', session: 's-alice', release: ['staging', '0.9.0'] }) },
      { at: at(3), event: event('SharedError', { user: bob, message: 'bob again', release: ['production', '1.1.0'], context: 'GET /b' }) },
      { at: at(5), event: event('SharedError', { user: alice, message: 'alice latest: card 4242', session: 's-alice', release: ['production', '2.0.0'], context: 'GET /alice' }) },
      // Only Alice's: the error goes with them.
      { at: at(2.5), event: event('AliceOnlyError', { user: alice, session: 's-alice' }) },
      { at: at(6), event: event('AliceOnlyError', { user: alice }) },
      // Anonymous users counted by device id, and one of Alice's.
      { at: at(4), event: event('AnonError', { device: { id: 'device-1' } }) },
      { at: at(4.5), event: event('AnonError', { device: { id: 'device-2' } }) },
      { at: at(7), event: event('AnonError', { user: alice, device: { id: 'device-alice' } }) },
    ])
    await ingestAt(ctx, mobile.id, [
      { at: at(1), event: event('MobileError', { user: alice }) },
      { at: at(2), event: event('MobileError', { user: { ...bob, email: 'bob@mobile.example.com' } }) },
    ])
    // Alice asked for her data first.
    const made = await ctx.request(api(`${orgPath()}/event_data_requests?${filtersToParams(ALICE)}`), { method: 'POST', token })
    await ctx.jobs.drain()
    earlierExport = eventDataRequestSchema.parse(await json(`${orgPath()}/event_data_requests/${((await made.json()) as { id: string }).id}`, token))
    expect(earlierExport).toMatchObject({ status: 'COMPLETED', total: 6 })

    const deletion = await ctx.request(api(`${orgPath()}/event_data_deletions?${filtersToParams(ALICE, new URLSearchParams({ skip_confirmation: 'true' }))}`), {
      method: 'POST',
      token,
    })
    expect(deletion.status).toBe(201)
    deletionId = ((await deletion.json()) as { id: string }).id
    // Once deleting (ACCEPTED, its first pass done), events arrive that were accepted before it
    // began but indexed only now, and one accepted after it began.
    duringWait = async (before) => {
      const [row] = await queryRows<{ status: string }>(ctx.deps.database.db, sql`SELECT status FROM event_data_deletions WHERE id = ${deletionId}`)
      if (row?.status !== 'ACCEPTED') return void (duringWait = arrivals)
      deletingBefore = before
      await ingestAt(ctx, p, [
        { at: new Date(before.getTime() - 1000), event: event('SharedError', { user: alice, message: 'alice in the backlog' }) },
        { at: new Date(before.getTime() - 1000), event: event('BacklogError', { user: alice }) },
        { at: new Date(before.getTime() - 500), event: event('SharedError', { user: bob, message: 'bob in the backlog' }) },
        { at: new Date(before.getTime() + 1), event: event('SharedError', { user: alice, message: 'alice after the deletion began' }) },
      ])
    }
    const arrivals = duringWait
    await ctx.jobs.drain()
  })

  it('completes, having deleted every event of the user received before it began', async () => {
    const done = eventDataDeletionSchema.parse(await json(`${orgPath()}/event_data_deletions/${deletionId}`, token))
    // The 6 counted, then the 2 from the backlog; the one received after it began stays.
    expect(done).toMatchObject({ status: 'COMPLETED', total: 6, deleted_events: 8 })
    expect(deletingBefore).toBeDefined()
    const left = await queryRows<{ n: number }>(ctx.deps.database.db, sql`SELECT count(*)::int AS n FROM event_data_deletion_work`)
    expect(left[0]!.n).toBe(0)
  })

  it('leaves none of them in event lists, event detail or payloads', async () => {
    for (const projectId of [seeded.project.id, mobile.id]) {
      const events = await json<{ user: { id: string | null }; exceptions: { message: string }[] }[]>(`/projects/${projectId}/events?per_page=100`, token)
      const alices = events.filter((e) => e.user.id === alice.id)
      expect(alices.map((e) => e.exceptions[0]!.message)).toEqual(projectId === mobile.id ? [] : ['alice after the deletion began'])
    }
    const payloads = await queryRows<{ n: number }>(
      ctx.deps.database.db,
      sql`SELECT count(*)::int AS n FROM event_payloads p WHERE convert_from(p.payload, 'UTF8') LIKE '%alice@example.com%'`,
    )
    expect(payloads[0]!.n).toBe(1)
  })

  it('removes errors left without events and recomputes the others from what is left', async () => {
    const errors = await json<{ error_class: string; events: number; users: number; message: string; first_seen: string; last_seen: string; release_stages: string[]; app_versions: string[] }[]>(
      `/projects/${seeded.project.id}/errors?per_page=100&filters[error.status][][type]=ne&filters[error.status][][value]=fixed`,
      token,
    )
    expect(errors.map((e) => e.error_class).sort()).toEqual(['AnonError', 'SharedError'])
    const shared = errors.find((e) => e.error_class === 'SharedError')!
    // Bob's two, Bob's backlog one, and Alice's received after the deletion began.
    expect(shared).toMatchObject({
      events: 4,
      users: 2,
      first_seen: at(1).toISOString(),
      last_seen: new Date(deletingBefore!.getTime() + 1).toISOString(),
    })
    const anon = errors.find((e) => e.error_class === 'AnonError')!
    expect(anon).toMatchObject({ events: 2, users: 2, message: 'AnonError happened', last_seen: at(4.5).toISOString() })
    expect(anon.app_versions).toEqual(['1.0.0'])
    const counters = await countersAgainstEvents(ctx.deps.database.db, seeded.project.id)
    expect(counters.stored).toEqual(counters.expected)
    const mobileCounters = await countersAgainstEvents(ctx.deps.database.db, mobile.id)
    expect(mobileCounters.stored).toEqual(mobileCounters.expected)
  })

  it('keeps every rollup (trends, pivots, filters) exactly as a recomputation from the remaining events', async () => {
    for (const projectId of [seeded.project.id, mobile.id]) {
      const { stored, rebuilt } = await rollupsAgainstRebuild(ctx.deps.database.db, projectId)
      expect(stored).toEqual(rebuilt)
    }
    const users = await json<{ event_field_value: string }[]>(`/projects/${mobile.id}/pivots/user.id/values`, token)
    expect(users.map((u) => u.event_field_value)).toEqual([bob.id])
    const trend = await json<{ events_count: number }[]>(
      `/projects/${mobile.id}/trend?resolution=1h&filters[event.since][][type]=eq&filters[event.since][][value]=${at(0).toISOString()}&filters[event.before][][type]=eq&filters[event.before][][value]=${at(3).toISOString()}`,
      token,
    )
    expect(trend.map((b) => b.events_count)).toEqual([0, 0, 1])
  })

  it('removes the crashed sessions only the deleted events named', async () => {
    const sessions = await queryRows<{ session_id: string }>(
      ctx.deps.database.db,
      sql`SELECT session_id FROM crashed_sessions WHERE project_id = ${seeded.project.id} ORDER BY 1`,
    )
    expect(sessions.map((s) => s.session_id)).toEqual(['s-bob'])
  })

  it('removes retrieval files made before it: their downloads answer 410', async () => {
    const after = eventDataRequestSchema.parse(await json(`${orgPath()}/event_data_requests/${earlierExport.id}`, token))
    expect(after).toMatchObject({ status: 'COMPLETED', file_removed: 'deleted' })
    expect(after.url).toBeUndefined()
    const res = await ctx.request(new URL(earlierExport.url!).pathname, { token })
    expect(res.status).toBe(410)
    expect(((await res.json()) as { errors: string[] }).errors).toEqual([
      `the file of event data request ${earlierExport.id} was removed when a later event data deletion in its scope completed; make a new request`,
    ])
    const files = await queryRows<{ n: number }>(ctx.deps.database.db, sql`SELECT count(*)::int AS n FROM event_data_files`)
    expect(files[0]!.n).toBe(0)
  })

  it('a new retrieval finds only what was received after it began', async () => {
    const made = await ctx.request(api(`${orgPath()}/event_data_requests?${filtersToParams(ALICE)}`), { method: 'POST', token })
    await ctx.jobs.drain()
    const request = eventDataRequestSchema.parse(await json(`${orgPath()}/event_data_requests/${((await made.json()) as { id: string }).id}`, token))
    expect(request.total).toBe(1)
  })
})

describe('an error whose first event was the deleted person\'s', () => {
  it('takes its first seen time and first release from the oldest event left', async () => {
    const seeded = await seedProject(ctx, { user: 'Officer 3', organization: 'First Release Org', project: 'Versions' })
    const p = seeded.project.id
    await ingestAt(ctx, p, [
      // Alice's build first saw it; Bob's came later.
      { at: at(1), event: event('FirstSeenError', { user: alice, release: ['beta', '3.0.0-alice-build'] }) },
      { at: at(2), event: event('FirstSeenError', { user: bob, release: ['production', '3.1.0'] }) },
      { at: at(3), event: event('FirstSeenError', { user: alice, release: ['production', '3.2.0'] }) },
    ])
    const [before] = await json<{ id: string; first_release: unknown }[]>(`/projects/${p}/errors`, seeded.user.token)
    expect(before!.first_release).toEqual({ release_stage: 'beta', app_version: '3.0.0-alice-build' })

    const org = `/organizations/${seeded.organization.id}`
    const q = filtersToParams(ALICE, new URLSearchParams({ skip_confirmation: 'true' }))
    expect((await ctx.request(api(`${org}/event_data_deletions?${q}`), { method: 'POST', token: seeded.user.token })).status).toBe(201)
    await ctx.jobs.drain()

    const after = await json<Record<string, unknown>>(`/projects/${p}/errors/${before!.id}`, seeded.user.token)
    expect(after).toMatchObject({
      first_release: { release_stage: 'production', app_version: '3.1.0' },
      first_seen: at(2).toISOString(),
      last_seen: at(2).toISOString(),
      release_stages: ['production'],
      app_versions: ['3.1.0'],
    })
    expect(JSON.stringify(after)).not.toContain('alice')
    const counters = await countersAgainstEvents(ctx.deps.database.db, p)
    expect(counters.stored).toEqual(counters.expected)
  })
})

describe('two job runners on one database', () => {
  it('share the work without doing any of it twice', async () => {
    const seeded = await seedProject(ctx, { user: 'Officer 2', organization: 'Runners Org', project: 'Busy' })
    const items = Array.from({ length: 24 }, (_, i) => ({
      at: at(i / 4),
      event: event(`Error${i % 4}`, { user: i % 3 === 0 ? alice : bob }),
    }))
    await ingestAt(ctx, seeded.project.id, items)
    const org = `/organizations/${seeded.organization.id}`
    const q = filtersToParams(ALICE, new URLSearchParams({ skip_confirmation: 'true' }))
    const retrieval = await ctx.request(api(`${org}/event_data_requests?${filtersToParams(ALICE)}`), { method: 'POST', token: seeded.user.token })
    const deletion = await ctx.request(api(`${org}/event_data_deletions?${q}`), { method: 'POST', token: seeded.user.token })
    const second = anotherRunner()
    await Promise.all([ctx.jobs.drain(), second.drain(), ctx.jobs.drain()])
    await second.stop()
    const r = eventDataRequestSchema.parse(await json(`${org}/event_data_requests/${((await retrieval.json()) as { id: string }).id}`, seeded.user.token))
    const d = eventDataDeletionSchema.parse(await json(`${org}/event_data_deletions/${((await deletion.json()) as { id: string }).id}`, seeded.user.token))
    expect(d).toMatchObject({ status: 'COMPLETED', total: 8, deleted_events: 8 })
    // The retrieval ran before the deletion began deleting (all of Alice's events, a file the
    // deletion then removed) or after it completed (none): never while it was deleting.
    expect(r.status).toBe('COMPLETED')
    if (r.total === 8) expect(r).toMatchObject({ file_removed: 'deleted' })
    else expect(r).toMatchObject({ total: 0, file_removed: null })
    const { stored, rebuilt } = await rollupsAgainstRebuild(ctx.deps.database.db, seeded.project.id)
    expect(stored).toEqual(rebuilt)
    const counters = await countersAgainstEvents(ctx.deps.database.db, seeded.project.id)
    expect(counters.stored).toEqual(counters.expected)
  })
})

describe('a retrieval made while a deletion is deleting in its scope', () => {
  it('waits for the deletion to complete, then exports what is left; waiting costs it no attempt', async () => {
    const seeded = await seedProject(ctx, { user: 'Officer 3', organization: 'Waiting Org', project: 'Waits' })
    const items = Array.from({ length: 6 }, (_, i) => ({ at: at(i / 4), event: event(`Wait${i % 2}`, { user: i % 2 ? alice : bob }) }))
    await ingestAt(ctx, seeded.project.id, items)
    const org = `/organizations/${seeded.organization.id}`
    const q = filtersToParams(ALICE, new URLSearchParams({ skip_confirmation: 'true' }))
    const everyone = filtersToParams({ 'user.id': [{ type: 'eq', value: alice.id }, { type: 'eq', value: bob.id }] })
    const made = await ctx.request(api(`${org}/event_data_deletions?${q}`), { method: 'POST', token: seeded.user.token })
    const deletionId = ((await made.json()) as { id: string }).id
    let retrievalId = ''
    // Between the deletion's passes (it is ACCEPTED and has deleted Alice's events; counting it
    // waits for ingestion too, before that): a retrieval of everyone's events, run by another
    // process's runner.
    duringWait = async function whileDeleting() {
      const deletion = eventDataDeletionSchema.parse(await json(`${org}/event_data_deletions/${deletionId}`, seeded.user.token))
      if (deletion.status !== 'ACCEPTED') {
        duringWait = whileDeleting
        return
      }
      const requested = await ctx.request(api(`${org}/event_data_requests?${everyone}`), { method: 'POST', token: seeded.user.token })
      retrievalId = ((await requested.json()) as { id: string }).id
      const other = anotherRunner()
      await other.drain()
      await other.stop()
    }
    await ctx.jobs.drain()
    expect(retrievalId).not.toBe('')

    const r = eventDataRequestSchema.parse(await json(`${org}/event_data_requests/${retrievalId}`, seeded.user.token))
    // Bob's three events; none of Alice's, and a file the deletion did not have to remove.
    expect(r).toMatchObject({ status: 'COMPLETED', total: 3, file_removed: null })
    const [job] = await queryRows<{ attempts: number; last_error: string | null }>(
      ctx.deps.database.db,
      sql`SELECT j.attempts, j.last_error FROM jobs j JOIN event_data_requests r ON r.job_id = j.id WHERE r.id = ${retrievalId}`,
    )
    expect(job).toEqual({ attempts: 1, last_error: null })
  })
})

describe('a deletion taken up again after a restart', () => {
  it('goes on from the position its last batch recorded; its last pass starts from the beginning', async () => {
    const seeded = await seedProject(ctx, { user: 'Officer 4', organization: 'Resumed Org', project: 'Resumed' })
    const db = ctx.deps.database.db
    const token = seeded.user.token
    const org = `/organizations/${seeded.organization.id}`
    await ingestAt(
      ctx,
      seeded.project.id,
      Array.from({ length: 7 }, (_, i) => ({ at: at(i), event: event(`Error${i % 2}`, { user: i === 6 ? bob : alice }) })),
    )
    const made = await ctx.request(api(`${org}/event_data_deletions?${filtersToParams(ALICE)}`), { method: 'POST', token })
    const id = ((await made.json()) as { id: string }).id
    await ctx.jobs.drain()
    expect((await ctx.request(api(`${org}/event_data_deletions/${id}/confirm`), { method: 'POST', token })).status).toBe(200)

    // What a run cut off after its first batch leaves: that batch's events gone, its position recorded.
    const before = new Date()
    const [row] = await queryRows<{ created_at: Date }>(
      db,
      sql`UPDATE event_data_deletions SET deleting_before = ${before.toISOString()}::timestamptz WHERE id = ${id} RETURNING created_at`,
    )
    const first = await ctx.deps.privacy!.runDeletionStep({
      kind: 'batch',
      deletionId: id,
      projectId: seeded.project.id,
      selection: { filters: ALICE, userId: seeded.user.id, now: new Date(row!.created_at).toISOString() },
      before: before.toISOString(),
      after: null,
      limit: 2,
      pass: 1,
    })
    expect(first.deleted).toBe(2)
    const progressOf = async () => (await queryRows<{ progress: unknown }>(db, sql`SELECT progress FROM event_data_deletions WHERE id = ${id}`))[0]!.progress
    expect(await progressOf()).toEqual({ pass: 1, projectId: seeded.project.id, after: first.last })

    const steps: DeletionStep[] = []
    const privacy = {
      ...ctx.deps.privacy!,
      runDeletionStep: ((step) => {
        steps.push(step)
        return ctx.deps.privacy!.runDeletionStep(step)
      }) as DeletionStepRunner,
    }
    const restarted = anotherRunner(privacy)
    await restarted.drain()
    await restarted.stop()

    const batches = steps.filter((step) => step.kind === 'batch')
    expect(batches[0]).toMatchObject({ pass: 1, after: first.last })
    expect(batches.find((step) => step.pass === 2)).toMatchObject({ after: null })
    expect(eventDataDeletionSchema.parse(await json(`${org}/event_data_deletions/${id}`, token))).toMatchObject({ status: 'COMPLETED', deleted_events: 6 })
    expect(await progressOf()).toEqual({ pass: 3 })
    const { stored, rebuilt } = await rollupsAgainstRebuild(ctx.deps.database.db, seeded.project.id)
    expect(stored).toEqual(rebuilt)
    const counters = await countersAgainstEvents(ctx.deps.database.db, seeded.project.id)
    expect(counters.stored).toEqual(counters.expected)
  })
})
