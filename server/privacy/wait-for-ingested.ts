// When may a deletion trust that the events accepted before a moment are all in the tables?
// Kept in this one file so the ingestion pipeline can put its own answer here.
import { sql } from 'drizzle-orm'
import { queryRows, type Database } from '../db/client.ts'
import type { IngestWriter } from '../ingest/log/group-commit.ts'

/** Resolves once every event accepted before `at` has been indexed (or throws when `signal` aborts). */
export type WaitForIngestedBefore = (at: Date, signal?: AbortSignal) => Promise<void>

/**
 * No request received before `at` is still waiting in ingest_log (PostgreSQL's accepted-event
 * log, shared by every process) or in ingest_queue (an earlier version's), records set aside
 * excepted, and this process's indexer reports idle (on the embedded database that also covers
 * the ingest journal, which only this process writes). Polls every `pollMs`.
 */
export function waitForIngestedBefore(
  database: Database,
  ingestWriter: Pick<IngestWriter, 'indexed'>,
  pollMs = 200,
): WaitForIngestedBefore {
  return async (at, signal) => {
    for (;;) {
      signal?.throwIfAborted()
      await ingestWriter.indexed()
      const waiting = await queryRows<{ one: number }>(
        database.db,
        sql`SELECT 1 AS one FROM ingest_log WHERE received_at < ${at.toISOString()}::timestamptz AND failed_at IS NULL
            UNION ALL
            SELECT 1 FROM ingest_queue WHERE received_at < ${at.toISOString()}::timestamptz AND failed_at IS NULL LIMIT 1`,
      )
      if (waiting.length === 0) return
      await new Promise((resolve) => setTimeout(resolve, pollMs))
    }
  }
}
