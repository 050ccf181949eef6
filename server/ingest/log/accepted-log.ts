// The accepted-event log: where an accepted request is durable before its 200/202, and where the
// indexer reads it back (docs/ingestion.md, "The accepted-event log"). Two implementations:
// journal files beside the embedded database (journal-log.ts), and the ingest_log table on
// PostgreSQL, shared by every process (table-log.ts). Appending runs on the HTTP thread;
// reading, committing and setting aside on the pipeline's thread.
import type { Db } from '../../db/client.ts'
import type { AcceptedRequest } from '../payload/accepted-request.ts'

/** The appending half (HTTP thread). */
export interface LogAppender {
  /** Stores the requests; resolves once they are durable. Refused whole or stored whole. */
  append(requests: readonly AcceptedRequest[]): Promise<void>
  /** How many appends may be in flight at once (files take turns; table inserts overlap). */
  readonly concurrentAppends: number
  /** The directory its files live in, for the disk-space check; null when it is a table. */
  readonly dir: string | null
  close(): Promise<void>
}

/** Requests read from the log, oldest first. */
export interface LogBatch {
  readonly requests: readonly AcceptedRequest[]
  /** More requests wait behind these (the batch was full, or others were passed over). */
  readonly more: boolean
}

/** The reading half (pipeline thread). */
export interface AcceptedLog {
  /**
   * Up to `limit` of the oldest requests not yet indexed, skipping the projects in `passOver`
   * (the indexer's projects to leave for its next pass). Empty when none waits.
   */
  read(limit: number, passOver: ReadonlySet<string>): Promise<LogBatch>
  /**
   * In the index transaction, before indexing: which of `requests` (read by this log) this
   * transaction may index. On PostgreSQL another process may hold some (their project's
   * write lock, or their rows): those are left to it.
   */
  claim(tx: Db, requests: readonly AcceptedRequest[]): Promise<AcceptedRequest[]>
  /**
   * In the index transaction: the log moves past `requests` (the claimed ones that were indexed),
   * so they are indexed exactly once; past those claimed but dropped too (a deleted project's).
   */
  commit(tx: Db, requests: readonly AcceptedRequest[]): Promise<void>
  /** In a transaction: keeps a request that cannot be processed or indexed aside with `reason`, and moves past it. */
  setAside(tx: Db, request: AcceptedRequest, reason: string): Promise<void>
  /** After a batch's transaction committed: what the log does once past it (the journal deletes finished files). */
  committed(): Promise<void>
  /** Requests not yet indexed, and requests set aside, each counted up to `cap`. */
  backlog(cap: number): Promise<{ pending: number; failed: number }>
  close(): Promise<void>
}
