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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.ceil(ms))))

/**
 * One rule, with the engine's numbers (Capabilities.backgroundPace, db/capabilities.ts): after a
 * step the job pauses `pauseShare` times as long as the step took, at most `maxPauseMs`; where the
 * engine tells how busy it is (Database.busy), it goes on earlier, once the engine has had no
 * request in flight for `quietMs`.
 */
export function stepPace(database: Pick<Database, 'backgroundPace' | 'busy'>, targetMs = BATCH_TARGET_MS): StepPace {
  const { minBatch, pauseShare, maxPauseMs, quietMs } = database.backgroundPace
  const quiet = database.busy && quietMs !== undefined ? { busy: database.busy, ms: quietMs } : null
  return {
    targetMs,
    minBatch,
    async between(lastStepMs, signal) {
      const deadline = performance.now() + Math.min(maxPauseMs, pauseShare * lastStepMs)
      for (;;) {
        signal.throwIfAborted()
        const left = deadline - performance.now()
        if (left <= 0) return
        if (!quiet) {
          await sleep(left)
          continue
        }
        const idle = quiet.busy.idleForMs()
        if (idle >= quiet.ms) return
        // While a request is in flight, look again soon: it may end any moment.
        await sleep(Math.min(left, idle > 0 ? quiet.ms - idle : 2))
      }
    },
  }
}
