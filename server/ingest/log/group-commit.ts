import type { Logger } from 'pino'
import { isDatabaseUnavailable, logDatabaseUnavailable, pgErrorCode, pgErrorMessage } from '../../db/pg-errors.ts'
import { Failure, UnauthorizedError, ValidationError } from '../../failures.ts'
import { requestWeight, type AcceptedRequest } from '../payload/accepted-request.ts'
import type { LogAppender } from './accepted-log.ts'

export interface GroupCommitOptions {
  /** Most events stored at once: one journal append or one ingest_log insert. */
  batchSize: number
  /** How long a batch waits for more events before it is stored. */
  flushMs: number
}

export interface GroupCommit {
  /** Stores one accepted request in the log; resolves only once it is durable. */
  write(request: AcceptedRequest): Promise<void>
  /** Stores everything queued, then refuses new writes. */
  close(): Promise<void>
}

interface PendingRequest {
  request: AcceptedRequest
  resolve: () => void
  reject: (err: unknown) => void
}

/**
 * Group commit: accepted requests are enqueued; a flusher stores up to `batchSize` events'
 * requests at once, `flushMs` after the first arrives (or at once when a batch is full), as one
 * append to the log (appender.concurrentAppends of them at a time). Each request's promise
 * settles only once it is durable; then `appended` is told how many events were stored (the
 * indexer is woken). A failed batch is retried request by request so one bad request cannot
 * fail the others.
 */
export function createGroupCommit(appender: LogAppender, options: GroupCommitOptions, logger: Logger, appended: (events: number) => void): GroupCommit {
  const queue: PendingRequest[] = []
  let queuedEvents = 0
  let timer: NodeJS.Timeout | null = null
  const maxInFlight = appender.concurrentAppends
  const inFlight = new Set<Promise<void>>()
  let closed = false

  function takeBatch(): PendingRequest[] {
    const batch: PendingRequest[] = []
    let size = 0
    while (queue.length > 0) {
      const next = queue[0]!
      if (batch.length > 0 && size + requestWeight(next.request) > options.batchSize) break
      queue.shift()
      batch.push(next)
      size += requestWeight(next.request)
    }
    queuedEvents -= size
    return batch
  }

  async function commitBatch(batch: PendingRequest[]): Promise<void> {
    try {
      await appender.append(batch.map((r) => r.request))
      for (const request of batch) request.resolve()
      appended(batch.reduce((n, r) => n + requestWeight(r.request), 0))
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
        await appender.append([request.request])
        request.resolve()
      } catch (err) {
        request.reject(toIngestError(err, logger))
      }
    }
    appended(batch.reduce((n, r) => n + requestWeight(r.request), 0))
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
      if (request.kind === 'notify' && request.eventIds.length === 0) return Promise.resolve()
      return new Promise<void>((resolve, reject) => {
        queue.push({ request, resolve, reject })
        queuedEvents += requestWeight(request)
        schedule()
      })
    },
    async close() {
      closed = true
      while (queue.length > 0 || inFlight.size > 0) {
        startFlush()
        await Promise.all(inFlight)
      }
    },
  }
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
