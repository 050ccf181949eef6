// The accepted-event log: POST /notify answers once its request is durable (in ingest_log on
// PostgreSQL, in the journal on PGlite); the indexer processes and indexes it. The ingest_log
// tests run its indexer on both engines (tableIndexer). These tests call app.request directly,
// not ctx.request, which waits for the indexer (test-support/test-app.ts).
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { queryRows } from '../db/client.ts'
import { QUEUE_COUNT_CAP } from '../health/readiness.ts'
import { seedProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'
import { acceptedPayload, appendToIngestLog, tableIndexer } from '../test-support/ingest.ts'

let ctx: TestContext
let owner: TestUser
let projectId: string
let apiKey: string

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

/** `n` accepted requests of one event each into ingest_log, as a process on PostgreSQL appends them. */
const logRequests = (errorClass: string, n = 1) =>
  appendToIngestLog(
    ctx.deps.database.db,
    Array.from({ length: n }, () => acceptedPayload(projectId, { events: [event(errorClass)] })),
  )

describe('accepted-event log in the database', () => {
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

  it('answers /sessions 202 once the request is durable in the log, and counts its sessions when it is indexed', async () => {
    const startedAt = '2026-03-01T10:15:30.000Z'
    const res = await ctx.app.request('http://errata.test/sessions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': apiKey },
      body: JSON.stringify({ app: { releaseStage: 'logged', version: '9.9.9' }, sessionCounts: [{ startedAt, sessionsStarted: 7 }] }),
    })
    expect(res.status).toBe(202)
    const sessions = async () => {
      const rows = await queryRows<{ sessions: number | string }>(
        ctx.deps.database.db,
        sql`SELECT sessions FROM session_counts WHERE project_id = ${projectId} AND release_stage = 'logged'`,
      )
      return rows.map((row) => Number(row.sessions))
    }
    // In the log, not yet counted (the indexer lingers until a test asks).
    expect(await sessions()).toEqual([])
    expect((await health()).pending).toBe(1)
    await ctx.deps.ingestWriter.indexed()
    expect(await sessions()).toEqual([7])
    const [release] = await queryRows<{ release_source: string }>(
      ctx.deps.database.db,
      sql`SELECT release_source FROM releases WHERE project_id = ${projectId} AND release_stage = 'logged' AND app_version = '9.9.9'`,
    )
    expect(release).toEqual({ release_source: 'session' })
    expect(await health()).toEqual({ pending: 0, failed: 0 })
  })

  it('counts the backlog in /readyz only up to a cap, so the check stays cheap', async () => {
    await ctx.deps.database.db.execute(sql`
      INSERT INTO ingest_log (project_id, received_at, event_ids, body, failed_at, failure)
      SELECT ${projectId}, now(), ARRAY['capped-' || g], '{}', now(), 'test'
      FROM generate_series(1, ${QUEUE_COUNT_CAP + 5}) AS g`)
    expect(await health()).toEqual({ pending: 0, failed: QUEUE_COUNT_CAP })
    await ctx.deps.database.db.execute(sql`DELETE FROM ingest_log WHERE event_ids[1] LIKE 'capped-%'`)
    expect(await health()).toEqual({ pending: 0, failed: 0 })
  })

  it('indexes requests an earlier process appended to ingest_log but did not index', async () => {
    await logRequests('LoggedBehind', 3)
    expect(await counts('LoggedBehind')).toEqual({ queued: 3, indexed: 0, payloads: 0 })
    const restarted = tableIndexer(ctx, { batchSize: 2 })
    await restarted.idle()
    await restarted.close()
    expect(await counts('LoggedBehind')).toEqual({ queued: 0, indexed: 3, payloads: 3 })
  })

  it('sets aside a logged request that cannot be processed, with the reason, and indexes the rest of its batch', async () => {
    await logRequests('BesideBadBody', 2)
    await ctx.deps.database.db.execute(sql`
      INSERT INTO ingest_log (project_id, received_at, event_ids, body)
      VALUES (${projectId}, now(), '{bad-body-event}', '{"events": "not a list"}')`)
    const indexer = tableIndexer(ctx)
    await indexer.idle()
    await indexer.close()
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
    const indexers = [0, 1, 2].map(() => tableIndexer(ctx))
    await Promise.all(indexers.map((w) => w.idle()))
    await Promise.all(indexers.map((w) => w.close()))
    expect(await counts('SharedLog')).toEqual({ queued: 0, indexed: 60, payloads: 60 })
  })

  it('drops the logged requests of a deleted project with it', async () => {
    const { project } = await seedProject(ctx, { user: owner, organization: 'Doomed Org', project: 'Doomed' })
    await appendToIngestLog(ctx.deps.database.db, [acceptedPayload(project.id, { events: [event('Doomed')] })])
    const res = await ctx.request(`/api/projects/${project.id}`, { method: 'DELETE', token: owner.token })
    expect(res.status).toBe(204)
    const [left] = await queryRows<{ n: number | string }>(
      ctx.deps.database.db,
      sql`SELECT count(*) AS n FROM ingest_log WHERE project_id = ${project.id}`,
    )
    expect(Number(left!.n)).toBe(0)
  })
})
