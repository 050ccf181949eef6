// The indexer: moves accepted requests from the log (log/) through the process stage (process/)
// into the tables (index/), on the pipeline's thread. One batching rule: a pass starts once
// `batchSize` events wait or `lingerMs` after the oldest of them was appended, whichever is
// first; each batch holds up to `batchSize` requests. One failure path: a batch, then its
// requests one by one, then what still fails alone is set aside.
import type { Logger } from 'pino'
import { withTransaction, type Database } from '../../db/client.ts'
import { isDatabaseUnavailable, isTransientPgError, logDatabaseUnavailable, pgErrorCode, pgErrorMessage } from '../../db/pg-errors.ts'
import { tryLockProjects } from '../../db/project-lock.ts'
import { foldRollups, projectsToFold } from '../../rollups/fold.ts'
import { indexEvents } from '../index/index-events.ts'
import { indexSessions } from '../index/sessions.ts'
import type { AcceptedLog } from '../log/accepted-log.ts'
import type { AcceptedRequest } from '../payload/accepted-request.ts'
import type { Processor } from '../process/process.ts'

export interface IndexerOptions {
  /** N: a pass starts once this many events wait; the most requests one transaction indexes. */
  batchSize: number
  /** T: the longest an appended event waits before a pass starts. */
  lingerMs: number
  /** How often it looks for requests it was not woken for (other processes', an earlier run's). */
  pollMs?: number
  /** How long after a failure a pass is tried again. */
  retryMs?: number
  /** How long close() goes on indexing what is left. */
  drainMs?: number
  /** How often a backlog folds the rollups (a pass that empties the log folds at its end). */
  foldMs?: number
}

interface Waiter {
  resolve: (lastIndexedAt: number | null) => void
  reject: (err: unknown) => void
}

export class Indexer {
  private readonly batchSize: number
  private readonly lingerMs: number
  private readonly retryMs: number
  private readonly drainMs: number
  private readonly foldMs: number
  /** Events appended and not yet taken by a pass, and since when the oldest of them waits. */
  private waiting = { events: 0, since: null as number | null }
  /** A pass is wanted (woken, polled, or someone waits on idle()). */
  private wanted = false
  private running: Promise<void> | null = null
  private stopping = false
  private waiters: Waiter[] = []
  /** When this indexer last indexed an event (epoch ms). */
  private lastIndexedAt: number | null = null
  private lastFoldAt = -Infinity
  private lingerTimer: NodeJS.Timeout | null = null
  private endLinger: (() => void) | null = null
  private retryTimer: NodeJS.Timeout | null = null
  private readonly poll: NodeJS.Timeout

  constructor(
    private readonly database: Database,
    private readonly log: AcceptedLog,
    private readonly processor: Processor,
    options: IndexerOptions,
    private readonly logger: Logger,
  ) {
    this.batchSize = options.batchSize
    this.lingerMs = options.lingerMs
    this.retryMs = options.retryMs ?? 1000
    this.drainMs = options.drainMs ?? 10_000
    this.foldMs = options.foldMs ?? 1000
    this.poll = setInterval(() => this.wake(), options.pollMs ?? 1000)
    this.poll.unref()
    // Requests an earlier run accepted but did not index are picked up at once.
    queueMicrotask(() => this.wake())
  }

  /** Asks for a pass; the writer calls it after each append, with how many events it appended. */
  wake(appendedEvents = 0): void {
    if (this.stopping) return
    if (appendedEvents > 0) {
      this.waiting.events += appendedEvents
      this.waiting.since ??= performance.now()
      if (this.waiting.events >= this.batchSize) this.endLinger?.()
    }
    this.wanted = true
    if (this.running) return
    this.running = this.run().finally(() => {
      this.running = null
      // Woken after the last pass checked, before it ended.
      if (this.wanted && !this.stopping && !this.retryTimer) this.wake()
    })
  }

  /** Resolves after a pass that started after this call found the log empty, with when this indexer last indexed an event. */
  idle(): Promise<number | null> {
    return new Promise<number | null>((resolve, reject) => {
      this.waiters.push({ resolve, reject })
      this.endLinger?.()
      this.wake()
    })
  }

  /** Stops polling, indexes what is left for up to drainMs, then stops; the rest stays in the log. */
  async close(): Promise<void> {
    clearInterval(this.poll)
    if (this.retryTimer) clearTimeout(this.retryTimer)
    let timeout: NodeJS.Timeout | undefined
    const drained = this.idle().catch((err: unknown) => this.logger.warn({ err }, 'indexing before shutdown failed; the events stay in the log'))
    await Promise.race([drained, new Promise<void>((resolve) => (timeout = setTimeout(resolve, this.drainMs)))])
    clearTimeout(timeout)
    this.stopping = true
    this.endLinger?.()
    await this.running
    this.settleWaiters((waiter) => waiter.resolve(this.lastIndexedAt))
  }

  private settleWaiters(settle: (waiter: Waiter) => void): void {
    const waiters = this.waiters
    this.waiters = []
    for (const waiter of waiters) settle(waiter)
  }

  /** Passes while wanted; those waiting on idle() when a pass starts are answered when it ends; a failure schedules a retry. */
  private async run(): Promise<void> {
    while (this.wanted && !this.stopping) {
      await this.linger()
      if (this.stopping) return
      this.wanted = false
      this.waiting = { events: 0, since: null }
      const served = this.waiters
      this.waiters = []
      try {
        await this.pass(served.length > 0)
      } catch (err) {
        this.waiters.unshift(...served)
        this.failed(err)
        return
      }
      for (const waiter of served) waiter.resolve(this.lastIndexedAt)
    }
  }

  /** Waits until batchSize events wait or the oldest has waited lingerMs; not at all for a poll or a waiter. */
  private linger(): Promise<void> {
    const since = this.waiting.since
    if (since === null || this.waiters.length > 0 || this.waiting.events >= this.batchSize) return Promise.resolve()
    const wait = this.lingerMs - (performance.now() - since)
    if (wait <= 0) return Promise.resolve()
    return new Promise<void>((resolve) => {
      this.endLinger = resolve
      this.lingerTimer = setTimeout(resolve, wait)
    }).finally(() => {
      if (this.lingerTimer) clearTimeout(this.lingerTimer)
      this.lingerTimer = null
      this.endLinger = null
    })
  }

  /**
   * Batches until the log has none left for this pass. Projects whose requests were all read
   * (or are held by another process) are passed over for the rest of the pass, so their newer
   * requests gather for the next one rather than go in tiny batches while others wait.
   * `foldDue`: someone waits on idle(), and reads exact rollups after.
   */
  private async pass(foldDue: boolean): Promise<void> {
    const passOver = new Set<string>()
    let indexed = 0
    for (let more = true; more && !this.stopping; ) {
      const batch = await this.log.read(this.batchSize, passOver)
      if (batch.requests.length === 0) break
      const claimed = new Set(await this.indexBatch(batch.requests))
      indexed += claimed.size
      if (claimed.size > 0) this.lastIndexedAt = Date.now()
      const full = batch.requests.length === this.batchSize
      for (const request of batch.requests) if (!full || !claimed.has(request)) passOver.add(request.projectId)
      more = batch.more
      if (more && performance.now() - this.lastFoldAt >= this.foldMs) await this.foldAll()
    }
    // A pass that indexed folds at its end, so a quiet project's trends catch up with its counters at once.
    if (!this.stopping && (indexed > 0 || foldDue || performance.now() - this.lastFoldAt >= this.foldMs)) await this.foldAll()
  }

  /** The batch, else its requests one by one, else set aside; the requests it indexed. */
  private async indexBatch(requests: readonly AcceptedRequest[]): Promise<AcceptedRequest[]> {
    try {
      return await this.indexRequests(requests)
    } catch (err) {
      if (isTransientPgError(err)) throw err
      if (requests.length === 1) return this.setAside(requests[0]!, err)
      this.logger.warn({ err, requests: requests.length }, 'indexing a batch failed; indexing its requests one by one')
    }
    const indexed: AcceptedRequest[] = []
    for (const request of requests) {
      try {
        indexed.push(...(await this.indexRequests([request])))
      } catch (err) {
        if (isTransientPgError(err)) throw err
        await this.setAside(request, err)
      }
    }
    return indexed
  }

  /**
   * Processes the requests outside any transaction (the stages read the database themselves),
   * then, in one transaction: claims them from the log, indexes the events and sessions of
   * those claimed, sets aside those that could not be processed, and moves the log past them.
   */
  private async indexRequests(requests: readonly AcceptedRequest[]): Promise<AcceptedRequest[]> {
    const processed = await this.processor.process(requests)
    const failures = new Map(processed.failed.map((f) => [f.request, f.reason]))
    const claimed = await withTransaction(this.database.db, async (tx) => {
      const mine = await this.log.claim(tx, requests)
      const ids = new Set(mine.flatMap((r) => r.eventIds))
      const claimedSet = new Set(mine)
      await indexEvents(tx, processed.events.filter((e) => ids.has(e.id)))
      await indexSessions(tx, processed.sessions.flatMap((s) => (claimedSet.has(s.request) ? s.counts : [])))
      for (const request of mine) {
        const reason = failures.get(request)
        if (reason === undefined) continue
        this.logger.error({ reason, projectId: request.projectId }, 'an accepted request cannot be processed; it is kept in ingest_log with failed_at set')
        await this.log.setAside(tx, request, reason)
      }
      await this.log.commit(tx, mine.filter((r) => !failures.has(r)))
      return mine
    })
    await this.log.committed()
    return claimed
  }

  /** A request that cannot be indexed even alone: kept aside with the reason, and passed. */
  private async setAside(request: AcceptedRequest, err: unknown): Promise<AcceptedRequest[]> {
    this.logger.error({ err, projectId: request.projectId }, 'an accepted request cannot be indexed; it is kept in ingest_log with failed_at set')
    await withTransaction(this.database.db, (tx) => this.log.setAside(tx, request, pgErrorMessage(err)))
    await this.log.committed()
    return []
  }

  /**
   * Folds every project's events above its watermark into its rollups (rollups/fold.ts), each
   * project in its own transaction holding its write lock; a project whose lock another process
   * or request holds is left to the next fold.
   */
  private async foldAll(): Promise<void> {
    this.lastFoldAt = performance.now()
    for (const projectId of await projectsToFold(this.database.db)) {
      await withTransaction(this.database.db, async (tx) => {
        if ((await tryLockProjects(tx, [projectId])).size > 0) await foldRollups(tx, projectId)
      })
    }
  }

  /**
   * A pass failed: a transient failure (pg-errors.ts) leaves the log as it was, retried soon
   * (a deadlock at once, an unreachable database every retryMs), and idle() keeps waiting;
   * anything else fails those waiting and is retried after retryMs.
   */
  private failed(err: unknown): void {
    let delay = this.retryMs
    if (isTransientPgError(err)) {
      if (pgErrorCode(err)?.startsWith('40')) delay = 20
      // An outage retries every second: said once per 10 s, not a stack trace per retry.
      if (isDatabaseUnavailable(err)) logDatabaseUnavailable(this.logger, err)
      else this.logger.warn({ err }, `indexing failed; retrying in ${delay} ms`)
    } else {
      this.logger.error({ err }, `indexing failed; retrying in ${delay} ms`)
      this.settleWaiters((waiter) => waiter.reject(err))
    }
    if (this.retryTimer || this.stopping) return
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null
      this.wake()
    }, delay)
    this.retryTimer.unref()
  }
}
