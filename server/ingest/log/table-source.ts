// The tables as the indexer's sources: ingest_log (the accepted-event log on PostgreSQL: one
// row per accepted request) and ingest_queue (events an earlier version queued already
// normalized, drained after an upgrade; PGlite and PostgreSQL alike). Each batch is one
// project's oldest rows, locked FOR UPDATE SKIP LOCKED under the project's write lock
// (db/project-lock.ts), indexed and deleted in one transaction (ingest_log's rows are processed
// just before it): each is indexed exactly once, and processes sharing the database index
// different projects side by side.
import { sql, type SQL } from 'drizzle-orm'
import type { Logger } from 'pino'
import { queryRows, type Database, type Db } from '../../db/client.ts'
import { isTransientPgError, pgErrorMessage } from '../../db/pg-errors.ts'
import { tryLockProjects } from '../../db/project-lock.ts'
import { indexEvents } from '../index/index-events.ts'
import { writeEvents, type IndexedRowData } from '../index/write-events.ts'
import { fitPivotColumns, pivotColumn } from '../process/normalize.ts'
import type { Processor } from '../process/process.ts'
import type { AcceptedRequest } from './record.ts'

export interface TableSource {
  /**
   * One batch of up to `limit` rows of one project, skipping the projects in `skip`; how many it
   * indexed, the project (null when none was free), and whether other projects were waiting.
   */
  indexBatch(limit: number, skip: ReadonlySet<string>): Promise<{ indexed: number; projectId: string | null; others: boolean }>
}

type Table = 'ingest_log' | 'ingest_queue'

/**
 * The project whose rows this transaction indexes next: of the projects with the oldest waiting
 * rows, the first whose write lock is free, now held. `others`: more projects were waiting.
 */
async function claimProject(tx: Db, table: Table, skip: ReadonlySet<string>): Promise<{ projectId: string; others: boolean } | null> {
  const t = sql.raw(table)
  // Every project with waiting rows, however long another's backlog: a skip scan of the
  // (project_id, seq) index, one probe per project, then each one's oldest waiting row.
  const waiting = (
    await queryRows<{ project_id: string }>(
      tx,
      sql`WITH RECURSIVE queued(project_id) AS (
          (SELECT project_id FROM ${t} ORDER BY project_id LIMIT 1)
          UNION ALL
          SELECT (SELECT q.project_id FROM ${t} q WHERE q.project_id > queued.project_id ORDER BY q.project_id LIMIT 1)
          FROM queued WHERE queued.project_id IS NOT NULL)
        SELECT project_id FROM (
          SELECT project_id, (SELECT q.seq FROM ${t} q WHERE q.project_id = queued.project_id AND q.failed_at IS NULL
                              ORDER BY q.seq LIMIT 1) AS oldest
          FROM queued WHERE project_id IS NOT NULL) waiting
        WHERE oldest IS NOT NULL ORDER BY oldest`,
    )
  ).filter((row) => !skip.has(row.project_id))
  for (const { project_id: projectId } of waiting) {
    if ((await tryLockProjects(tx, [projectId])).size > 0) return { projectId, others: waiting.length > 1 }
  }
  return null
}

const seqArray = (seqs: readonly (number | string)[]) => `{${seqs.map(String).join(',')}}`

/** How one table's rows are taken, indexed and deleted. */
interface TableRows<Row extends { seq: number | string; project_id: string }> {
  table: Table
  take(tx: Db, limit: number, only: { projectId: string } | { seq: string }): Promise<Row[]>
  /** Indexes the rows and deletes them; `failed` rows (could not be processed) are marked instead. */
  index(tx: Db, rows: readonly Row[]): Promise<void>
}

function createSource<Row extends { seq: number | string; project_id: string }>(
  database: Database,
  rows: TableRows<Row>,
  logger: Logger,
): TableSource {
  const { table } = rows

  async function indexAlone(seq: string): Promise<number> {
    try {
      return await database.db.transaction(async (txn) => {
        const tx = txn as unknown as Db
        const taken = await rows.take(tx, 1, { seq })
        const free = await tryLockProjects(tx, taken.map((row) => row.project_id))
        if (taken.length === 0 || free.size === 0) return 0
        await rows.index(tx, taken)
        return 1
      })
    } catch (err) {
      if (isTransientPgError(err)) throw err
      logger.error({ err, seq, table }, `an accepted event cannot be indexed; it stays in ${table} with failed_at set`)
      await database.db.execute(sql`UPDATE ${sql.raw(table)} SET failed_at = now(), failure = ${pgErrorMessage(err)} WHERE seq = ${seq}::bigint`)
      return 0
    }
  }

  return {
    async indexBatch(limit, skip) {
      let taken: Row[] = []
      let claimed: { projectId: string; others: boolean } | null = null
      try {
        const indexed = await database.db.transaction(async (txn) => {
          const tx = txn as unknown as Db
          claimed = await claimProject(tx, table, skip)
          if (!claimed) return 0
          taken = await rows.take(tx, limit, { projectId: claimed.projectId })
          if (taken.length > 0) await rows.index(tx, taken)
          return taken.length
        })
        const c = claimed as { projectId: string; others: boolean } | null
        return { indexed, projectId: c?.projectId ?? null, others: c?.others ?? false }
      } catch (err) {
        if (taken.length === 0 || isTransientPgError(err)) throw err
        logger.warn({ err, rows: taken.length, table }, 'indexing a batch failed; indexing its rows one by one')
      }
      let indexed = 0
      for (const row of taken) indexed += await indexAlone(String(row.seq))
      const c = claimed as { projectId: string; others: boolean } | null
      return { indexed, projectId: c?.projectId ?? null, others: true }
    },
  }
}

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

interface QueueRow {
  seq: number | string
  event_id: string
  project_id: string
  received_at: string | Date
  event: IndexedRowData
}

/** ingest_queue: events an earlier version accepted already normalized; their payloads move inside the database. */
export function createLegacyQueueSource(database: Database, logger: Logger): TableSource {
  return createSource<QueueRow>(
    database,
    {
      table: 'ingest_queue',
      take: (tx, limit, only) =>
        queryRows<QueueRow>(
          tx,
          sql`SELECT seq, event_id, project_id, received_at, event FROM ingest_queue
            WHERE failed_at IS NULL AND ${'seq' in only ? sql`seq = ${only.seq}::bigint` : sql`project_id = ${only.projectId}`}
            ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
        ),
      async index(tx, rows) {
        await writeEvents(
          tx,
          rows.map((row) => ({
            id: row.event_id,
            projectId: row.project_id,
            receivedAt: new Date(row.received_at),
            columns: fitPivotColumns(row.event.columns),
            grouping: row.event.grouping,
            userKey: pivotColumn(row.event.userKey),
            crashedSession: row.event.crashedSession ?? null,
          })),
        )
        await tx.execute(sql`
          WITH taken AS (DELETE FROM ingest_queue WHERE seq = ANY(${seqArray(rows.map((r) => r.seq))}::bigint[]) RETURNING event_id, payload)
          INSERT INTO event_payloads (event_id, payload) SELECT event_id, payload FROM taken`)
      },
    },
    logger,
  )
}
