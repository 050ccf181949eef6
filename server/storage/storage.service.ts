// Disk use: a project's (its events, their payloads, its source maps and privacy exports) and this
// server's (the database, DATA_DIR's file system). docs/operations.md, "Disk space", says how each
// is measured and what it costs.
import { lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import type { ProjectStorage, ServerStorage } from '../../contract/storage.ts'
import type { ProjectScope } from '../auth/scope.ts'
import type { AppDeps } from '../context.ts'
import { queryRows, type Database, type Db } from '../db/client.ts'

/**
 * The latest events whose rows and payloads are measured: a project's events are that many times
 * their count, so the cost stays that of a count on an index and this many lookups however many
 * events the project keeps. Projects with fewer are measured whole.
 */
export const SAMPLED_EVENTS = 1000

/** How long a measurement of the database stands: the dashboard's banner asks every minute, /readyz more often. */
const DATABASE_MEASURE_MS = 60_000

export async function projectStorage(db: Db, { projectId }: ProjectScope): Promise<ProjectStorage> {
  const measuredAt = new Date()
  const [row] = await queryRows<{
    events: number | string
    sampled: number | string
    row_bytes: number | string | null
    payloads: number | string
    payload_bytes: number | string | null
    source_maps: number | string
    source_map_bytes: number | string | null
    exports: number | string
    export_bytes: number | string | null
  }>(
    db,
    sql`WITH sample AS (
          SELECT pg_column_size(e.*) AS row_bytes, pg_column_size(p.payload) AS payload_bytes
          FROM (SELECT * FROM events WHERE project_id = ${projectId} ORDER BY seq DESC LIMIT ${SAMPLED_EVENTS}) e
          LEFT JOIN event_payloads p ON p.event_id = e.id
        )
        SELECT (SELECT count(*) FROM events WHERE project_id = ${projectId}) AS events,
          (SELECT count(*) FROM sample) AS sampled,
          (SELECT sum(row_bytes) FROM sample) AS row_bytes,
          (SELECT count(payload_bytes) FROM sample) AS payloads,
          (SELECT sum(payload_bytes) FROM sample) AS payload_bytes,
          (SELECT count(*) FROM source_maps WHERE project_id = ${projectId}) AS source_maps,
          (SELECT sum(stored_bytes) FROM source_maps WHERE project_id = ${projectId}) AS source_map_bytes,
          (SELECT count(*) FROM event_data_requests WHERE project_id = ${projectId} AND file_key IS NOT NULL AND file_removed_at IS NULL) AS exports,
          (SELECT sum(file_bytes) FROM event_data_requests WHERE project_id = ${projectId} AND file_key IS NOT NULL AND file_removed_at IS NULL) AS export_bytes`,
  )
  const n = (value: number | string | null | undefined) => Number(value ?? 0)
  const events = n(row?.events)
  const sampled = n(row?.sampled)
  // Scaled from the sample to all of the project's events; exact when the sample is all of them.
  const scale = sampled === 0 ? 0 : events / sampled
  const eventBytes = Math.round(n(row?.row_bytes) * scale)
  const payloads = { count: Math.round(n(row?.payloads) * scale), bytes: Math.round(n(row?.payload_bytes) * scale) }
  const sourceMaps = { count: n(row?.source_maps), bytes: n(row?.source_map_bytes) }
  const exports = { count: n(row?.exports), bytes: n(row?.export_bytes) }
  return {
    measured_at: measuredAt.toISOString(),
    total_bytes: eventBytes + payloads.bytes + sourceMaps.bytes + exports.bytes,
    events: { count: events, bytes: eventBytes },
    payloads,
    sampled_events: sampled,
    source_maps: sourceMaps,
    privacy_exports: exports,
  }
}

type DatabaseSize = ServerStorage['database']

const measured = new WeakMap<Database, { size: Promise<DatabaseSize>; at: number }>()

/**
 * The database's size (and on the embedded database DATA_DIR's), measured at most once a minute
 * whoever asks: pg_database_size stats every file of the database, and DATA_DIR is walked whole.
 */
export function databaseSize({ database, config }: Pick<AppDeps, 'database' | 'config'>): Promise<DatabaseSize> {
  const last = measured.get(database)
  if (last && performance.now() - last.at < DATABASE_MEASURE_MS) return last.size
  const size = measureDatabase(database, config.dataDir)
  measured.set(database, { size, at: performance.now() })
  // A failed measurement is not kept: the next caller tries again.
  size.catch(() => measured.delete(database))
  return size
}

async function measureDatabase(database: Database, dataDir: string): Promise<DatabaseSize> {
  const [row] = await queryRows<{ bytes: number | string }>(database.db, sql`SELECT pg_database_size(current_database()) AS bytes`)
  return {
    engine: database.engine,
    bytes: Number(row?.bytes ?? 0),
    data_dir_bytes: database.engine === 'pglite' ? await sizeOnDisk(dataDir).catch(() => null) : null,
    measured_at: new Date().toISOString(),
  }
}

/** Bytes a directory's files take on disk (allocated blocks, so sparse files count what they use). */
export async function sizeOnDisk(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  let bytes = 0
  for (const entry of entries) {
    if (!entry.isFile()) continue
    // A file removed since the listing (a journal segment) counts for nothing.
    const stats = await lstat(join(entry.parentPath, entry.name)).catch(() => null)
    if (stats) bytes += stats.blocks * 512
  }
  return bytes
}

/** This server's disk use: the database and DATA_DIR's file system as the low disk guard last saw it. */
export async function serverStorage(deps: AppDeps): Promise<ServerStorage> {
  const disk = deps.diskGuard?.current() ?? null
  return {
    database: await databaseSize(deps),
    disk: disk && {
      free_bytes: disk.freeBytes,
      total_bytes: disk.totalBytes,
      min_free_bytes: disk.minFreeBytes,
      low: disk.low,
      checked_at: new Date(disk.checkedAt).toISOString(),
    },
  }
}
