// When may a deletion trust that the events accepted before a moment are all in the tables?
// Kept in this one file so the ingestion pipeline can put its own answer here.
import { sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { queryRows, type Database } from '../db/client.ts'
import type { IngestWriter } from '../context.ts'

/** Resolves once every event accepted before `at` has been indexed (or throws when `signal` aborts). */
export type WaitForIngestedBefore = (at: Date, signal?: AbortSignal) => Promise<void>

/** How often a wait that goes on says which journals it waits for. */
const SAY_WAITING_EVERY_MS = 60_000

/**
 * No request received before `at` is still waiting in ingest_log (PostgreSQL's database log,
 * shared by every process), records set aside excepted; this process's indexer reports idle (which covers its own journal); and every
 * other process's journal (PostgreSQL with ERRATA_INGEST_LOG=journal) has caught up past `at`.
 * A journal whose process is down is waited for until it runs again and indexes what it
 * accepted: a deletion must not miss events that process acknowledged (docs/ingestion.md).
 * Polls every `pollMs`.
 */
export function waitForIngestedBefore(
  database: Database,
  ingestWriter: Pick<IngestWriter, 'indexed'>,
  ownJournalId: string | undefined,
  { pollMs = 200, logger }: { pollMs?: number; logger?: Logger } = {},
): WaitForIngestedBefore {
  return async (at, signal) => {
    const since = performance.now()
    let saidAt = since
    for (;;) {
      signal?.throwIfAborted()
      await ingestWriter.indexed()
      const iso = at.toISOString()
      const waiting = await queryRows<{ journal: string | null }>(
        database.db,
        sql`(SELECT NULL AS journal FROM ingest_log WHERE received_at < ${iso}::timestamptz AND failed_at IS NULL LIMIT 1)
            UNION ALL
            (SELECT location || ' (' || journal_id || ')' FROM ingest_journals
              WHERE caught_up_at <= ${iso}::timestamptz AND journal_id <> ${ownJournalId ?? ''})`,
      )
      if (waiting.length === 0) return
      const journals = waiting.flatMap((row) => (row.journal ? [row.journal] : []))
      if (journals.length > 0 && performance.now() - saidAt >= SAY_WAITING_EVERY_MS) {
        saidAt = performance.now()
        logger?.warn(
          { journals, waitingSeconds: Math.round((saidAt - since) / 1000) },
          'a privacy request waits for the ingest journals of other Errata processes to be indexed; start those processes again on their DATA_DIR',
        )
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs))
    }
  }
}
