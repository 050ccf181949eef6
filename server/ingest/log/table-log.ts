// The ingest_log table: the accepted-event log on PostgreSQL, one row per accepted request,
// shared by every Errata process on the database. On both engines it also keeps the requests
// set aside (failed_at and the reason): counted by /healthz, inspected with SQL, retried by
// clearing failed_at (docs/ingestion.md, "Failures").
import { sql } from 'drizzle-orm'
import { queryRows, type Database, type Db } from '../../db/client.ts'
import { tryLockProjects } from '../../db/project-lock.ts'
import { textArrayLiteral } from '../../db/text-array.ts'
import type { AcceptedRequest } from '../payload/accepted-request.ts'
import type { AcceptedLog, LogAppender } from './accepted-log.ts'

/**
 * Appends a batch as ONE statement, atomic on its own (no BEGIN/COMMIT round trips around
 * it): the rows travel as one json parameter the database unpacks itself (far cheaper than
 * thousands of bind parameters). Each body is stored as its text, which the database
 * compresses. The project foreign key refuses requests of a deleted project.
 */
export function tableAppender(database: Pick<Database, 'db' | 'maxWriters'>): LogAppender {
  const { db } = database
  return {
    async append(requests) {
      await db.execute(sql`
        INSERT INTO ingest_log (kind, project_id, received_at, event_ids, user_agent, body)
        SELECT kind, project_id, received_at, event_ids, user_agent, body
        FROM json_to_recordset(${JSON.stringify(requests.map(toRow))}::json)
          AS x(kind text, project_id text, received_at timestamptz, event_ids text[], user_agent text, body text)`)
    },
    // Inserts touch no shared rows, so commits may overlap (and share WAL flushes) as far as the engine takes writers.
    concurrentAppends: database.maxWriters,
    dir: null,
    close: async () => {},
  }
}

const toRow = (r: AcceptedRequest) => ({
  kind: r.kind,
  project_id: r.projectId,
  received_at: r.receivedAt.toISOString(),
  event_ids: r.eventIds,
  user_agent: r.userAgent,
  body: r.body.toString('utf8'),
})

interface LogRow {
  seq: number | string
  kind: 'notify' | 'sessions'
  project_id: string
  received_at: string | Date
  event_ids: string[]
  user_agent: string | null
  body: string
}

const seqArray = (seqs: readonly (number | string)[]) => `{${seqs.map(String).join(',')}}`

/** A request kept aside with `reason` (a journaled one is copied in; nothing when its project is gone). */
export async function keepAside(tx: Db, request: AcceptedRequest, reason: string): Promise<void> {
  await tx.execute(sql`
    INSERT INTO ingest_log (kind, project_id, received_at, event_ids, user_agent, body, failed_at, failure)
    SELECT ${request.kind}, id, ${request.receivedAt.toISOString()}::timestamptz, ${textArrayLiteral(request.eventIds)}::text[],
      ${request.userAgent}, ${request.body.toString('utf8')}, now(), ${reason}
    FROM projects WHERE id = ${request.projectId}`)
}

/** Requests set aside, counted up to `cap`. */
export async function countSetAside(db: Db, cap: number): Promise<number> {
  const [row] = await queryRows<{ n: number | string }>(db, sql`SELECT count(*) AS n FROM (SELECT 1 FROM ingest_log WHERE failed_at IS NOT NULL LIMIT ${cap}) f`)
  return Number(row?.n ?? 0)
}

/**
 * ingest_log as the indexer reads it. A batch is one project's oldest rows, read outside any
 * transaction (the process stages read the database themselves); the index transaction then
 * takes the project's write lock (db/project-lock.ts) and locks the rows FOR UPDATE SKIP LOCKED:
 * rows another process took meanwhile are left to it, and processes sharing the database index
 * different projects side by side. Indexed rows are deleted in that transaction.
 */
export function tableLog(db: Db): AcceptedLog {
  // The row of each request this log read; requests are the currency between log and indexer.
  const seqOf = new WeakMap<AcceptedRequest, string>()

  return {
    async read(limit, passOver) {
      const skip = textArrayLiteral([...passOver])
      const [oldest] = await queryRows<{ project_id: string }>(
        db,
        sql`SELECT project_id FROM ingest_log WHERE failed_at IS NULL AND NOT (project_id = ANY(${skip}::text[])) ORDER BY seq LIMIT 1`,
      )
      if (!oldest) return { requests: [], more: false }
      const rows = await queryRows<LogRow>(
        db,
        sql`SELECT seq, kind, project_id, received_at, event_ids, user_agent, body FROM ingest_log
          WHERE failed_at IS NULL AND project_id = ${oldest.project_id} ORDER BY seq LIMIT ${limit}`,
      )
      const [other] = await queryRows<{ one: number }>(
        db,
        sql`SELECT 1 AS one FROM ingest_log WHERE failed_at IS NULL AND project_id <> ${oldest.project_id} LIMIT 1`,
      )
      const requests = rows.map((row) => {
        const request: AcceptedRequest = {
          kind: row.kind,
          projectId: row.project_id,
          receivedAt: new Date(row.received_at),
          eventIds: row.event_ids,
          userAgent: row.user_agent,
          body: Buffer.from(row.body, 'utf8'),
        }
        seqOf.set(request, String(row.seq))
        return request
      })
      return { requests, more: rows.length === limit || other !== undefined }
    },
    async claim(tx, requests) {
      const projects = [...new Set(requests.map((r) => r.projectId))]
      const lockedProjects = await tryLockProjects(tx, projects)
      const mine = requests.filter((r) => lockedProjects.has(r.projectId))
      if (mine.length === 0) return []
      const locked = new Set(
        (
          await queryRows<{ seq: number | string }>(
            tx,
            sql`SELECT seq FROM ingest_log WHERE seq = ANY(${seqArray(mine.map((r) => seqOf.get(r)!))}::bigint[]) AND failed_at IS NULL
              ORDER BY seq FOR UPDATE SKIP LOCKED`,
          )
        ).map((row) => String(row.seq)),
      )
      return mine.filter((r) => locked.has(seqOf.get(r)!))
    },
    async commit(tx, requests) {
      if (requests.length === 0) return
      await tx.execute(sql`DELETE FROM ingest_log WHERE seq = ANY(${seqArray(requests.map((r) => seqOf.get(r)!))}::bigint[])`)
    },
    async setAside(tx, request, reason) {
      await tx.execute(sql`UPDATE ingest_log SET failed_at = now(), failure = ${reason} WHERE seq = ${seqOf.get(request)!}::bigint`)
    },
    committed: async () => {},
    async backlog(cap) {
      const [row] = await queryRows<{ n: number | string }>(db, sql`SELECT count(*) AS n FROM (SELECT 1 FROM ingest_log WHERE failed_at IS NULL LIMIT ${cap}) p`)
      return { pending: Number(row?.n ?? 0), failed: await countSetAside(db, cap) }
    },
    close: async () => {},
  }
}
