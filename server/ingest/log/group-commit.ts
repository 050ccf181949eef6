import { sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Database, Db } from '../../db/client.ts'
import { isDatabaseUnavailable, logDatabaseUnavailable, pgErrorCode, pgErrorMessage } from '../../db/pg-errors.ts'
import { Failure, UnauthorizedError, ValidationError } from '../../failures.ts'
import type { IngestIndexer } from '../index/indexer.ts'
import type { IngestPipeline } from '../pipeline/open.ts'
import { journalLines } from './journal.ts'
import type { AcceptedRequest } from './record.ts'

export interface IngestWriter {
  /**
   * Stores one accepted request in the accepted-event log (the ingest journal on PGlite,
   * ingest_log on PostgreSQL); resolves only once it is durable.
   */
  write(request: AcceptedRequest): Promise<void>
  /**
   * Resolves once every event committed so far has been indexed (visible in the API), with
   * when the last of them was (epoch ms; null if none has been). On PostgreSQL: as far as this
   * process can; the events of a project whose write lock another process or request holds at
   * that moment are left to it (or to this process's next pass).
   */
  indexed(): Promise<number | null>
  /** Commits everything queued, indexes what it can within the indexer's drain limit, then refuses new writes. */
  close(): Promise<void>
}

export interface IngestOptions {
  /** Most events stored at once (group commit): one journal append or one queue insert. */
  batchSize: number
  /** How long a batch waits for more events before it is stored. */
  flushMs: number
  /** Most events the indexer moves into the tables in one transaction. */
  indexBatchSize: number
  /** How long the indexer lets events gather after a commit wakes it. */
  indexLingerMs: number
  /** How often the indexer looks for records it was not woken for (tests set it longer); 1 s by default. */
  indexPollMs?: number
}

interface PendingRequest {
  request: AcceptedRequest
  resolve: () => void
  reject: (err: unknown) => void
}

/**
 * Group commit: accepted requests are enqueued; a flusher stores up to `batchSize` events'
 * requests at once, `flushMs` after the first arrives (or at once when a batch is full): as
 * ONE insert into ingest_log on PostgreSQL, or as one append and fdatasync to the ingest
 * journal on PGlite. Each request's promise settles only once it is durable; then the
 * indexer (on the pipeline's thread) is woken to process and index it. A failed batch is
 * retried request by request so one bad request cannot fail the others.
 */
export function createIngestWriter(database: Database, pipeline: IngestPipeline, options: IngestOptions, logger: Logger): IngestWriter {
  const indexerOptions = { batchSize: options.indexBatchSize, lingerMs: options.indexLingerMs, pollMs: options.indexPollMs }
  const indexer: IngestIndexer = pipeline.startIndexer(indexerOptions)
  const journal = pipeline.journal
  const store = journal
    ? (requests: readonly AcceptedRequest[]) => journal.append(journalLines(requests))
    : (requests: readonly AcceptedRequest[]) => appendToIngestLog(database.db, requests)
  const queue: PendingRequest[] = []
  let queuedEvents = 0
  let timer: NodeJS.Timeout | null = null
  // Log inserts touch no shared rows, so on PostgreSQL several commits may overlap and
  // share WAL flushes; the journal takes one append at a time.
  const maxInFlight = database.engine === 'postgres' ? 4 : 1
  const inFlight = new Set<Promise<void>>()
  let closed = false

  function takeBatch(): PendingRequest[] {
    const batch: PendingRequest[] = []
    let size = 0
    while (queue.length > 0) {
      const next = queue[0]!
      if (batch.length > 0 && size + next.request.eventIds.length > options.batchSize) break
      queue.shift()
      batch.push(next)
      size += next.request.eventIds.length
    }
    queuedEvents -= size
    return batch
  }

  async function commitBatch(batch: PendingRequest[]): Promise<void> {
    try {
      await store(batch.map((r) => r.request))
      for (const request of batch) request.resolve()
      indexer.wake(batch.reduce((n, r) => n + r.request.eventIds.length, 0))
      return
    } catch (err) {
      // Retrying one by one finds a bad request; it cannot help while the database is away,
      // nor when the journal's disk refuses writes.
      if (isDatabaseUnavailable(err) || isJournalFailure(err)) {
        const answer = toIngestError(err, logger)
        for (const request of batch) request.reject(answer)
        return
      }
      if (batch.length === 1) {
        batch[0]!.reject(toIngestError(err, logger))
        return
      }
      logger.warn({ err, requests: batch.length }, 'ingest batch failed; retrying its requests one by one')
    }
    for (const request of batch) {
      try {
        await store([request.request])
        request.resolve()
      } catch (err) {
        request.reject(toIngestError(err, logger))
      }
    }
    indexer.wake(batch.reduce((n, r) => n + r.request.eventIds.length, 0))
  }

  /** Starts batches while slots are free; each finished batch starts the next at once. */
  function startFlush(): void {
    if (timer) {
      clearTimeout(timer)
      timer = null
    }
    while (inFlight.size < maxInFlight && queue.length > 0) {
      const flush: Promise<void> = commitBatch(takeBatch()).finally(() => {
        inFlight.delete(flush)
        // Requests that arrived meanwhile have already waited; write them now.
        if (queue.length > 0) startFlush()
      })
      inFlight.add(flush)
    }
  }

  function schedule(): void {
    if (inFlight.size >= maxInFlight) return // a finishing batch picks the queue up
    if (queuedEvents >= options.batchSize || inFlight.size > 0) startFlush()
    else if (!timer) timer = setTimeout(startFlush, options.flushMs)
  }

  return {
    write(request) {
      if (closed) return Promise.reject(new Failure('unavailable', ['the server is shutting down; retry shortly']))
      if (request.eventIds.length === 0) return Promise.resolve()
      return new Promise<void>((resolve, reject) => {
        queue.push({ request, resolve, reject })
        queuedEvents += request.eventIds.length
        schedule()
      })
    },
    indexed: () => indexer.idle(),
    async close() {
      closed = true
      while (queue.length > 0 || inFlight.size > 0) {
        startFlush()
        await Promise.all(inFlight)
      }
      await indexer.close()
    },
  }
}

/**
 * A batch of accepted requests into ingest_log, as ONE statement, atomic on its own (no
 * BEGIN/COMMIT round trips around it): the rows travel as one json parameter that the
 * database unpacks itself (far cheaper than thousands of bind parameters). Each body is
 * stored as its text, which the database compresses. The project foreign key refuses
 * requests of a deleted project.
 */
export async function appendToIngestLog(db: Db, requests: readonly AcceptedRequest[]): Promise<void> {
  const rows = requests.map((r) => ({
    project_id: r.projectId,
    received_at: r.receivedAt.toISOString(),
    event_ids: r.eventIds,
    user_agent: r.userAgent,
    body: r.body.toString('utf8'),
  }))
  await db.execute(sql`
    INSERT INTO ingest_log (project_id, received_at, event_ids, user_agent, body)
    SELECT project_id, received_at, event_ids, user_agent, body
    FROM json_to_recordset(${JSON.stringify(rows)}::json)
      AS x(project_id text, received_at timestamptz, event_ids text[], user_agent text, body text)`)
}

/** The 503 for notifiers while the database cannot be reached (logged at most once per 10 s). */
function unavailable(err: unknown, logger: Logger): Failure {
  logDatabaseUnavailable(logger, err)
  return new Failure('unavailable', ['the event could not be stored; retry shortly'])
}

/** The journal's file system refused a write (full disk, I/O error): a system call's error. */
const isJournalFailure = (err: unknown) => err instanceof Error && typeof (err as NodeJS.ErrnoException).syscall === 'string'

let journalFailureLoggedAt = -Infinity
let journalFailuresSince = 0

/** Logged at most once per 10 s with the count since: a full disk under load fails every request. */
function logJournalFailure(logger: Logger, err: unknown): void {
  journalFailuresSince += 1
  if (Date.now() - journalFailureLoggedAt < 10_000) return
  logger.error({ err, failures: journalFailuresSince }, 'appending to the ingest journal failed; answering 503')
  journalFailureLoggedAt = Date.now()
  journalFailuresSince = 0
}

/** A storage failure as the answer for the request that caused it. */
function toIngestError(err: unknown, logger: Logger): unknown {
  // Refused whole (a part that reached the journal stays behind a finished segment's end; docs/ingestion.md).
  if (isJournalFailure(err)) {
    logJournalFailure(logger, err)
    return new Failure('unavailable', ['the event could not be stored; retry shortly'])
  }
  const code = pgErrorCode(err)
  // The project was deleted while its API key was still cached.
  if (code === '23503') return new UnauthorizedError('invalid API key: no project has this API key')
  // Data exceptions (class 22): a value PostgreSQL cannot store, i.e. a bad payload.
  if (code?.startsWith('22')) {
    return new ValidationError(`event could not be stored: ${pgErrorMessage(err)}`)
  }
  if (isDatabaseUnavailable(err)) return unavailable(err, logger)
  logger.error({ err }, 'ingest write failed')
  return err
}
