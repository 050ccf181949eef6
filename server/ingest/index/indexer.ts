import type { Logger } from 'pino'
import type { Database } from '../../db/client.ts'
import { isDatabaseUnavailable, isTransientPgError, logDatabaseUnavailable, pgErrorCode } from '../../db/pg-errors.ts'
import type { JournalSource } from '../log/journal-source.ts'
import type { TableSource } from '../log/table-source.ts'
import { tryLockProjects } from '../../db/project-lock.ts'
import { foldRollups, projectsToFold } from '../../rollups/fold.ts'
import type { Db } from '../../db/client.ts'
import { createBatchSizer } from './batch-sizer.ts'

/** Batch size and linger; what the ingest writer passes (docs/ingestion.md). */
export interface IndexerOptions {
  batchSize: number
  /** The longest a pass waits for requests to gather (it goes at once when MIN_BATCH_EVENTS have). */
  lingerMs: number
  /** How often it looks for records other processes (or an earlier run) left; 1 s by default. */
  pollMs?: number
}

/**
 * A pass starts as soon as this many events were appended since the last one: under load,
 * batches of at least this size, where the per-event cost of indexing is a fraction of a small
 * batch's; below that rate, events wait up to lingerMs.
 */
const MIN_BATCH_EVENTS = 500

/**
 * Under load (at least LOAD_EVENTS_PER_SECOND appended in the last second) a pass waits up to
 * LOAD_LINGER_MS for MIN_BATCH_EVENTS to gather, however short lingerMs is: batches of a few
 * hundred events cost a fraction per event of what a hundred do, and at that rate the wait is
 * short anyway. A trickle keeps lingerMs, so a lone event shows within it.
 */
const LOAD_EVENTS_PER_SECOND = 200
const LOAD_LINGER_MS = 500

/** Where accepted records wait: this process's journal, and/or ingest_log (PostgreSQL). */
interface IndexerSources {
  journal?: JournalSource
  log?: TableSource
}

export interface IngestIndexer {
  /** Asks for a pass soon; the writer calls it after each append, with how many events it appended. */
  wake(appendedEvents?: number): void
  /**
   * Resolves after a pass that started after this call found the queue empty, with when
   * this indexer last indexed an event (epoch ms; null if it has not yet).
   */
  idle(): Promise<number | null>
  /** Stops polling, indexes what is left for up to `drainMs`, then stops; the rest stays queued. */
  close(): Promise<void>
}

/**
 * Moves accepted requests from the accepted-event log into errors, events, payloads and
 * rollups, up to `batchSize` at a time (fewer when a batch that size would hold the database
 * much longer than TARGET_BATCH_MS: batch-sizer.ts), each batch in one transaction that also
 * moves past them in the log: an event is indexed exactly once, and a crash leaves it in the
 * log for the next pass. Woken by the writer after each append, and every `pollMs` for records
 * another process or an earlier run left behind.
 *
 * A pass waits `lingerMs` after being woken before taking a batch, so that under load the
 * batches grow (hundreds of events, where each append of the writer holds a few) and the
 * per-event cost of indexing falls several times; events are visible about `lingerMs`
 * after their 200. Time the previous pass spent counts towards that wait (lingerTime). A
 * caller waiting on idle() (tests, shutdown) skips the wait.
 *
 * Sources, read in this order: the ingest journal (`sources.journal`, when this process
 * journals), then ingest_log (PostgreSQL).
 * A transient failure (pg-errors.ts) leaves a batch to be retried later as it is; anything
 * else failing on one record alone is set aside (failed_at) instead of blocking the others.
 */
export function createIngestIndexer(
  database: Database,
  options: IndexerOptions & { retryMs?: number; drainMs?: number; foldMs?: number },
  logger: Logger,
  sources: IndexerSources,
): IngestIndexer {
  const { batchSize, lingerMs, pollMs = 1000, retryMs = 1000, drainMs = 10_000, foldMs = 1000 } = options
  let running: Promise<void> | null = null
  let again = false
  let stopping = false
  let waiters: { resolve: (lastIndexedAt: number | null) => void; reject: (err: unknown) => void }[] = []
  let lastIndexedAt: number | null = null
  let retryTimer: NodeJS.Timeout | null = null
  let lingerTimer: NodeJS.Timeout | null = null
  let wakeLinger: (() => void) | null = null
  // Events appended (by this process) since the current linger began.
  let appendedSinceLinger = 0
  // Events appended in the current second and the one before it (the arrival rate).
  const arrivals = { second: 0, current: 0, previous: 0 }
  function countArrivals(events: number): void {
    const second = Math.floor(performance.now() / 1000)
    if (second !== arrivals.second) {
      arrivals.previous = second === arrivals.second + 1 ? arrivals.current : 0
      arrivals.current = 0
      arrivals.second = second
    }
    arrivals.current += events
  }
  const poll = setInterval(() => wake(), pollMs)
  poll.unref()
  // Events an earlier run accepted but did not index are picked up at once.
  queueMicrotask(() => wake())

  // Batches of a backlog stay near TARGET_BATCH_MS, up to batchSize events (batch-sizer.ts).
  const sizer = createBatchSizer(batchSize)

  // Projects whose waiting rows this pass took in a partial batch: their newer rows wait for
  // the next pass (and its linger) rather than going in tiny batches while other projects wait.
  let drainedThisPass = new Set<string>()

  /**
   * One batch: how many events it indexed, and whether to go on at once (a full batch means a
   * backlog; other projects may be waiting) rather than linger.
   */
  async function indexBatch(): Promise<{ indexed: number; more: boolean }> {
    const started = performance.now()
    const limit = sizer.size()
    const result = await indexUpTo(limit)
    sizer.record(result.indexed, performance.now() - started)
    return result
  }

  async function indexUpTo(limit: number): Promise<{ indexed: number; more: boolean }> {
    const journaled = sources.journal ? await sources.journal.indexBatch(limit) : 0
    if (journaled > 0) return { indexed: journaled, more: journaled === limit }
    if (!sources.log) return { indexed: 0, more: false }
    const batch = await sources.log.indexBatch(limit, drainedThisPass)
    if (!batch.projectId) return { indexed: 0, more: false }
    // Drained (or taken meanwhile by a process that held the lock before): on to the others.
    if (batch.indexed < limit) drainedThisPass.add(batch.projectId)
    return { indexed: batch.indexed, more: batch.indexed === limit || batch.others }
  }

  let lastFold = -Infinity

  /**
   * Folds every project's events above its watermark into its rollups (rollups/fold.ts), each
   * project in its own transaction holding its write lock; a project whose lock another
   * process or request holds is left to the next fold.
   */
  async function foldAll(): Promise<void> {
    lastFold = performance.now()
    for (const projectId of await projectsToFold(database.db)) {
      await database.db.transaction(async (txn) => {
        const tx = txn as unknown as Db
        if ((await tryLockProjects(tx, [projectId])).size > 0) await foldRollups(tx, projectId)
      })
    }
  }

  /** About once per `foldMs` under load; at once for a caller waiting on idle(), so it reads exact rollups. */
  const foldDue = () => waiters.length > 0 || performance.now() - lastFold >= foldMs

  // The last pass: when it ended and how long it took.
  let lastPass = { endedAt: -Infinity, tookMs: 0 }

  /**
   * How long to let events gather: lingerMs after a quiet spell. Right after a pass, the
   * events waiting now arrived while it ran, so they have gathered for its duration already:
   * under load, passes then follow each other without idle gaps (a fixed wait after every
   * pass left the database thread idle a third of the time).
   */
  function lingerTime(): number {
    countArrivals(0)
    const underLoad = Math.max(arrivals.previous, arrivals.current) >= LOAD_EVENTS_PER_SECOND
    const longest = underLoad ? Math.max(lingerMs, LOAD_LINGER_MS) : lingerMs
    const sinceEnd = performance.now() - lastPass.endedAt
    return sinceEnd < longest ? Math.max(0, longest - lastPass.tookMs - sinceEnd) : longest
  }

  /** Waits up to lingerTime(), or less if someone starts waiting on idle() meanwhile. */
  function linger(): Promise<void> {
    const wait = lingerTime()
    if (wait <= 0 || waiters.length > 0 || appendedSinceLinger >= MIN_BATCH_EVENTS) return Promise.resolve()
    return new Promise<void>((resolve) => {
      wakeLinger = resolve
      lingerTimer = setTimeout(resolve, wait)
    }).finally(() => {
      if (lingerTimer) clearTimeout(lingerTimer)
      lingerTimer = null
      wakeLinger = null
    })
  }

  function scheduleRetry(delayMs: number): void {
    if (retryTimer || stopping) return
    retryTimer = setTimeout(() => {
      retryTimer = null
      wake()
    }, delayMs)
    retryTimer.unref()
  }

  async function run(): Promise<void> {
    try {
      while (again && !stopping) {
        await linger()
        again = false
        appendedSinceLinger = 0
        const started = performance.now()
        // Full batches mean a backlog: keep going. A partial one took all there was; commits
        // made meanwhile have set `again`, and the next pass lingers to gather them.
        drainedThisPass = new Set()
        let indexedThisPass = 0
        for (let more = true; !stopping && more; ) {
          const batch = await indexBatch()
          more = batch.more
          indexedThisPass += batch.indexed
          if (batch.indexed > 0) lastIndexedAt = Date.now()
          // A backlog folds about once per foldMs; a pass that took all there was folds at its end,
          // so that the trends of a quiet project catch up with its error counters at once.
          if (more && performance.now() - lastFold >= foldMs) await foldAll()
        }
        if (!stopping && (indexedThisPass > 0 || foldDue())) await foldAll()
        lastPass = { endedAt: performance.now(), tookMs: performance.now() - started }
      }
    } catch (err) {
      if (isTransientPgError(err)) {
        const code = pgErrorCode(err)
        // The queued events are intact; those waiting on idle() keep waiting for the retry.
        // A deadlock or serialization failure is retried at once; an unreachable database later.
        const delay = code?.startsWith('40') ? 20 : retryMs
        // An outage retries every second: said once per 10 s, not a stack trace per retry.
        if (isDatabaseUnavailable(err)) logDatabaseUnavailable(logger, err)
        else logger.warn({ err }, `indexing failed; retrying in ${delay} ms`)
        scheduleRetry(delay)
      } else {
        logger.error({ err }, `indexing failed; retrying in ${retryMs} ms`)
        const failed = waiters
        waiters = []
        for (const waiter of failed) waiter.reject(err)
        scheduleRetry(retryMs)
      }
      return
    }
    if (stopping) return
    const done = waiters
    waiters = []
    for (const waiter of done) waiter.resolve(lastIndexedAt)
  }

  function wake(appendedEvents = 0): void {
    if (stopping) return
    appendedSinceLinger += appendedEvents
    countArrivals(appendedEvents)
    if (waiters.length > 0 || appendedSinceLinger >= MIN_BATCH_EVENTS) wakeLinger?.()
    again = true
    if (running) return
    running = run().finally(() => {
      running = null
      if (again) wake()
    })
  }

  return {
    wake: (appendedEvents) => wake(appendedEvents),
    idle() {
      return new Promise<number | null>((resolve, reject) => {
        waiters.push({ resolve, reject })
        wake()
      })
    },
    async close() {
      clearInterval(poll)
      if (retryTimer) clearTimeout(retryTimer)
      let timeout: NodeJS.Timeout | undefined
      const drained = new Promise<number | null>((resolve, reject) => {
        waiters.push({ resolve, reject })
        wake()
      }).catch((err: unknown) => logger.warn({ err }, 'indexing before shutdown failed; the events stay queued'))
      await Promise.race([drained, new Promise<void>((resolve) => (timeout = setTimeout(resolve, drainMs)))])
      clearTimeout(timeout)
      stopping = true
      await running
      const left = waiters
      waiters = []
      for (const waiter of left) waiter.resolve(lastIndexedAt)
    },
  }
}
