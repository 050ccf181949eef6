import type { Logger } from 'pino'
import type { Database } from './client.ts'

// Tables rewritten on every ingest batch (counters, arrays) first; insert-mostly ones after,
// where VACUUM mostly sets visibility-map bits so count(*) can use index-only scans.
const TABLES = [
  'errors',
  'error_users',
  'projects',
  'session_counts',
  'ingest_queue',
  'pivot_counts',
  'error_hourly_counts',
  'project_hourly_counts',
  'events',
  'event_payloads',
] as const

/**
 * VACUUM (ANALYZE) each table once. Each statement runs alone: VACUUM cannot run inside
 * a transaction block or a multi-statement string.
 */
export async function runMaintenance(database: Database): Promise<void> {
  for (const table of TABLES) await database.execScript(`VACUUM (ANALYZE) ${table}`)
}

/**
 * PostgreSQL vacuums on its own (autovacuum); PGlite runs single-user and never does, so
 * without this every ingest, which updates its error's row, would leave dead tuples in
 * `errors` and its six indexes forever. Returns a stop function; no-op on PostgreSQL.
 */
export function startMaintenance(database: Database, logger: Logger, intervalMs = 10 * 60_000): () => void {
  if (database.engine !== 'pglite') return () => {}
  let running = false
  const timer = setInterval(() => {
    if (running) return
    running = true
    const started = performance.now()
    runMaintenance(database)
      .then(() => logger.info({ ms: Math.round(performance.now() - started) }, 'database maintenance done'))
      .catch((err: unknown) => logger.warn({ err }, 'database maintenance failed'))
      .finally(() => (running = false))
  }, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
