import { sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { queryRows, type Database, type Db } from '../../db/client.ts'
import { isTransientPgError, pgErrorCode, pgErrorMessage } from '../../db/pg-errors.ts'
import type { JournalIndexing } from '../log/journal-source.ts'
import { writeEvents, type IndexedEvent, type IndexedRowData } from './write-events.ts'
import { fitPivotColumns, pivotColumn } from '../process/normalize.ts'
import { tryLockProjects } from '../../db/project-lock.ts'
import { createBatchSizer } from './batch-sizer.ts'

/** Batch size and linger; what the ingest writer passes (docs/ingestion.md). */
export interface IndexerOptions {
  batchSize: number
  lingerMs: number
}

export interface IngestIndexer {
  /** Asks for a pass over ingest_queue soon (the writer calls it after each commit). */
  wake(): void
  /**
   * Resolves after a pass that started after this call found the queue empty, with when
   * this indexer last indexed an event (epoch ms; null if it has not yet).
   */
  idle(): Promise<number | null>
  /** Stops polling, indexes what is left for up to `drainMs`, then stops; the rest stays queued. */
  close(): Promise<void>
}

interface QueueRow {
  seq: number | string
  event_id: string
  project_id: string
  received_at: string | Date
  event: IndexedRowData
}

// A transient failure (pg-errors.ts) leaves the batch to be retried later as it is.
// Anything else failing on one event alone is that event's own problem, and it is set
// aside (failed_at) instead of blocking the queue.

const seqArray = (rows: readonly QueueRow[]) => `{${rows.map((r) => String(r.seq)).join(',')}}`

/**
 * Moves accepted events from ingest_queue into errors, events, payloads and rollups, up to
 * `batchSize` at a time (fewer when a batch that size would hold the database much longer
 * than TARGET_BATCH_MS: batch-sizer.ts), each batch in one transaction that also deletes its queue rows:
 * an event is indexed exactly once, and a crash leaves it queued for the next pass.
 * FOR UPDATE SKIP LOCKED lets several Errata processes index one PostgreSQL database side
 * by side. Woken by the writer after each commit, and every `pollMs` for rows another
 * process or an earlier run left behind.
 *
 * A pass waits `lingerMs` after being woken before taking a batch, so that under load the
 * batches grow (hundreds of events, where each commit of the writer holds a few) and the
 * per-event cost of indexing falls several times; events are visible about `lingerMs`
 * after their 200. Time the previous pass spent counts towards that wait (lingerTime). A
 * caller waiting on idle() (tests, shutdown) skips the wait.
 *
 * On the embedded database, accepted events are in the ingest journal instead
 * (`journal`, journal-indexing.ts), which is read first; the queue then holds only what an
 * earlier version left there, and events set aside.
 */
export function createIngestIndexer(
  database: Database,
  options: IndexerOptions & { pollMs?: number; retryMs?: number; drainMs?: number },
  logger: Logger,
  journal?: JournalIndexing,
): IngestIndexer {
  const { batchSize, lingerMs, pollMs = 1000, retryMs = 1000, drainMs = 10_000 } = options
  let running: Promise<void> | null = null
  let again = false
  let stopping = false
  let waiters: { resolve: (lastIndexedAt: number | null) => void; reject: (err: unknown) => void }[] = []
  let lastIndexedAt: number | null = null
  let retryTimer: NodeJS.Timeout | null = null
  let lingerTimer: NodeJS.Timeout | null = null
  let wakeLinger: (() => void) | null = null
  const poll = setInterval(() => wake(), pollMs)
  poll.unref()
  // Events an earlier run accepted but did not index are picked up at once.
  queueMicrotask(() => wake())

  async function indexRows(tx: Db, rows: readonly QueueRow[]): Promise<void> {
    await writeEvents(
      tx,
      rows.map(
        (row): IndexedEvent => ({
          id: row.event_id,
          projectId: row.project_id,
          receivedAt: new Date(row.received_at),
          columns: fitPivotColumns(row.event.columns),
          grouping: row.event.grouping,
          userKey: pivotColumn(row.event.userKey),
          crashedSession: row.event.crashedSession ?? null,
        }),
      ),
    )
    // The payloads move inside the database: they never travel back to Node.
    await tx.execute(sql`
      WITH taken AS (DELETE FROM ingest_queue WHERE seq = ANY(${seqArray(rows)}::bigint[]) RETURNING event_id, payload)
      INSERT INTO event_payloads (event_id, payload) SELECT event_id, payload FROM taken`)
  }

  const takeRows = (tx: Db, limit: number, only: { projectId: string } | { seq: string }) =>
    queryRows<QueueRow>(
      tx,
      sql`SELECT seq, event_id, project_id, received_at, event FROM ingest_queue
        WHERE failed_at IS NULL AND ${'seq' in only ? sql`seq = ${only.seq}::bigint` : sql`project_id = ${only.projectId}`}
        ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
    )

  /**
   * The project whose events this transaction indexes next: of the projects with the oldest
   * queued events, the first whose write lock is free (db/project-lock.ts), now held. One
   * project per batch, so that processes sharing the queue index different projects side by
   * side instead of one batch taking every project's lock. `others`: more projects were waiting.
   */
  async function claimProject(tx: Db, skip: ReadonlySet<string>): Promise<{ projectId: string; others: boolean } | null> {
    // Every project with waiting events, however long another's backlog: a skip scan of the
    // (project_id, seq) index, one probe per project, then each one's oldest waiting event.
    const waiting = (
      await queryRows<{ project_id: string }>(
        tx,
        sql`WITH RECURSIVE queued(project_id) AS (
            (SELECT project_id FROM ingest_queue ORDER BY project_id LIMIT 1)
            UNION ALL
            SELECT (SELECT q.project_id FROM ingest_queue q WHERE q.project_id > queued.project_id ORDER BY q.project_id LIMIT 1)
            FROM queued WHERE queued.project_id IS NOT NULL)
          SELECT project_id FROM (
            SELECT project_id, (SELECT q.seq FROM ingest_queue q WHERE q.project_id = queued.project_id AND q.failed_at IS NULL
                                ORDER BY q.seq LIMIT 1) AS oldest
            FROM queued WHERE project_id IS NOT NULL) waiting
          WHERE oldest IS NOT NULL ORDER BY oldest`,
      )
    ).filter((row) => !skip.has(row.project_id))
    for (const { project_id: projectId } of waiting) {
      if ((await tryLockProjects(tx, [projectId])).size > 0) return { projectId, others: waiting.length > 1 }
    }
    return null
  }

  // Batches of a backlog stay near TARGET_BATCH_MS, up to batchSize events (batch-sizer.ts).
  const sizer = createBatchSizer(batchSize)

  // Projects whose queued events this pass took in a partial batch: their newer events wait for
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
    const journaled = journal ? await journal.indexBatch(limit) : 0
    if (journaled > 0) return { indexed: journaled, more: journaled === limit }
    let taken: QueueRow[] = []
    let others = false
    try {
      const indexed = await database.db.transaction(async (tx) => {
        const claimed = await claimProject(tx as unknown as Db, drainedThisPass)
        if (!claimed) return 0
        others = claimed.others
        taken = await takeRows(tx as unknown as Db, limit, { projectId: claimed.projectId })
        if (taken.length > 0) await indexRows(tx as unknown as Db, taken)
        // Drained (or taken meanwhile by a process that held the lock before): on to the others.
        if (taken.length < limit) drainedThisPass.add(claimed.projectId)
        return taken.length
      })
      return { indexed, more: indexed === limit || others }
    } catch (err) {
      if (taken.length === 0 || isTransientPgError(err)) throw err
      logger.warn({ err, events: taken.length }, 'indexing a batch failed; indexing its events one by one')
    }
    let indexed = 0
    for (const row of taken) indexed += await indexAlone(String(row.seq))
    return { indexed, more: true }
  }

  /** One queued event alone; 1 if it was indexed, 0 if not (gone, set aside, or its project busy). */
  async function indexAlone(seq: string): Promise<number> {
    try {
      return await database.db.transaction(async (tx) => {
        const rows = await takeRows(tx as unknown as Db, 1, { seq })
        const free = await tryLockProjects(tx as unknown as Db, rows.map((row) => row.project_id))
        if (rows.length === 0 || free.size === 0) return 0
        await indexRows(tx as unknown as Db, rows)
        return 1
      })
    } catch (err) {
      if (isTransientPgError(err)) throw err
      const failure = pgErrorMessage(err)
      logger.error({ err, seq }, 'an accepted event cannot be indexed; it stays in ingest_queue with failed_at set')
      await database.db.execute(sql`UPDATE ingest_queue SET failed_at = now(), failure = ${failure} WHERE seq = ${seq}::bigint`)
      return 0
    }
  }

  // The last pass: when it ended and how long it took.
  let lastPass = { endedAt: -Infinity, tookMs: 0 }

  /**
   * How long to let events gather: lingerMs after a quiet spell. Right after a pass, the
   * events waiting now arrived while it ran, so they have gathered for its duration already:
   * under load, passes then follow each other without idle gaps (a fixed wait after every
   * pass left the database thread idle a third of the time).
   */
  function lingerTime(): number {
    const sinceEnd = performance.now() - lastPass.endedAt
    return sinceEnd < lingerMs ? Math.max(0, lingerMs - lastPass.tookMs - sinceEnd) : lingerMs
  }

  /** Waits up to lingerTime(), or less if someone starts waiting on idle() meanwhile. */
  function linger(): Promise<void> {
    const wait = lingerTime()
    if (wait <= 0 || waiters.length > 0) return Promise.resolve()
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
        const started = performance.now()
        // Full batches mean a backlog: keep going. A partial one took all there was; commits
        // made meanwhile have set `again`, and the next pass lingers to gather them.
        drainedThisPass = new Set()
        for (let more = true; !stopping && more; ) {
          const batch = await indexBatch()
          more = batch.more
          if (batch.indexed > 0) lastIndexedAt = Date.now()
        }
        lastPass = { endedAt: performance.now(), tookMs: performance.now() - started }
      }
    } catch (err) {
      if (isTransientPgError(err)) {
        const code = pgErrorCode(err)
        // The queued events are intact; those waiting on idle() keep waiting for the retry.
        // A deadlock or serialization failure is retried at once; an unreachable database later.
        const delay = code?.startsWith('40') ? 20 : retryMs
        logger.warn({ err }, `indexing failed; retrying in ${delay} ms`)
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

  function wake(): void {
    if (stopping) return
    if (waiters.length > 0) wakeLinger?.()
    again = true
    if (running) return
    running = run().finally(() => {
      running = null
      if (again) wake()
    })
  }

  return {
    wake,
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
