import { systemClock, type Clock } from '../clock.ts'
import { perApp, type AppDeps } from '../context.ts'
import type { Database } from '../db/client.ts'
import type { ThreadPlugin } from '../db/pglite-thread.ts'
import { runDeletionStep, type DeletionStepRunner } from './delete-events.ts'
import { retrievalFileStore, type RetrievalFileStore } from './retrieval-files.ts'
import { stepPace, type StepPace } from './step-pace.ts'
import { waitForIngestedBefore, type WaitForIngestedBefore } from './wait-for-ingested.ts'

/** What privacy requests need beyond the app's own dependencies; tests pass their own (a clock they move). */
export interface PrivacyDeps {
  clock: Clock
  files: RetrievalFileStore
  waitForIngestedBefore: WaitForIngestedBefore
  /** Starts queued jobs at once (the job runner's wake); a no-op where no runner runs. */
  wakeJobs(): void
  /** Events per deletion batch (one transaction each) and per export read. */
  batchSize: number
  /** How long a deletion's or an export's steps take and what happens between two (step-pace.ts). */
  pace: StepPace
  /** Where a deletion's steps run (on PGlite, on the engine's thread). */
  runDeletionStep: DeletionStepRunner
}

/**
 * A deletion's steps: on PGlite's thread when the database has one (deletion-thread.ts, loaded at
 * the first step), else here.
 */
function deletionStepRunner(database: Database): DeletionStepRunner {
  const { loadThreadPlugin } = database
  if (!loadThreadPlugin) return (step) => runDeletionStep(database.db, step)
  let plugin: Promise<ThreadPlugin> | null = null
  return async (step) => {
    plugin ??= loadThreadPlugin(new URL('./deletion-thread.ts', import.meta.url), null).catch((err: unknown) => {
      plugin = null
      throw err
    })
    return (await plugin).call(step)
  }
}

declare module '../context.ts' {
  interface AppDeps {
    /** Privacy requests' clock, file store and job wake-up; defaults when absent (privacyDeps). */
    privacy?: PrivacyDeps
  }
}

const defaults = perApp((deps) => defaultPrivacyDeps(deps))

/** The app's privacy dependencies: those given (server/main.ts, tests), else defaults made once. */
export const privacyDeps = (deps: AppDeps): PrivacyDeps => deps.privacy ?? defaults(deps)

export function defaultPrivacyDeps(deps: Pick<AppDeps, 'database' | 'config' | 'ingestWriter'>, overrides: Partial<PrivacyDeps> = {}): PrivacyDeps {
  return {
    clock: systemClock,
    files: retrievalFileStore(deps.database, deps.config.dataDir),
    waitForIngestedBefore: waitForIngestedBefore(deps.database, deps.ingestWriter),
    wakeJobs: () => {},
    batchSize: deps.config.privacyBatchSize,
    pace: stepPace(deps.database),
    runDeletionStep: deletionStepRunner(deps.database),
    ...overrides,
  }
}
