// The journal as the indexer's source (on the pipeline's thread): records are read from the
// journal files, processed, and indexed in one transaction that also moves the journal
// position, so each is indexed exactly once whatever crashes when.
import { sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { queryRows, type Database, type Db } from '../../db/client.ts'
import { isTransientPgError, pgErrorMessage } from '../../db/pg-errors.ts'
import { textArrayLiteral } from '../../db/text-array.ts'
import { indexEvents } from '../index/index-events.ts'
import type { Processor } from '../process/process.ts'
import { createJournalReader, takeTurns, type JournalPosition, type JournalRecord } from './journal.ts'
import type { IndexableEvent } from './record.ts'
import { setAsideEvent, setAsideRequest } from './set-aside.ts'

export interface JournalSource {
  /** Processes and indexes up to `limit` journaled requests in one transaction; how many lines it passed (0: none waiting). */
  indexBatch(limit: number): Promise<number>
  /** Journaled requests not yet indexed, counted up to `cap`. */
  pending(cap: number): Promise<number>
  close(): Promise<void>
}

const samePosition = (a: JournalPosition, b: JournalPosition) => a.segment === b.segment && a.offset === b.offset

export function createJournalSource(database: Database, dir: string, processor: Processor, logger: Logger): JournalSource {
  const reader = createJournalReader(dir)
  // Counting reads the same files; its own reader keeps it off the indexer's open file.
  const counter = createJournalReader(dir)
  // Loaded on first use: the thread starts before migrations have created the table.
  let position: JournalPosition | null = null
  // Several indexers may share this thread; the journal is read by one at a time.
  const turns = takeTurns()

  async function currentPosition(): Promise<JournalPosition> {
    if (!position) {
      const [row] = await queryRows<{ segment: number | string; byte_offset: number | string }>(
        database.db,
        sql`SELECT segment, byte_offset FROM ingest_journal WHERE id = 1`,
      )
      position = { segment: Number(row?.segment ?? 0), offset: Number(row?.byte_offset ?? 0) }
    }
    return position
  }

  const savePosition = (tx: Db, to: JournalPosition) =>
    tx.execute(sql`UPDATE ingest_journal SET segment = ${to.segment}, byte_offset = ${to.offset} WHERE id = 1`)

  /**
   * Processes the records, then indexes their events (of projects that still exist: a deleted
   * project's events are dropped) and moves the position, atomically. A request that cannot be
   * processed is set aside in the same transaction.
   */
  async function commit(records: readonly JournalRecord[], to: JournalPosition): Promise<void> {
    const requests = records.flatMap((r) => (r.request ? [r.request] : []))
    const processed = await processor.process(requests)
    const events: IndexableEvent[] = [...records.flatMap((r) => (r.event ? [r.event] : [])), ...processed.events]
    await database.db.transaction(async (txn) => {
      const tx = txn as unknown as Db
      const projectIds = [...new Set(events.map((e) => e.projectId))]
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
      await savePosition(tx, to)
    })
    position = to
  }

  /** A record that cannot be indexed even alone: kept aside with the reason, and passed. */
  async function setAside(record: JournalRecord, err: unknown): Promise<void> {
    const failure = pgErrorMessage(err)
    logger.error({ err }, 'an accepted request cannot be indexed; it is kept aside with failed_at set')
    await database.db.transaction(async (txn) => {
      const tx = txn as unknown as Db
      if (record.request) await setAsideRequest(tx, record.request, failure)
      else await setAsideEvent(tx, record.event, failure)
      await savePosition(tx, record.end)
    })
    position = record.end
  }

  async function indexBatch(limit: number): Promise<number> {
    const from = await currentPosition()
    const { records, damaged, next } = await reader.read(from, limit)
    for (const err of damaged) logger.error({ err }, 'skipping an unreadable line of the ingest journal')
    if (records.length > 0) {
      try {
        await commit(records, next)
      } catch (err) {
        if (isTransientPgError(err)) throw err
        logger.warn({ err, records: records.length }, 'indexing a batch failed; indexing its requests one by one')
        for (const record of records) {
          try {
            await commit([record], record.end)
          } catch (single) {
            if (isTransientPgError(single)) throw single
            await setAside(record, single)
          }
        }
      }
    }
    // Past damaged lines after the last record, or on to a newer segment.
    if (!samePosition(position!, next)) {
      await savePosition(database.db, next)
      position = next
    }
    if (next.segment > from.segment) await reader.release(next)
    return records.length + damaged.length
  }

  return {
    indexBatch: (limit) => turns.run(() => indexBatch(limit)),
    pending: (cap) => turns.run(async () => counter.count(await currentPosition(), cap)),
    async close() {
      await turns.settled()
      await reader.close()
      await counter.close()
    },
  }
}
