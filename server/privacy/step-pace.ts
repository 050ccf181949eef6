// How a long privacy job (a deletion's batches and finishing steps, an export's reads) shares
// the database with requests: how long each step should take, and what happens between two.
import type { Database } from '../db/client.ts'
import { BATCH_TARGET_MS } from './batch-size.ts'

export interface StepPace {
  /** How long one step should take (nextBatchSize sizes the next one by it). */
  targetMs: number
  /** The fewest events a deletion batch takes, whatever its time. */
  minBatch: number
  /** Between two steps; throws when `signal` aborts (the job must stop). */
  between(lastStepMs: number, signal: AbortSignal): Promise<void>
}

/** The longest a job waits between two steps, whatever its last step took. */
const MAX_PAUSE_MS = 1000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.ceil(ms))))

/**
 * PostgreSQL: a pause half as long as the last step, so that the job holds its project's lock at
 * most two thirds of the time, a step at a time (ingestion's indexing and triage of the project
 * wait for it; reads do not, and acknowledging events does not). A pause as long as the step
 * made 100,000 events of 1,000,000 take 22 minutes with the errors list's p95 at 1.2× (the
 * target is 2×): the reads had room to spare, the deletion did not.
 */
const PG_PAUSE_SHARE = 0.5

export function dutyCyclePace(targetMs = BATCH_TARGET_MS): StepPace {
  return {
    targetMs,
    minBatch: 10,
    async between(lastStepMs, signal) {
      signal.throwIfAborted()
      await sleep(Math.min(MAX_PAUSE_MS, PG_PAUSE_SHARE * lastStepMs))
      signal.throwIfAborted()
    },
  }
}

/**
 * On PGlite a step's transaction holds the only connection: a request that arrives meanwhile
 * waits for it to end. Between two steps the job steps aside while requests are being served:
 * it goes on once the engine has been free of them for PGLITE_QUIET_MS (at once when nobody
 * reads), and at the latest after PGLITE_STEP_ASIDE times its last step (at most
 * PGLITE_MAX_PAUSE_MS), so that a dashboard read without a pause still lets the job through:
 * it then holds the engine about a seventh of the time.
 *
 * A step there has a fixed cost, its statements', which dominates a small batch: 10 events took
 * 140–230 ms and 50 events 190–300 ms on the loaded 2-core bench machine (with about 15
 * statements a batch; fewer now, see removeEventsFromRollups). A batch
 * takes at least PGLITE_MIN_BATCH events, so that each interruption of the readers deletes
 * several times more: a request that meets one waits about as long, and fewer requests meet one.
 */
export const PGLITE_BATCH_TARGET_MS = 100
const PGLITE_MIN_BATCH = 50
export const PGLITE_QUIET_MS = 20
const PGLITE_STEP_ASIDE = 6
const PGLITE_MAX_PAUSE_MS = 2000

export function yieldingPace(idleForMs: () => number, targetMs = PGLITE_BATCH_TARGET_MS): StepPace {
  return {
    targetMs,
    minBatch: PGLITE_MIN_BATCH,
    async between(lastStepMs, signal) {
      const deadline = performance.now() + Math.min(PGLITE_MAX_PAUSE_MS, PGLITE_STEP_ASIDE * lastStepMs)
      for (;;) {
        signal.throwIfAborted()
        const idle = idleForMs()
        const left = deadline - performance.now()
        if (idle >= PGLITE_QUIET_MS || left <= 0) return
        // While a request is in flight, look again soon: it may end any moment.
        await sleep(Math.min(left, idle > 0 ? PGLITE_QUIET_MS - idle : 2))
      }
    },
  }
}

/** The pace for a database: yielding to requests where it reports them (PGlite), a duty cycle elsewhere. */
export function stepPaceFor(database: Pick<Database, 'idleForMs'>): StepPace {
  const idleForMs = database.idleForMs?.bind(database)
  return idleForMs ? yieldingPace(idleForMs) : dutyCyclePace()
}
