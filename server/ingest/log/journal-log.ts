// The journal as the indexer reads it (the embedded database's accepted-event log; its files:
// journal.ts). How far the indexer got is the journal's row in ingest_journals, moved in the
// transaction that indexes what it passed, so each request is indexed exactly once whatever
// crashes when. One process reads it: nothing is claimed from anyone.
import { sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { queryRows, type Db } from '../../db/client.ts'
import { textArrayLiteral } from '../../db/text-array.ts'
import type { AcceptedRequest } from '../payload/accepted-request.ts'
import type { AcceptedLog, LogAppender } from './accepted-log.ts'
import { createJournalReader, journalLines, openJournalAppender, type JournalPosition } from './journal.ts'
import { countSetAside, keepAside } from './table-log.ts'

/** The journal's row in ingest_journals. */
const JOURNAL_ID = 'embedded'

/** The appending half: lines appended and fdatasync'd one batch at a time. */
export async function journalAppender(dir: string): Promise<LogAppender> {
  const appender = await openJournalAppender(dir)
  return {
    append: (requests) => appender.append(journalLines(requests)),
    concurrentAppends: 1,
    dir,
    close: () => appender.close(),
  }
}

const after = (a: JournalPosition, b: JournalPosition) => a.segment > b.segment || (a.segment === b.segment && a.offset > b.offset)

export function journalLog(db: Db, dir: string, logger: Logger): AcceptedLog {
  const reader = createJournalReader(dir)
  // Counting reads the same files; its own reader keeps it off the indexer's open file.
  const counter = createJournalReader(dir)
  const endOf = new WeakMap<AcceptedRequest, JournalPosition>()
  // Where the next read starts (loaded on first use), where the last read ended (past damaged
  // lines too), and where the transaction in progress moves the position.
  let position: JournalPosition | null = null
  let lastRecordEnd: JournalPosition | null = null
  let readEnd: JournalPosition | null = null
  let staged: JournalPosition | null = null
  // The requests the transaction in progress claimed from.
  let claimedFrom: readonly AcceptedRequest[] = []

  async function currentPosition(): Promise<JournalPosition> {
    if (!position) {
      await db.execute(sql`INSERT INTO ingest_journals (journal_id, segment, byte_offset) VALUES (${JOURNAL_ID}, 0, 0) ON CONFLICT (journal_id) DO NOTHING`)
      const [row] = await queryRows<{ segment: number | string; byte_offset: number | string }>(
        db,
        sql`SELECT segment, byte_offset FROM ingest_journals WHERE journal_id = ${JOURNAL_ID}`,
      )
      position = { segment: Number(row?.segment ?? 0), offset: Number(row?.byte_offset ?? 0) }
    }
    return position
  }

  async function save(tx: Db, to: JournalPosition): Promise<void> {
    await tx.execute(sql`UPDATE ingest_journals SET segment = ${to.segment}, byte_offset = ${to.offset} WHERE journal_id = ${JOURNAL_ID}`)
  }

  /** Moves the position outside a transaction (past lines with no request), deleting the segments wholly before it. */
  async function moveTo(to: JournalPosition): Promise<void> {
    await save(db, to)
    await settle(to)
  }

  /** The position is `to` now: the segments wholly before it are indexed. */
  async function settle(to: JournalPosition): Promise<void> {
    const before = position!
    position = to
    if (to.segment > before.segment) await reader.release(to)
  }

  /** Moves the position (in `tx`) to just after `request`, unless it is already further. */
  async function movePast(tx: Db, request: AcceptedRequest): Promise<void> {
    const end = endOf.get(request)!
    const from = staged ?? position!
    if (!after(end, from)) return
    staged = end
    await save(tx, end)
  }

  return {
    async read(limit) {
      for (;;) {
        const from = await currentPosition()
        staged = null
        const { records, damaged, next } = await reader.read(from, limit)
        for (const err of damaged) logger.error({ err }, 'skipping an unreadable line of the ingest journal')
        for (const record of records) endOf.set(record.request, record.end)
        lastRecordEnd = records.at(-1)?.end ?? from
        readEnd = next
        if (records.length > 0 || !after(next, from)) return { requests: records.map((r) => r.request), more: records.length + damaged.length >= limit }
        // Only damaged lines, or the end of a finished segment: passed at once.
        await moveTo(next)
      }
    },
    // Events of a project deleted meanwhile are not indexed (ingest_log's foreign key does that on PostgreSQL).
    async claim(tx, requests) {
      claimedFrom = requests
      const projects = [...new Set(requests.map((r) => r.projectId))]
      const rows = await queryRows<{ id: string }>(tx, sql`SELECT id FROM projects WHERE id = ANY(${textArrayLiteral(projects)}::text[])`)
      const live = new Set(rows.map((row) => row.id))
      return requests.filter((r) => live.has(r.projectId))
    },
    // Past every request the transaction claimed from, indexed or dropped: the journal is read in order.
    async commit(tx) {
      for (const request of claimedFrom.slice(-1)) await movePast(tx, request)
    },
    async setAside(tx, request, reason) {
      await keepAside(tx, request, reason)
      await movePast(tx, request)
    },
    async committed() {
      if (staged) await settle(staged)
      staged = null
      // Every record of the read is passed: on past the damaged lines after them, or to a newer segment.
      if (lastRecordEnd && readEnd && !after(lastRecordEnd, position!) && after(readEnd, position!)) await moveTo(readEnd)
    },
    async backlog(cap) {
      return { pending: await counter.count(await currentPosition(), cap), failed: await countSetAside(db, cap) }
    },
    async close() {
      await reader.close()
      await counter.close()
    },
  }
}
