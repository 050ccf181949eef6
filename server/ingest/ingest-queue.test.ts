// The accepted-event log in the database: POST /notify answers once its request is durable (in
// ingest_log on PostgreSQL, in the journal on PGlite); the indexer processes and indexes it.
// ingest_queue holds events an earlier version accepted already normalized; they are indexed
// too. These tests call app.request directly, not ctx.request, which waits for the indexer
// (test-support/test-app.ts).
import { sql } from 'drizzle-orm'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { queryRows } from '../db/client.ts'
import { QUEUE_COUNT_CAP } from '../health/readiness.ts'
import { seedProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'
import type { Db } from '../db/client.ts'
import { acceptedPayload } from '../test-support/ingest.ts'
import { indexedRowData } from './index/write-events.ts'
import { appendToIngestLog, createIngestWriter } from './log/group-commit.ts'
import { prepareEvents, type PreparedEvent } from './process/normalize.ts'
import { notifyPayloadSchema } from './accept/payload-schema.ts'

let ctx: TestContext
let owner: TestUser
let projectId: string
let apiKey: string
const silent = pino({ level: 'silent' })

beforeAll(async () => {
  // A long linger: nothing is indexed until a test asks for it (indexed() skips the wait).
  ctx = await createTestContext({ ingest: { ...loadConfig({}).ingest, indexLingerMs: 60_000 } })
  owner = await ctx.createUser('Queue Owner')
  const { project } = await seedProject(ctx, { user: owner, organization: 'Queue Org', project: 'Queue' })
  projectId = project.id
  apiKey = project.api_key
})
afterAll(() => ctx.close())

function event(errorClass: string) {
  return {
    exceptions: [{ errorClass, message: 'queued', stacktrace: [{ file: 'src/q.js', method: 'run', lineNumber: 1, inProject: true }] }],
  }
}

const postNotify = (body: unknown) =>
  ctx.app.request('http://errata.test/notify', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': apiKey },
    body: JSON.stringify(body),
  })

async function counts(errorClass: string) {
  const [row] = await queryRows<{ queued: number | string; indexed: number | string; payloads: number | string }>(
    ctx.deps.database.db,
    sql`SELECT
      (SELECT count(*) FROM ingest_queue WHERE project_id = ${projectId} AND event->'columns'->>'errorClass' = ${errorClass}) +
      (SELECT count(*) FROM ingest_log WHERE project_id = ${projectId} AND body LIKE ${`%"errorClass":"${errorClass}"%`}) AS queued,
      (SELECT count(*) FROM events WHERE project_id = ${projectId} AND error_class = ${errorClass}) AS indexed,
      (SELECT count(*) FROM event_payloads p JOIN events e ON e.id = p.event_id
        WHERE e.project_id = ${projectId} AND e.error_class = ${errorClass}) AS payloads`,
  )
  return { queued: Number(row!.queued), indexed: Number(row!.indexed), payloads: Number(row!.payloads) }
}

async function health() {
  const res = await ctx.app.request('http://errata.test/readyz')
  return ((await res.json()) as { ingest_queue: { pending: number; failed: number } }).ingest_queue
}

const prepared = (errorClass: string, n = 1) =>
  prepareEvents(projectId, new Date(), notifyPayloadSchema.parse({ events: Array.from({ length: n }, () => event(errorClass)) }), null)

/** Events into ingest_queue as Errata before the accepted-event log wrote them: normalized, one row each. */
async function enqueueEvents(db: Db, events: readonly PreparedEvent[]): Promise<void> {
  const rows = events.map((e) => ({
    id: e.id,
    project_id: e.projectId,
    received_at: e.receivedAt.toISOString(),
    event: indexedRowData(e),
    payload: e.payload,
  }))
  await db.execute(sql`
    INSERT INTO ingest_queue (event_id, project_id, received_at, event, payload)
    SELECT id, project_id, received_at, event, convert_to(payload::text, 'UTF8')
    FROM json_to_recordset(${JSON.stringify(rows)}::json)
      AS x(id text, project_id text, received_at timestamptz, event jsonb, payload json)`)
}

/** `n` accepted requests of one event each into ingest_log, as a process on PostgreSQL appends them. */
const logRequests = (errorClass: string, n = 1) =>
  appendToIngestLog(
    ctx.deps.database.db,
    Array.from({ length: n }, () => acceptedPayload(projectId, { events: [event(errorClass)] })),
  )

describe('accepted-event log in the database, and the ingest queue of earlier versions', () => {
  it('answers 200 once the request is durable, and indexes its events afterwards', async () => {
    const res = await postNotify({ apiKey, events: [event('Queued'), event('Queued')] })
    expect(res.status).toBe(200)
    // Waiting in ingest_log (PostgreSQL) or in the ingest journal (PGlite): not yet visible.
    expect(await counts('Queued')).toMatchObject({ indexed: 0, payloads: 0 })
    // One accepted request (of two events) waiting.
    expect((await health()).pending).toBe(1)

    await ctx.deps.ingestWriter.indexed()
    expect(await counts('Queued')).toEqual({ queued: 0, indexed: 2, payloads: 2 })
    expect(await health()).toEqual({ pending: 0, failed: 0 })
    const list = await ctx.request(`/api/projects/${projectId}/errors`, { token: owner.token })
    expect(((await list.json()) as { error_class: string; events: number }[]).find((e) => e.error_class === 'Queued')).toMatchObject({ events: 2 })
  })

  it('indexes events an earlier process committed but did not index (a crash between the two)', async () => {
    await enqueueEvents(ctx.deps.database.db, prepared('LeftBehind', 3))
    const restarted = createIngestWriter(ctx.deps.database, ctx.deps.pipeline, { batchSize: 10, flushMs: 0, indexBatchSize: 2, indexLingerMs: 0 }, silent)
    await restarted.indexed()
    await restarted.close()
    await ctx.deps.ingestWriter.indexed() // it may hold some of them (several indexers share a queue)
    expect(await counts('LeftBehind')).toEqual({ queued: 0, indexed: 3, payloads: 3 })
  })

  it('sets aside an event that cannot be indexed, with the reason, and indexes the rest of its batch', async () => {
    const good = prepared('BesidePoison', 2)
    await enqueueEvents(ctx.deps.database.db, good)
    // A queue row whose event lacks its columns: indexing it fails whatever the batch.
    await ctx.deps.database.db.execute(sql`
      INSERT INTO ingest_queue (event_id, project_id, received_at, event, payload)
      VALUES ('poison-event', ${projectId}, now(), '{"grouping": {"hash": "x", "reason": "grouping_hash"}}'::jsonb, '\\x00'::bytea)`)
    await ctx.deps.ingestWriter.indexed()

    expect(await counts('BesidePoison')).toEqual({ queued: 0, indexed: 2, payloads: 2 })
    const [poison] = await queryRows<{ failed_at: Date | null; failure: string | null }>(
      ctx.deps.database.db,
      sql`SELECT failed_at, failure FROM ingest_queue WHERE event_id = 'poison-event'`,
    )
    expect(poison!.failed_at).not.toBeNull()
    expect(poison!.failure).toBeTruthy()
    expect(await health()).toEqual({ pending: 0, failed: 1 })
    await ctx.deps.database.db.execute(sql`DELETE FROM ingest_queue WHERE event_id = 'poison-event'`)
  })

  it('indexes a queued event whose pivoted values an older version left too long for an index entry', async () => {
    let random = ''
    while (random.length < 3000) random += Math.random().toString(36).slice(2)
    const [old] = prepared('QueuedTooLong')
    old!.columns = { ...old!.columns, requestUrl: `https://example.com/?t=${random}`, userId: random }
    old!.userKey = random
    await enqueueEvents(ctx.deps.database.db, [old!])
    await ctx.deps.ingestWriter.indexed()
    expect(await counts('QueuedTooLong')).toEqual({ queued: 0, indexed: 1, payloads: 1 })
    expect(await health()).toEqual({ pending: 0, failed: 0 })
  })

  it('lets several processes index one queue: every event exactly once', async () => {
    await enqueueEvents(ctx.deps.database.db, prepared('SharedQueue', 60))
    const indexers = [0, 1, 2].map(() =>
      createIngestWriter(ctx.deps.database, ctx.deps.pipeline, { batchSize: 10, flushMs: 0, indexBatchSize: 7, indexLingerMs: 0 }, silent),
    )
    await Promise.all(indexers.map((w) => w.indexed()))
    await Promise.all(indexers.map((w) => w.close()))
    await ctx.deps.ingestWriter.indexed()
    expect(await counts('SharedQueue')).toEqual({ queued: 0, indexed: 60, payloads: 60 })
    const [error] = await queryRows<{ events_count: number | string }>(
      ctx.deps.database.db,
      sql`SELECT events_count FROM errors WHERE project_id = ${projectId} AND error_class = 'SharedQueue'`,
    )
    expect(Number(error!.events_count)).toBe(60)
  })

  it('counts the backlog in /readyz only up to a cap, so the check stays cheap', async () => {
    await ctx.deps.database.db.execute(sql`
      INSERT INTO ingest_queue (event_id, project_id, received_at, event, payload, failed_at, failure)
      SELECT 'capped-' || g, ${projectId}, now(), '{}'::jsonb, decode('00', 'hex'), now(), 'test'
      FROM generate_series(1, ${QUEUE_COUNT_CAP + 5}) AS g`)
    expect(await health()).toEqual({ pending: 0, failed: QUEUE_COUNT_CAP })
    await ctx.deps.database.db.execute(sql`DELETE FROM ingest_queue WHERE event_id LIKE 'capped-%'`)
    expect(await health()).toEqual({ pending: 0, failed: 0 })
  })

  it('indexes requests an earlier process appended to ingest_log but did not index', async () => {
    await logRequests('LoggedBehind', 3)
    expect((await health()).pending).toBe(3)
    const restarted = createIngestWriter(ctx.deps.database, ctx.deps.pipeline, { batchSize: 10, flushMs: 0, indexBatchSize: 2, indexLingerMs: 0 }, silent)
    await restarted.indexed()
    await restarted.close()
    await ctx.deps.ingestWriter.indexed()
    expect(await counts('LoggedBehind')).toEqual({ queued: 0, indexed: 3, payloads: 3 })
  })

  it('sets aside a logged request that cannot be processed, with the reason, and indexes the rest of its batch', async () => {
    await logRequests('BesideBadBody', 2)
    await ctx.deps.database.db.execute(sql`
      INSERT INTO ingest_log (project_id, received_at, event_ids, body)
      VALUES (${projectId}, now(), '{bad-body-event}', '{"events": "not a list"}')`)
    await ctx.deps.ingestWriter.indexed()
    expect(await counts('BesideBadBody')).toEqual({ queued: 0, indexed: 2, payloads: 2 })
    const [bad] = await queryRows<{ failed_at: Date | null; failure: string | null }>(
      ctx.deps.database.db,
      sql`SELECT failed_at, failure FROM ingest_log WHERE event_ids = '{bad-body-event}'`,
    )
    expect(bad!.failed_at).not.toBeNull()
    expect(bad!.failure).toMatch(/events/)
    expect(await health()).toEqual({ pending: 0, failed: 1 })
    await ctx.deps.database.db.execute(sql`DELETE FROM ingest_log WHERE event_ids = '{bad-body-event}'`)
  })

  it('lets several processes index one ingest_log: every request exactly once', async () => {
    await logRequests('SharedLog', 60)
    const indexers = [0, 1, 2].map(() =>
      createIngestWriter(ctx.deps.database, ctx.deps.pipeline, { batchSize: 10, flushMs: 0, indexBatchSize: 7, indexLingerMs: 0 }, silent),
    )
    await Promise.all(indexers.map((w) => w.indexed()))
    await Promise.all(indexers.map((w) => w.close()))
    await ctx.deps.ingestWriter.indexed()
    expect(await counts('SharedLog')).toEqual({ queued: 0, indexed: 60, payloads: 60 })
  })

  it('drops the queued events of a deleted project with it', async () => {
    const { project } = await seedProject(ctx, { user: owner, organization: 'Doomed Org', project: 'Doomed' })
    const doomed = prepareEvents(project.id, new Date(), notifyPayloadSchema.parse({ events: [event('Doomed')] }), null)
    await enqueueEvents(ctx.deps.database.db, doomed)
    await appendToIngestLog(ctx.deps.database.db, [acceptedPayload(project.id, { events: [event('Doomed')] })])
    const res = await ctx.request(`/api/projects/${project.id}`, { method: 'DELETE', token: owner.token })
    expect(res.status).toBe(204)
    const [left] = await queryRows<{ n: number | string }>(
      ctx.deps.database.db,
      sql`SELECT (SELECT count(*) FROM ingest_queue WHERE project_id = ${project.id}) + (SELECT count(*) FROM ingest_log WHERE project_id = ${project.id}) AS n`,
    )
    expect(Number(left!.n)).toBe(0)
  })
})
