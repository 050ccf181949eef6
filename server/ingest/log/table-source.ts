// ingest_log as the indexer's source (the accepted-event log on PostgreSQL: one row per
// accepted request). Each batch is one project's oldest rows, processed, then locked FOR UPDATE
// SKIP LOCKED under the project's write lock (db/project-lock.ts), indexed and deleted in one
// transaction: each is indexed exactly once, and processes sharing the database index
// different projects side by side.
import { sql, type SQL } from 'drizzle-orm'
import type { Logger } from 'pino'
import { queryRows, type Database, type Db } from '../../db/client.ts'
import { isTransientPgError, pgErrorMessage } from '../../db/pg-errors.ts'
import { tryLockProjects } from '../../db/project-lock.ts'
import { indexEvents } from '../index/index-events.ts'
import type { Processor } from '../process/process.ts'
import type { AcceptedRequest } from './record.ts'

export interface TableSource {
  /**
   * One batch of up to `limit` rows of one project, skipping the projects in `skip`; how many it
   * indexed, the project (null when none was free), and whether other projects were waiting.
   */
  indexBatch(limit: number, skip: ReadonlySet<string>): Promise<{ indexed: number; projectId: string | null; others: boolean }>
}

const seqArray = (seqs: readonly (number | string)[]) => `{${seqs.map(String).join(',')}}`

interface LogRow {
  seq: number | string
  project_id: string
  received_at: string | Date
  event_ids: string[]
  user_agent: string | null
  body: string
}

const toRequest = (row: LogRow): AcceptedRequest => ({
  projectId: row.project_id,
  receivedAt: new Date(row.received_at),
  eventIds: row.event_ids,
  userAgent: row.user_agent,
  body: Buffer.from(row.body, 'utf8'),
})

/**
 * ingest_log: accepted requests. A batch is read and processed outside any transaction (the
 * process stages read the database themselves: inside a transaction they would wait for it on
 * PGlite's single connection, and hold a pooled connection each on PostgreSQL), then indexed in
 * a transaction that holds the project's write lock and locks the rows it indexes FOR UPDATE
 * SKIP LOCKED: rows another process took meanwhile are left to it (their processing wasted).
 */
export function createLogSource(database: Database, processor: Processor, logger: Logger): TableSource {
  const { db } = database
  const skipList = (skip: ReadonlySet<string>) => `{${[...skip].map((id) => JSON.stringify(id)).join(',')}}`

  /** Indexes the processed rows this transaction can lock; how many it indexed, or null when the project's lock is busy. */
  async function commit(rows: readonly LogRow[], projectId: string): Promise<number | null> {
    const processed = await processor.process(rows.map(toRequest))
    const seqOfEvent = new Map<string, string>()
    rows.forEach((row) => row.event_ids.forEach((id) => seqOfEvent.set(id, String(row.seq))))
    const failedSeqs = new Map(processed.failed.map((f) => [String(rows.find((r) => r.event_ids === f.request.eventIds)!.seq), f.reason]))
    return db.transaction(async (txn) => {
      const tx = txn as unknown as Db
      if ((await tryLockProjects(tx, [projectId])).size === 0) return null
      const locked = new Set(
        (
          await queryRows<{ seq: number | string }>(
            tx,
            sql`SELECT seq FROM ingest_log WHERE seq = ANY(${seqArray(rows.map((r) => r.seq))}::bigint[]) AND failed_at IS NULL
              ORDER BY seq FOR UPDATE SKIP LOCKED`,
          )
        ).map((row) => String(row.seq)),
      )
      await indexEvents(tx, processed.events.filter((event) => locked.has(seqOfEvent.get(event.id)!)))
      for (const [seq, reason] of failedSeqs) {
        if (!locked.has(seq)) continue
        logger.error({ reason, seq }, 'an accepted request cannot be processed; it stays in ingest_log with failed_at set')
        await tx.execute(sql`UPDATE ingest_log SET failed_at = now(), failure = ${reason} WHERE seq = ${seq}::bigint`)
      }
      const done = [...locked].filter((seq) => !failedSeqs.has(seq))
      if (done.length > 0) await tx.execute(sql`DELETE FROM ingest_log WHERE seq = ANY(${seqArray(done)}::bigint[])`)
      return locked.size
    })
  }

  const read = (only: SQL) =>
    queryRows<LogRow>(db, sql`SELECT seq, project_id, received_at, event_ids, user_agent, body FROM ingest_log WHERE failed_at IS NULL AND ${only}`)

  return {
    async indexBatch(limit, skip) {
      const [oldest] = await queryRows<{ project_id: string }>(
        db,
        sql`SELECT project_id FROM ingest_log WHERE failed_at IS NULL AND NOT (project_id = ANY(${skipList(skip)}::text[]))
          ORDER BY seq LIMIT 1`,
      )
      if (!oldest) return { indexed: 0, projectId: null, others: false }
      const projectId = oldest.project_id
      const rows = await read(sql`project_id = ${projectId} ORDER BY seq LIMIT ${limit}`)
      const [other] = await queryRows<{ one: number }>(
        db,
        sql`SELECT 1 AS one FROM ingest_log WHERE failed_at IS NULL AND project_id <> ${projectId} LIMIT 1`,
      )
      const others = other !== undefined
      try {
        const indexed = await commit(rows, projectId)
        // The project's lock is busy (another process or a request): leave it to them for now.
        if (indexed === null) return { indexed: 0, projectId, others }
        return { indexed, projectId, others }
      } catch (err) {
        if (isTransientPgError(err)) throw err
        logger.warn({ err, rows: rows.length }, 'indexing a batch failed; indexing its requests one by one')
      }
      let indexed = 0
      for (const row of rows) {
        try {
          indexed += (await commit([row], projectId)) ?? 0
        } catch (err) {
          if (isTransientPgError(err)) throw err
          logger.error({ err, seq: row.seq }, 'an accepted request cannot be indexed; it stays in ingest_log with failed_at set')
          await db.execute(sql`UPDATE ingest_log SET failed_at = now(), failure = ${pgErrorMessage(err)} WHERE seq = ${row.seq}::bigint`)
        }
      }
      return { indexed, projectId, others: true }
    },
  }
}
