// The job runner: claims due jobs of its kinds from the jobs table (jobs.ts) and runs their
// handlers, in every Errata process at once if there are several on one PostgreSQL database. A
// process runs one runner per family of kinds (server/background-jobs.ts), each with its own slots.
import { isDatabaseUnavailable, logDatabaseUnavailable } from '../db/pg-errors.ts'
import { randomBytes } from 'node:crypto'
import { sql, type SQL } from 'drizzle-orm'
import type { Logger } from 'pino'
import { systemClock, type Clock } from '../clock.ts'
import { queryRows, withTransaction, type Database, type Db } from '../db/client.ts'
import { textArrayLiteral } from '../db/text-array.ts'
import { JobDeferredError, LeaseLostError, type JobContext, type JobHandler } from './jobs.ts'

export interface JobRunnerOptions {
  database: Database
  logger: Logger
  handlers: readonly JobHandler<never>[]
  /** Decides when queued jobs are due (run_at); leases use the database's own clock. */
  clock?: Clock
  /** How often to look for due jobs besides wake(). */
  pollMs?: number
  /** How long a claim holds a job without renewing; renewed every third of it while running. */
  leaseMs?: number
  /** Jobs run at once by this runner. */
  concurrency?: number
  /** How long stop() waits for running jobs to stop when asked before it hands them back all the same. */
  stopGraceMs?: number
  /** Wait before attempt n + 1 after n failed: doubles from `retryBaseMs` up to `retryMaxMs`, ±20 %. */
  retryBaseMs?: number
  retryMaxMs?: number
}

interface ClaimedRow {
  id: string
  kind: string
  payload: Record<string, unknown>
  attempts: number
  max_attempts: number
  lock_token: string
}

class StopRequestedError extends Error {
  constructor() {
    super('the job runner is stopping')
    this.name = 'StopRequestedError'
  }
}

const PRUNE_EVERY_MS = 3_600_000

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 2000)

/**
 * Claims due jobs of its handlers' kinds and runs them, `concurrency` at a time. Its state is
 * below: the jobs it runs, whether it is stopping, its timers and the look for due jobs in flight.
 */
export class JobRunner {
  private readonly database: Database
  private readonly db: Db
  private readonly logger: Logger
  private readonly clock: Clock
  private readonly pollMs: number
  private readonly leaseMs: number
  private readonly concurrency: number
  private readonly stopGraceMs: number
  private readonly retryBaseMs: number
  private readonly retryMaxMs: number
  private readonly handlers: Map<string, JobHandler<Record<string, unknown>>>
  /** This runner's kinds, as a text[] literal for its queries. */
  private readonly kinds: string
  /** Kinds whose payload stays in the database (JobHandler.readsPayload): the claim answers NULL. */
  private readonly unreadKinds: string
  /** How long a claim holds a job, as an SQL interval. */
  private readonly lease: SQL

  /** The jobs this runner has claimed and runs, by id. */
  private readonly running = new Map<string, { row: ClaimedRow; done: Promise<void>; controller: AbortController }>()
  private stopping = false
  private timer: NodeJS.Timeout | null = null
  private pruneTimer: NodeJS.Timeout | null = null
  /** The look for due jobs in flight; `again` when a wake came meanwhile. */
  private ticking: Promise<void> | null = null
  private again = false
  /** The recovery of jobs cut off by the last stop, once (recoverOrphans). */
  private recovered: Promise<void> | null = null

  constructor(options: JobRunnerOptions) {
    this.database = options.database
    this.db = options.database.db
    this.logger = options.logger
    this.clock = options.clock ?? systemClock
    this.pollMs = options.pollMs ?? 1000
    this.leaseMs = options.leaseMs ?? 30_000
    this.concurrency = options.concurrency ?? 2
    this.stopGraceMs = options.stopGraceMs ?? 10_000
    this.retryBaseMs = options.retryBaseMs ?? 2000
    this.retryMaxMs = options.retryMaxMs ?? 5 * 60_000
    this.handlers = new Map(options.handlers.map((h) => [h.kind, h as unknown as JobHandler<Record<string, unknown>>]))
    this.kinds = textArrayLiteral(this.handlers.keys())
    this.unreadKinds = textArrayLiteral([...this.handlers.values()].filter((h) => h.readsPayload === false).map((h) => h.kind))
    this.lease = sql`make_interval(secs => ${this.leaseMs / 1000})`
  }

  /** Starts polling (and picks up at once what an earlier run left). */
  start(): void {
    if (this.timer || this.stopping) return
    this.timer = setInterval(() => void this.tick(), this.pollMs)
    this.timer.unref()
    this.pruneTimer = setInterval(() => void this.prune(), PRUNE_EVERY_MS)
    this.pruneTimer.unref()
    void this.tick()
  }

  /** Looks for due jobs now (after enqueueing one). */
  wake(): void {
    if (!this.stopping) void this.tick()
  }

  /**
   * Runs due jobs until none is left due and none is running (tests, and scripts that need a
   * result). Jobs enqueued by the jobs it runs are run too.
   */
  async drain(): Promise<void> {
    for (;;) {
      await this.tick()
      if (this.running.size === 0) {
        // Nothing running: one more look, in case a job finished between the claim and here.
        await this.tick()
        if (this.running.size === 0) return
      }
      await Promise.race([...this.running.values()].map((r) => r.done))
    }
  }

  /**
   * Stops claiming, aborts running jobs (their `signal`: at their next safe point, an HTTP call at
   * once) and hands them back to the queue; one still running after the grace is handed back
   * anyway (its late outcome is fenced off), so this ends within the grace whatever jobs do.
   */
  async stop(): Promise<void> {
    this.stopping = true
    if (this.timer) clearInterval(this.timer)
    if (this.pruneTimer) clearInterval(this.pruneTimer)
    this.timer = null
    // A claim in flight may still start a job: abort after it.
    await this.ticking
    for (const { controller } of this.running.values()) controller.abort(new StopRequestedError())
    let graceTimer: NodeJS.Timeout | undefined
    const graceOver = new Promise<void>((resolve) => (graceTimer = setTimeout(resolve, this.stopGraceMs)))
    await Promise.race([Promise.all([...this.running.values()].map((r) => r.done)), graceOver])
    clearTimeout(graceTimer)
    const stuck = [...this.running.values()].map((r) => r.row)
    if (stuck.length === 0) return
    // Its lease is returned: the next start or another process takes it at once, and whatever
    // it still does is fenced off (its lock token is gone).
    this.logger.warn({ jobs: stuck.map((row) => ({ id: row.id, kind: row.kind })), graceMs: this.stopGraceMs }, 'jobs still running at stop are handed back')
    // The database away: their leases run out instead (at once for the next start on the embedded database).
    await this.handBack(stuck).catch((err: unknown) => this.logger.warn({ err }, 'handing back jobs at stop failed'))
  }

  /** Finished jobs are kept a while for inspection (attempts, last error), then removed. */
  private async prune(): Promise<void> {
    try {
      await this.db.execute(sql`DELETE FROM jobs WHERE kind = ANY(${this.kinds}::text[]) AND ((state = 'completed' AND finished_at < now() - interval '7 days')
        OR (state = 'failed' AND finished_at < now() - interval '30 days'))`)
    } catch (err) {
      this.logger.warn({ err }, 'removing old finished jobs failed')
    }
  }

  /**
   * A database no other process uses (the embedded one, Database.sharedByProcesses): a job of this
   * runner's kinds still marked running was cut off by a crash or a kill, and is due again at once
   * rather than after its lease. (Other kinds belong to the process's other runners.)
   */
  private recoverOrphans(): Promise<void> {
    this.recovered ??= (async () => {
      if (this.database.sharedByProcesses) return
      const rows = await queryRows<{ id: string }>(
        this.db,
        sql`UPDATE jobs SET state = 'queued', lock_token = NULL, locked_until = NULL, updated_at = now()
          WHERE state = 'running' AND kind = ANY(${this.kinds}::text[]) RETURNING id`,
      )
      if (rows.length > 0) this.logger.warn({ jobs: rows.map((r) => r.id) }, 'jobs cut off by the last stop are queued again')
    })().catch((err: unknown) => {
      // The database was away: try again at the next tick rather than fail every tick with this.
      this.recovered = null
      throw err
    })
    return this.recovered
  }

  /** One due job, claimed for this process: queued and due, or running with its lease run out. */
  private async claim(): Promise<ClaimedRow | null> {
    const token = randomBytes(12).toString('hex')
    const rows = await queryRows<ClaimedRow>(
      this.db,
      sql`UPDATE jobs j SET state = 'running', attempts = j.attempts + 1, lock_token = ${token},
          locked_until = now() + ${this.lease}, updated_at = now()
        FROM (SELECT id FROM jobs
              WHERE kind = ANY(${this.kinds}::text[])
                AND ((state = 'queued' AND run_at <= ${this.clock().toISOString()}::timestamptz)
                  OR (state = 'running' AND locked_until < now()))
              ORDER BY run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED) c
        WHERE j.id = c.id
        RETURNING j.id, j.kind, CASE WHEN j.kind = ANY(${this.unreadKinds}::text[]) THEN NULL ELSE j.payload END AS payload,
          j.attempts, j.max_attempts, j.lock_token`,
    )
    const row = rows[0]
    if (row) row.payload ??= {}
    return row ?? null
  }

  private async renew(row: ClaimedRow): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      this.db,
      sql`UPDATE jobs SET locked_until = now() + ${this.lease}, updated_at = now()
        WHERE id = ${row.id} AND lock_token = ${row.lock_token} AND state = 'running' RETURNING id`,
    )
    return rows.length > 0
  }

  /** The claimed job's row, locked, while this claim holds it (JobContext.heldRow). */
  private heldRow(row: ClaimedRow): SQL {
    return sql`SELECT id, payload FROM jobs WHERE id = ${row.id} AND lock_token = ${row.lock_token} AND state = 'running' FOR UPDATE`
  }

  private async fence(tx: Db, row: ClaimedRow): Promise<void> {
    const rows = await queryRows<{ id: string }>(tx, sql`SELECT id FROM (${this.heldRow(row)}) held`)
    if (rows.length === 0) throw new LeaseLostError(row.id)
  }

  private backoffMs(attempt: number): number {
    const base = Math.min(this.retryBaseMs * 2 ** (attempt - 1), this.retryMaxMs)
    return Math.round(base * (0.8 + Math.random() * 0.4))
  }

  private async settle(row: ClaimedRow, handler: JobHandler<Record<string, unknown>> | undefined, err: unknown): Promise<void> {
    const owned = sql`id = ${row.id} AND lock_token = ${row.lock_token} AND state = 'running'`
    if (err === undefined) {
      await this.db.execute(sql`UPDATE jobs SET state = 'completed', lock_token = NULL, locked_until = NULL,
        finished_at = now(), updated_at = now() WHERE ${owned}`)
      this.logger.debug({ job: row.id, kind: row.kind, attempt: row.attempts }, 'job completed')
      return
    }
    if (err instanceof LeaseLostError) {
      this.logger.warn({ job: row.id, kind: row.kind }, err.message)
      return
    }
    if (err instanceof JobDeferredError) {
      const runAt = new Date(this.clock().getTime() + err.delayMs)
      this.logger.debug({ job: row.id, kind: row.kind, runAt: runAt.toISOString(), reason: err.message }, 'job deferred')
      await this.db.execute(sql`UPDATE jobs SET state = 'queued', attempts = greatest(attempts - 1, 0), run_at = ${runAt.toISOString()}::timestamptz,
        lock_token = NULL, locked_until = NULL, updated_at = now() WHERE ${owned}`)
      return
    }
    if (err instanceof StopRequestedError || (this.stopping && err instanceof Error && err.name === 'AbortError')) {
      await this.handBack([row])
      return
    }
    const message = handler ? messageOf(err) : `no handler for job kind ${row.kind}`
    if (row.attempts >= row.max_attempts) {
      this.logger.error({ err, job: row.id, kind: row.kind, attempts: row.attempts }, 'job failed its last attempt; giving up')
      await withTransaction(this.db, async (tx) => {
        const failed = await queryRows<{ id: string }>(
          tx,
          sql`UPDATE jobs SET state = 'failed', last_error = ${message}, lock_token = NULL, locked_until = NULL,
            finished_at = now(), updated_at = now() WHERE ${owned} RETURNING id`,
        )
        if (failed.length > 0) await handler?.failed?.(tx, { id: row.id, payload: row.payload, error: message })
      })
      return
    }
    const runAt = new Date(this.clock().getTime() + (handler?.retryDelayMs?.(row.attempts) ?? this.backoffMs(row.attempts)))
    this.logger.warn({ err, job: row.id, kind: row.kind, attempt: row.attempts, retryAt: runAt.toISOString() }, 'job failed; will retry')
    await this.db.execute(sql`UPDATE jobs SET state = 'queued', last_error = ${message}, run_at = ${runAt.toISOString()}::timestamptz,
      lock_token = NULL, locked_until = NULL, updated_at = now() WHERE ${owned}`)
  }

  /** Not a failure: handed back as they were, due at once for the next process or start. */
  private async handBack(rows: ClaimedRow[]): Promise<void> {
    for (const row of rows) {
      await this.db.execute(sql`UPDATE jobs SET state = 'queued', attempts = greatest(attempts - 1, 0), lock_token = NULL,
        locked_until = NULL, updated_at = now() WHERE id = ${row.id} AND lock_token = ${row.lock_token} AND state = 'running'`)
    }
  }

  private async execute(row: ClaimedRow): Promise<void> {
    const handler = this.handlers.get(row.kind)
    const controller = new AbortController()
    const heartbeat = setInterval(() => {
      this.renew(row)
        .then((held) => {
          if (!held) controller.abort(new LeaseLostError(row.id))
        })
        // The database is away: keep going; if the lease runs out meanwhile, fence() tells.
        .catch((err: unknown) => this.logger.warn({ err, job: row.id }, 'renewing a job lease failed'))
    }, Math.max(50, Math.floor(this.leaseMs / 3)))
    const done = (async () => {
      let outcome: unknown
      try {
        if (!handler) throw new Error(`no handler for job kind ${row.kind}`)
        if (row.attempts > row.max_attempts) throw new Error(`gave up after ${row.max_attempts} attempts (the last were cut off)`)
        const context: JobContext<Record<string, unknown>> = {
          id: row.id,
          kind: row.kind,
          payload: row.payload,
          attempt: row.attempts,
          maxAttempts: row.max_attempts,
          signal: controller.signal,
          fence: (tx) => this.fence(tx, row),
          heldRow: this.heldRow(row),
        }
        await handler.run(context)
      } catch (err) {
        outcome = controller.signal.aborted && !(err instanceof LeaseLostError) ? (controller.signal.reason ?? err) : err
        if (outcome === undefined) outcome = new Error('job failed')
      } finally {
        clearInterval(heartbeat)
      }
      try {
        await this.settle(row, handler, outcome)
      } catch (err) {
        // The lease runs out and the job is claimed again.
        this.logger.error({ err, job: row.id }, 'recording the outcome of a job failed')
      }
      this.running.delete(row.id)
    })()
    this.running.set(row.id, { row, done, controller })
    await done
  }

  /** Claims while there is room; each finished job looks again. */
  private async tick(): Promise<void> {
    if (this.ticking) {
      this.again = true
      return this.ticking
    }
    this.ticking = (async () => {
      try {
        await this.recoverOrphans()
        do {
          this.again = false
          while (!this.stopping && this.running.size < this.concurrency) {
            const row = await this.claim()
            if (!row) break
            void this.execute(row).then(() => {
              if (!this.stopping) void this.tick()
            })
          }
        } while (this.again && !this.stopping)
      } catch (err) {
        // Polled every second: an outage is said once per 10 s.
        if (isDatabaseUnavailable(err)) logDatabaseUnavailable(this.logger, err)
        else this.logger.warn({ err }, 'looking for due jobs failed')
      } finally {
        this.ticking = null
      }
    })()
    return this.ticking
  }
}
