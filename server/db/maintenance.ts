import { isDatabaseUnavailable, logDatabaseUnavailable } from './pg-errors.ts'
import { sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { queryRows, type Database } from './client.ts'
import { textArrayLiteral } from './text-array.ts'

// Tables rewritten on every ingest batch (counters, arrays, windows, the batch's attempt, how far
// the indexer got) first, then the job queue's (every claim, lease renewal and settle rewrites a
// job's row; a claim walks the dead ones until a VACUUM) and other rows rewritten as the server
// runs (a token's last use), then insert-mostly ones, where VACUUM mostly sets visibility-map
// bits so count(*) can use index-only scans.
const TABLES = [
  'errors',
  'error_users',
  'projects',
  'project_event_windows',
  'rollup_watermarks',
  'ingest_journals',
  'ingest_attempts',
  'session_counts',
  'crashed_sessions',
  'ingest_log',
  'jobs',
  'webhook_deliveries',
  'event_data_deletion_work',
  'auth_tokens',
  'pivot_counts',
  'error_hourly_counts',
  'project_hourly_counts',
  'events',
  'event_payloads',
] as const

/**
 * VACUUM (ANALYZE) each table once, then where the engine does not maintain itself a CHECKPOINT.
 * Each statement runs alone: VACUUM cannot run inside a transaction block or a multi-statement
 * string.
 *
 * The CHECKPOINT because PGlite runs single-user, without a checkpointer: write-ahead log segments
 * are recycled or removed only at a checkpoint, and single-user PostgreSQL never requests one
 * however much log it writes (only at shutdown). Without it pg_wal grew by every write for as long
 * as the server ran, 16 MB segment after segment, though VACUUM let the tables reuse their space.
 */
export async function runMaintenance(database: Database): Promise<void> {
  for (const table of TABLES) await database.execScript(`VACUUM (ANALYZE) ${table}`)
  if (!database.maintainsItself) await database.execScript('CHECKPOINT')
}

/**
 * ANALYZE each table whose rows changed enough since its last ANALYZE, by autovacuum's own
 * rule (50 rows plus 10 % of the table). Returns the tables analyzed.
 */
export async function analyzeChangedTables(database: Database): Promise<string[]> {
  const tables = await queryRows<{ relname: string; live: number | string; modified: number | string }>(
    database.db,
    sql`SELECT relname, n_live_tup AS live, n_mod_since_analyze AS modified FROM pg_stat_user_tables
        WHERE relname = ANY(${textArrayLiteral(TABLES)}::text[])`,
  )
  const due = tables.filter((t) => Number(t.modified) > 50 + 0.1 * Number(t.live)).map((t) => t.relname)
  for (const table of due) await database.execScript(`ANALYZE ${table}`)
  return due
}

interface MaintenanceIntervals {
  /** VACUUM (ANALYZE) of every table. */
  vacuumMs: number
  /** The check for tables due an ANALYZE. */
  analyzeMs: number
}

/**
 * PostgreSQL vacuums and analyzes on its own (autovacuum); PGlite runs single-user and
 * never does. Without VACUUM every ingest, which updates its error's row, would leave dead
 * tuples in `errors` and its indexes forever. Without fresh statistics the planner takes a
 * table that grew from nothing for empty, and picks plans that scan it once per row of
 * another: on a new install, the first few thousand errors made a page of sparklines take
 * two seconds (and PGlite's one connection held every other request meanwhile). So every
 * `analyzeMs` the tables due an ANALYZE get one, as autovacuum would. Returns a stop
 * function; a no-op where the engine maintains itself (Database.maintainsItself).
 */
export function startMaintenance(
  database: Database,
  logger: Logger,
  intervals: MaintenanceIntervals = { vacuumMs: 10 * 60_000, analyzeMs: 30_000 },
): () => void {
  if (database.maintainsItself) return () => {}
  let running = false
  // One task at a time: they share PGlite's single connection.
  const run = (task: () => Promise<void>) => () => {
    if (running) return
    running = true
    task()
      .catch((err: unknown) => (isDatabaseUnavailable(err) ? logDatabaseUnavailable(logger, err) : logger.warn({ err }, 'database maintenance failed')))
      .finally(() => (running = false))
  }
  const vacuum = setInterval(
    run(async () => {
      const started = performance.now()
      await runMaintenance(database)
      logger.info({ ms: Math.round(performance.now() - started) }, 'database maintenance done')
    }),
    intervals.vacuumMs,
  )
  const analyze = setInterval(
    run(async () => {
      const started = performance.now()
      const tables = await analyzeChangedTables(database)
      if (tables.length > 0) logger.debug({ tables, ms: Math.round(performance.now() - started) }, 'planner statistics updated')
    }),
    intervals.analyzeMs,
  )
  vacuum.unref()
  analyze.unref()
  return () => {
    clearInterval(vacuum)
    clearInterval(analyze)
  }
}
