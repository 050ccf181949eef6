// Indexing from the ingest journal (embedded database, on its thread): records are read
// from the journal files and written to the tables in one transaction that also moves the
// journal position, so each is indexed exactly once whatever crashes when.
import { sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { queryRows, type Database, type Db } from '../../db/client.ts'
import { isTransientPgError, pgErrorMessage } from '../../db/pg-errors.ts'
import { textArrayLiteral } from '../../db/text-array.ts'
import { createJournalReader, takeTurns, type JournalPosition, type JournalRecord } from './journal.ts'
import { indexedRowData, writeEvents } from '../index/write-events.ts'

export interface JournalIndexing {
  /** Indexes up to `limit` journaled events in one transaction; how many lines it passed (0: none waiting). */
  indexBatch(limit: number): Promise<number>
  /** Journaled events not yet indexed, counted up to `cap`. */
  pending(cap: number): Promise<number>
  close(): Promise<void>
}

const SEPARATOR = '\u0001'

const samePosition = (a: JournalPosition, b: JournalPosition) => a.segment === b.segment && a.offset === b.offset

export function createJournalIndexing(database: Database, dir: string, logger: Logger): JournalIndexing {
  const reader = createJournalReader(dir)
  // Counting reads the same files; its own reader keeps it off the indexer's open file.
  const counter = createJournalReader(dir)
  // Loaded on first use: the thread starts before migrations have created the table.
  let position: JournalPosition | null = null
  // Several indexers may share this database thread; the journal is read by one at a time.
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

  /** The events (of projects that still exist: a deleted project's events are dropped) and the new position, atomically. */
  async function commit(records: readonly JournalRecord[], to: JournalPosition): Promise<void> {
    await database.db.transaction(async (txn) => {
      const tx = txn as unknown as Db
      const projectIds = [...new Set(records.map((r) => r.projectId))]
      const live = new Set(
        (
          await queryRows<{ id: string }>(tx, sql`SELECT id FROM projects WHERE id = ANY(${textArrayLiteral(projectIds)}::text[])`)
        ).map((row) => row.id),
      )
      const kept = records.filter((r) => live.has(r.projectId))
      if (kept.length > 0) {
        await writeEvents(tx, kept)
        // The payloads travel as they were journaled, joined by U+0001, which JSON text never
        // holds raw (JSON.stringify escapes every control character): split, not parsed, in WASM.
        await tx.execute(sql`
          INSERT INTO event_payloads (event_id, payload)
          SELECT id, convert_to(payload, 'UTF8')
          FROM unnest(string_to_array(${kept.map((r) => r.id).join(SEPARATOR)}, ${SEPARATOR}),
                      string_to_array(${kept.map((r) => r.payloadJson).join(SEPARATOR)}, ${SEPARATOR})) AS x(id, payload)`)
      }
      await savePosition(tx, to)
    })
    position = to
  }

  /** An event that cannot be indexed even alone: kept in ingest_queue with the reason, and passed. */
  async function setAside(record: JournalRecord, err: unknown): Promise<void> {
    const failure = pgErrorMessage(err)
    logger.error({ err, eventId: record.id }, 'an accepted event cannot be indexed; it is kept in ingest_queue with failed_at set')
    const event = JSON.stringify(indexedRowData(record))
    await database.db.transaction(async (txn) => {
      const tx = txn as unknown as Db
      await tx.execute(sql`
        INSERT INTO ingest_queue (event_id, project_id, received_at, event, payload, failed_at, failure)
        SELECT ${record.id}, id, ${record.receivedAt.toISOString()}::timestamptz, ${event}::jsonb,
          convert_to(${record.payloadJson}, 'UTF8'), now(), ${failure}
        FROM projects WHERE id = ${record.projectId}`)
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
        logger.warn({ err, events: records.length }, 'indexing a batch failed; indexing its events one by one')
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
