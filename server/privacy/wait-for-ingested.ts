// When may a deletion trust that the events accepted before a moment are all in the tables?
// Kept in this one file so the ingestion pipeline can put its own answer here.
import { sql } from 'drizzle-orm'
import { queryRows, type Database } from '../db/client.ts'
import type { IngestWriter } from '../context.ts'

/** Resolves once every event accepted before `at` has been indexed (or throws when `signal` aborts). */
export type WaitForIngestedBefore = (at: Date, signal?: AbortSignal) => Promise<void>

/**
 * This process's indexer reports idle (which covers its own log: the journal on PGlite), and no
 * request received before `at` still waits in ingest_log (PostgreSQL's log, shared by every
 * process: what the others accepted), requests set aside excepted. Polls every `pollMs`.
 */
export function waitForIngestedBefore(database: Database, ingestWriter: Pick<IngestWriter, 'indexed'>, { pollMs = 200 }: { pollMs?: number } = {}): WaitForIngestedBefore {
  return async (at, signal) => {
    for (;;) {
      signal?.throwIfAborted()
      await ingestWriter.indexed()
      const waiting = await queryRows<{ one: number }>(
        database.db,
        sql`SELECT 1 AS one FROM ingest_log WHERE received_at < ${at.toISOString()}::timestamptz AND failed_at IS NULL LIMIT 1`,
      )
      if (waiting.length === 0) return
      await new Promise((resolve) => setTimeout(resolve, pollMs))
    }
  }
}
