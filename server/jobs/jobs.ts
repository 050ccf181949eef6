// Durable jobs in the database: what a handler sees, and how work is queued. The runner that
// claims and runs them is job-runner.ts; docs/architecture.md ("Background jobs") explains both.
import { sql, type SQL } from 'drizzle-orm'
import { queryRows, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'

/** Attempts before a job is given up (FAILED), unless its handler or enqueue says otherwise. */
export const DEFAULT_MAX_ATTEMPTS = 10

export interface EnqueueOptions {
  /** When it may run first; default: now. */
  runAt?: Date
  /**
   * At most one unfinished job per (kind, key): enqueueing again while one is queued or
   * running adds nothing (and returns null).
   */
  key?: string
  maxAttempts?: number
}

/**
 * Queues a job. Call it with the transaction that makes the state the job acts on, so both
 * commit or neither does; then wake the runner (JobRunner.wake) to start it at once.
 */
export async function enqueueJob(
  db: Db,
  kind: string,
  payload: Record<string, unknown>,
  now: Date,
  options: EnqueueOptions = {},
): Promise<string | null> {
  const id = newId()
  const rows = await queryRows<{ id: string }>(
    db,
    sql`INSERT INTO jobs (id, kind, key, payload, run_at, max_attempts)
      VALUES (${id}, ${kind}, ${options.key ?? null}, ${JSON.stringify(payload)}::jsonb,
              ${(options.runAt ?? now).toISOString()}::timestamptz, ${options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS})
      ON CONFLICT (kind, key) WHERE key IS NOT NULL AND state IN ('queued', 'running') DO NOTHING
      RETURNING id`,
  )
  return rows[0]?.id ?? null
}

/**
 * Queues one job per row a query yields as `(id, payload, run_at)` (ids from newId() or, for a
 * job that acts on one row, that row's id): the statement to end a data-modifying WITH that writes
 * the rows the jobs act on, so a batch's rows and their jobs are one statement in the caller's
 * transaction (queue-deliveries.ts). No keys.
 */
export function insertJobsFrom(source: SQL, kind: string, options: Omit<EnqueueOptions, 'key' | 'runAt'> = {}): SQL {
  return sql`INSERT INTO jobs (id, kind, payload, run_at, max_attempts)
    SELECT j.id, ${kind}, j.payload, j.run_at, ${options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS}
    FROM (${source}) AS j(id, payload, run_at)`
}

/** One claim of a job, as its handler sees it. */
export interface JobContext<P> {
  readonly id: string
  readonly kind: string
  readonly payload: P
  /** 1 on the first run; a run cut off by a crash counts too. */
  readonly attempt: number
  readonly maxAttempts: number
  /**
   * Aborted when this claim lost the job (its lease ran out and another worker took it) or the
   * runner is stopping: stop at the next safe point (between batches) by calling throwIfAborted().
   */
  readonly signal: AbortSignal
  /**
   * In the transaction that commits a job's outcome: locks the job row and throws LeaseLostError
   * unless this claim still holds it, so a worker that was presumed dead cannot overwrite what
   * the worker that took over did.
   */
  fence(tx: Db): Promise<void>
  /**
   * fence() as a subquery for a handler whose work is one statement, saving a transaction and a
   * round trip: `SELECT id, payload FROM jobs ... FOR UPDATE`, the job's row while this claim
   * holds it (locked until the statement's transaction ends), no row otherwise. The statement
   * must write nothing without that row, and the handler throw LeaseLostError when it had none.
   */
  readonly heldRow: SQL
}

/** What a kind of job does. Handlers must be idempotent: a job cut off by a crash runs again. */
export interface JobHandler<P = Record<string, unknown>> {
  kind: string
  run(job: JobContext<P>): Promise<void>
  /**
   * false: the claim does not read the payload back (the handler sees `{}`), for a kind whose
   * payload is large and used only inside the database (read through `heldRow`). Default true.
   */
  readsPayload?: boolean
  /**
   * The job failed its last attempt: record that where people see it. Runs in the transaction
   * that marks the job failed.
   */
  failed?(tx: Db, job: { id: string; payload: P; error: string }): Promise<void>
  /** The wait before attempt n + 1 after attempt n failed; default: the runner's backoff. */
  retryDelayMs?(attempt: number): number
}

/**
 * Thrown by a handler that cannot run yet (something it must not overlap with is under way): the
 * job goes back to the queue, due in `delayMs`, with this run not counted as an attempt and its
 * last error unchanged. Whatever ends the wait may make it due sooner (`wakeJobsWhere`).
 */
export class JobDeferredError extends Error {
  constructor(
    readonly delayMs: number,
    reason: string,
  ) {
    super(reason)
    this.name = 'JobDeferredError'
  }
}

/** Makes the queued jobs of `kind` whose payload matches `payloadWhere` (over `jobs.payload`) due now. */
export async function wakeJobsWhere(db: Db, kind: string, payloadWhere: SQL, now: Date): Promise<void> {
  await db.execute(sql`UPDATE jobs SET run_at = ${now.toISOString()}::timestamptz, updated_at = now()
    WHERE kind = ${kind} AND state = 'queued' AND run_at > ${now.toISOString()}::timestamptz AND ${payloadWhere}`)
}

/** Thrown by fence() (and reported by the runner) when another claim holds the job now. */
export class LeaseLostError extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} was taken over by another worker (its lease ran out)`)
    this.name = 'LeaseLostError'
  }
}
