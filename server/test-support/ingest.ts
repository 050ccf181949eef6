import pino from 'pino'
import type { Db } from '../db/client.ts'
import { tableAppender, tableLog } from '../ingest/log/table-log.ts'
import { acceptedRequest, type AcceptedRequest } from '../ingest/payload/accepted-request.ts'
import { Indexer, type IndexerOptions } from '../ingest/pipeline/indexer.ts'
import { createProcessor } from '../ingest/process/process.ts'
import type { TestContext } from './test-app.ts'

/** A minimal valid notifier event of `errorClass` (one in-project frame, so the class decides the group). */
export function notifierEvent(errorClass: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    exceptions: [
      {
        errorClass,
        message: `${errorClass} happened`,
        type: 'nodejs',
        stacktrace: [{ file: 'src/app.js', method: 'run', lineNumber: 3, columnNumber: 7, inProject: true }],
      },
    ],
    ...extra,
  }
}

/**
 * Stores events through the real ingest path (group commit into the accepted-event log → process → index,
 * rollups included; indexed before this returns) as if received at the given times, which HTTP ingestion cannot choose.
 */
export async function ingestAt(
  ctx: TestContext,
  projectId: string,
  items: ReadonlyArray<{ at: Date; event: Record<string, unknown> }>,
): Promise<void> {
  for (const item of items) {
    const body = Buffer.from(JSON.stringify({ payloadVersion: '4', events: [item.event] }))
    await ctx.deps.ingestWriter.write(acceptedRequest(projectId, item.at, body, 1, null))
  }
  await ctx.deps.ingestWriter.indexed()
}

/** The accepted-event log record of a POST /notify of `payload` (a notifier body) for `projectId`. */
export function acceptedPayload(projectId: string, payload: Record<string, unknown>, at = new Date(), userAgent: string | null = null): AcceptedRequest {
  const events = Array.isArray(payload.events) ? payload.events.length : 0
  return acceptedRequest(projectId, at, Buffer.from(JSON.stringify(payload)), events, userAgent)
}

/** Requests into ingest_log, as a process on PostgreSQL appends them. */
export const appendToIngestLog = (db: Db, requests: readonly AcceptedRequest[]) => tableAppender({ db, maxWriters: 1 }).append(requests)

/**
 * An indexer of ingest_log on the test's database, as each process sharing a PostgreSQL database
 * runs one (on PGlite the same code, over its one connection). Stop it with close().
 */
export function tableIndexer(ctx: TestContext, options: Partial<IndexerOptions> = {}): Indexer {
  const { database } = ctx.deps
  return new Indexer(database, tableLog(database.db), createProcessor(), { batchSize: 7, lingerMs: 0, ...options }, pino({ level: 'silent' }))
}
