/**
 * What features read instead of the engine's name (`Database.engine` is for logs and health
 * output): each says what the engine does or needs, and each engine sets all of them.
 */
export interface Capabilities {
  /**
   * Whether other processes may use the database at once (several Errata processes on one PostgreSQL).
   * When not (the embedded database: one process locks its DATA_DIR), work found marked as running
   * was cut off by this process's last stop, and files in DATA_DIR are seen by every reader.
   */
  readonly sharedByProcesses: boolean
  /** Whether the engine vacuums and analyzes its tables on its own (autovacuum); where not, maintenance.ts does. */
  readonly maintainsItself: boolean
  /** How many writing transactions may usefully run at once: 1 where one connection serializes them all. */
  readonly maxWriters: number
  /** The numbers of how a long background job steps aside for requests between two steps (privacy/step-pace.ts). */
  readonly backgroundPace: BackgroundPace
}

/** See Capabilities.backgroundPace; privacy/step-pace.ts is the rule. */
export interface BackgroundPace {
  /** The fewest events a deletion batch takes (where a step's fixed cost makes small ones dear). */
  minBatch: number
  /** The longest pause after a step, as a multiple of that step's time, and in ms. */
  pauseShare: number
  maxPauseMs: number
  /** Where the engine tells how busy it is (Database.busy): the pause ends once it has had no request for this long. */
  quietMs?: number
}

/**
 * PostgreSQL: a pause half as long as the last step, so that the job holds its project's lock at
 * most two thirds of the time, a step at a time (ingestion's indexing and triage of the project
 * wait for it; reads do not, and acknowledging events does not). A pause as long as the step
 * made 100,000 events of 1,000,000 take 22 minutes with the errors list's p95 at 1.2× (the
 * target is 2×): the reads had room to spare, the deletion did not.
 */
const POSTGRES_PACE: BackgroundPace = { minBatch: 10, pauseShare: 0.5, maxPauseMs: 1000 }

/**
 * PGlite: a step's transaction holds the only connection, and a request that arrives meanwhile
 * waits for it. Between two steps the job goes on once the engine has been free of requests for
 * `quietMs` (at once when nobody reads), and at the latest after 6 times its last step (at most
 * 2 s), so that a dashboard read without a pause still lets the job through: it then holds the
 * engine about a seventh of the time.
 *
 * A step there has a fixed cost, its statements', which dominates a small batch: 10 events took
 * 140–230 ms and 50 events 190–300 ms on the loaded 2-core bench machine. A batch takes at least
 * 50 events, so that each interruption of the readers deletes several times more: a request that
 * meets one waits about as long, and fewer requests meet one.
 */
const PGLITE_PACE: BackgroundPace = { minBatch: 50, pauseShare: 6, maxPauseMs: 2000, quietMs: 20 }

/** PGlite's, seen from the main thread (client.ts) and from its own (pglite-worker.ts). */
export const PGLITE_CAPABILITIES: Capabilities = { sharedByProcesses: false, maintainsItself: false, maxWriters: 1, backgroundPace: PGLITE_PACE }

/** PostgreSQL's, with `maxWriters` as many as ingestion keeps in flight (group commits). */
export const POSTGRES_CAPABILITIES: Capabilities = { sharedByProcesses: true, maintainsItself: true, maxWriters: 4, backgroundPace: POSTGRES_PACE }
