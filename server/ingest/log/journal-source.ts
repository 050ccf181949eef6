// The journal as the indexer's source (on the pipeline's thread): records are read from the
// journal files, processed, and indexed in one transaction that also moves the journal's
// position (its row in ingest_journals), so each is indexed exactly once whatever crashes when.
import { sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { queryRows, type Database, type Db } from '../../db/client.ts'
import { isTransientPgError, pgErrorMessage } from '../../db/pg-errors.ts'
import { lockProjects } from '../../db/project-lock.ts'
import { textArrayLiteral } from '../../db/text-array.ts'
import { indexEvents } from '../index/index-events.ts'
import type { Processor } from '../process/process.ts'
import { createJournalReader, takeTurns, type JournalPosition, type JournalRecord } from './journal.ts'
import { setAsideRequest } from './set-aside.ts'

/** A journal: its directory, its row in ingest_journals, and where it is, for the operator. */
export interface JournalPlace {
  dir: string
  id: string
  location: string
}

/** The embedded database's journal: the only one, beside the database's files. */
export const EMBEDDED_JOURNAL_ID = 'embedded'

/** How often an idle journal on PostgreSQL says it is caught up (what other processes' deletions wait for). */
const CAUGHT_UP_EVERY_MS = 1000

/**
 * A journal's row as its process opens the pipeline (after migrations, before it appends
 * anything): made if new; if it
 * stopped empty (caught up "forever"), caught up as of now, since what it appends from now on
 * waits to be indexed; if it stopped with records left (a crash), as it was.
 */
export async function openJournalRow(db: Db, place: JournalPlace): Promise<void> {
  await db.execute(
    sql`INSERT INTO ingest_journals (journal_id, segment, byte_offset, location) VALUES (${place.id}, 0, 0, ${place.location})
      ON CONFLICT (journal_id) DO UPDATE SET caught_up_at = LEAST(ingest_journals.caught_up_at, now()), location = EXCLUDED.location`,
  )
}

export interface JournalSource {
  /** Processes and indexes up to `limit` journaled requests in one transaction; how many lines it passed (0: none waiting). */
  indexBatch(limit: number): Promise<number>
  /** Journaled requests not yet indexed, counted up to `cap`. */
  pending(cap: number): Promise<number>
  close(): Promise<void>
}

const samePosition = (a: JournalPosition, b: JournalPosition) => a.segment === b.segment && a.offset === b.offset

export function createJournalSource(database: Database, place: JournalPlace, processor: Processor, logger: Logger): JournalSource {
  const { dir, id } = place
  const reader = createJournalReader(dir)
  // Counting reads the same files; its own reader keeps it off the indexer's open file.
  const counter = createJournalReader(dir)
  // Loaded on first use; the row exists by then (openJournalRow, when the pipeline opened).
  let position: JournalPosition | null = null
  // Several indexers may share this thread; the journal is read by one at a time.
  const turns = takeTurns()

  // On PostgreSQL other processes may be waiting for this journal to catch up (a privacy
  // deletion waits for every event accepted before it); the embedded database has no others.
  const sharesDatabase = database.engine === 'postgres'
  let caughtUpSaidAt = -Infinity

  async function currentPosition(): Promise<JournalPosition> {
    if (!position) {
      const [row] = await queryRows<{ segment: number | string; byte_offset: number | string }>(
        database.db,
        sql`SELECT segment, byte_offset FROM ingest_journals WHERE journal_id = ${id}`,
      )
      position = { segment: Number(row?.segment ?? 0), offset: Number(row?.byte_offset ?? 0) }
    }
    return position
  }

  /** Moves the position; `caughtUpAt`: the read reached the journal's end, so everything appended before it is now indexed. */
  async function savePosition(tx: Db, to: JournalPosition, caughtUpAt: Date | null): Promise<void> {
    await tx.execute(
      caughtUpAt
        ? sql`UPDATE ingest_journals SET segment = ${to.segment}, byte_offset = ${to.offset}, caught_up_at = ${caughtUpAt.toISOString()}::timestamptz
            WHERE journal_id = ${id}`
        : sql`UPDATE ingest_journals SET segment = ${to.segment}, byte_offset = ${to.offset} WHERE journal_id = ${id}`,
    )
    if (caughtUpAt) caughtUpSaidAt = performance.now()
  }

  /**
   * An idle journal on PostgreSQL says so about once a second: nothing appended before `at`
   * waits in it. `forever`: it stopped empty, so until it runs again (openJournalRow brings the
   * moment back to its start) no deletion need wait for it.
   */
  async function sayCaughtUp(at: Date | 'forever'): Promise<void> {
    if (!sharesDatabase || (at !== 'forever' && performance.now() - caughtUpSaidAt < CAUGHT_UP_EVERY_MS)) return
    const moment = at === 'forever' ? 'infinity' : at.toISOString()
    await database.db.execute(sql`UPDATE ingest_journals SET caught_up_at = ${moment}::timestamptz WHERE journal_id = ${id}`)
    caughtUpSaidAt = performance.now()
  }

  /**
   * Processes the records, then indexes their events (of projects that still exist: a deleted
   * project's events are dropped) and moves the position, atomically. A request that cannot be
   * processed is set aside in the same transaction.
   */
  async function commit(records: readonly JournalRecord[], to: JournalPosition, caughtUpAt: Date | null): Promise<void> {
    const processed = await processor.process(records.map((r) => r.request))
    const { events } = processed
    await database.db.transaction(async (txn) => {
      const tx = txn as unknown as Db
      const projectIds = [...new Set(events.map((e) => e.projectId))]
      // Other processes index, triage and delete these projects too: take their write locks
      // (waiting, in key order), then see which still exist. A journal is read in order, so a
      // busy project cannot be left for later as the table sources do.
      if (sharesDatabase) await lockProjects(tx, projectIds)
      const live = new Set(
        (
          await queryRows<{ id: string }>(tx, sql`SELECT id FROM projects WHERE id = ANY(${textArrayLiteral(projectIds)}::text[])`)
        ).map((row) => row.id),
      )
      await indexEvents(tx, events.filter((e) => live.has(e.projectId)))
      for (const failure of processed.failed) {
        logger.error({ reason: failure.reason }, 'an accepted request cannot be processed; it is kept in ingest_log with failed_at set')
        await setAsideRequest(tx, failure.request, failure.reason)
      }
      await savePosition(tx, to, caughtUpAt)
    })
    position = to
  }

  /** A record that cannot be indexed even alone: kept aside with the reason, and passed. */
  async function setAside(record: JournalRecord, err: unknown): Promise<void> {
    const failure = pgErrorMessage(err)
    logger.error({ err }, 'an accepted request cannot be indexed; it is kept aside with failed_at set')
    await database.db.transaction(async (txn) => {
      const tx = txn as unknown as Db
      await setAsideRequest(tx, record.request, failure)
      await savePosition(tx, record.end, null)
    })
    position = record.end
  }

  async function indexBatch(limit: number): Promise<number> {
    const from = await currentPosition()
    // Whatever was appended before this moment is in what the read returns, unless it stopped at `limit`.
    const readAt = new Date()
    const { records, damaged, next } = await reader.read(from, limit)
    const caughtUpAt = sharesDatabase && records.length + damaged.length < limit ? readAt : null
    for (const err of damaged) logger.error({ err }, 'skipping an unreadable line of the ingest journal')
    if (records.length > 0) {
      try {
        await commit(records, next, caughtUpAt)
      } catch (err) {
        if (isTransientPgError(err)) throw err
        logger.warn({ err, records: records.length }, 'indexing a batch failed; indexing its requests one by one')
        for (const record of records) {
          try {
            await commit([record], record.end, null)
          } catch (single) {
            if (isTransientPgError(single)) throw single
            await setAside(record, single)
          }
        }
      }
    }
    // Past damaged lines after the last record, or on to a newer segment.
    if (!samePosition(position!, next)) {
      await savePosition(database.db, next, caughtUpAt)
      position = next
    } else if (caughtUpAt && records.length === 0) {
      await sayCaughtUp(caughtUpAt)
    }
    if (next.segment > from.segment) await reader.release(next)
    return records.length + damaged.length
  }

  return {
    indexBatch: (limit) => turns.run(() => indexBatch(limit)),
    pending: (cap) => turns.run(async () => counter.count(await currentPosition(), cap)),
    async close() {
      await turns.settled()
      // Stopping with nothing left (the writer refuses new requests by now): no deletion need wait for this journal.
      if (sharesDatabase && position && (await counter.count(position, 1)) === 0) {
        await sayCaughtUp('forever').catch((err: unknown) => logger.warn({ err }, 'could not record that the ingest journal is caught up'))
      }
      await reader.close()
      await counter.close()
    },
  }
}
