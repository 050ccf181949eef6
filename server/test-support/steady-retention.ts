// Steady ingest under retention, simulated day by day with a moved clock: events stored through
// the real ingest path, then what the server would have run over that day (the retention sweep,
// and on PGlite its maintenance), then the embedded database's size on disk. Shared by the
// retention test (a few days) and the bench (weeks).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { openPglite, queryRows } from '../db/client.ts'
import { openScratchPostgres } from '../db/scratch-database.ts'
import { migratedPgliteSnapshot } from '../db/migrated-template.ts'
import { runMaintenance } from '../db/maintenance.ts'
import { acceptedRequest } from '../ingest/payload/accepted-request.ts'
import { enqueueRetentionSweep } from '../retention/retention.jobs.ts'
import { sizeOnDisk } from '../storage/storage.service.ts'
import { seedProject } from './seed.ts'
import { createTestContext } from './test-app.ts'

const DAY_MS = 86_400_000

export interface SteadyRetentionOptions {
  retentionDays: number
  days: number
  eventsPerDay: number
  /** The notify body of the `i`-th event of the run (one event each). */
  payload(apiKey: string, i: number): Record<string, unknown>
  /** Run the maintenance a server on PGlite runs (startMaintenance) after each day's sweep; true unless the caller wants to see without. */
  maintain?: boolean
  /** A PostgreSQL server to run on (a scratch database of its own) rather than PGlite; no data directory then. */
  postgresUrl?: string
  /** Called after each simulated day with its row (progress output). */
  onDay?(day: SteadyRetentionDay): void
}

export interface SteadyRetentionDay {
  day: number
  /** Events stored once the day's sweep ran. */
  events: number
  /** Events the day's sweep deleted, and its wall time (no reads running meanwhile). */
  deleted: number
  sweepMs: number
  maintenanceMs: number
  /** The PGlite data directory's allocated blocks (null on PostgreSQL), and pg_database_size. */
  dataDirBytes: number | null
  /** Of which the write-ahead log (pg_wal). */
  walBytes: number | null
  databaseBytes: number
}

/**
 * A project with `retentionDays` on a PGlite of its own in a temporary data directory (or a
 * scratch PostgreSQL database), fed
 * `eventsPerDay` events a simulated day (spread over the day) for `days` days.
 */
export async function simulateSteadyRetention(options: SteadyRetentionOptions): Promise<SteadyRetentionDay[]> {
  const root = mkdtempSync(join(tmpdir(), 'errata-steady-'))
  const dataDir = join(root, 'pglite')
  // The server's clock runs `offsetMs` from the real one; each simulated day moves it a day. The
  // days simulated are the last `days` days, so that what the database's own now() prunes (the
  // rate limits' windows) goes as on a server.
  let offsetMs = -options.days * DAY_MS
  const clock = () => new Date(Date.now() + offsetMs)
  const database = options.postgresUrl
    ? await openScratchPostgres(options.postgresUrl, 'errata_steady')
    : await openPglite(dataDir, 'silent', await migratedPgliteSnapshot())
  const ctx = await createTestContext(
    { retention: { defaultDays: options.retentionDays, intervalMs: 60_000, sourceMapsKept: 20 } },
    { clock, database },
  )
  const rows: SteadyRetentionDay[] = []
  try {
    const { project } = await seedProject(ctx, { organization: 'Steady Org', project: 'Steady' })
    const db = database.db
    const count = async () =>
      (await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM events WHERE project_id = ${project.id}`))[0]!.n
    const start = clock().getTime()
    let sent = 0
    for (let day = 0; day < options.days; day++) {
      const dayStart = start + day * DAY_MS
      // Written together, as concurrent requests are: group commit stores them in batches.
      const writes: Promise<void>[] = []
      for (let i = 0; i < options.eventsPerDay; i++) {
        const at = new Date(dayStart + Math.floor((i * DAY_MS) / options.eventsPerDay))
        const body = Buffer.from(JSON.stringify(options.payload(project.api_key, sent++)))
        writes.push(ctx.deps.ingestWriter.write(acceptedRequest(project.id, at, body, 1, null)))
      }
      await Promise.all(writes)
      await ctx.deps.ingestWriter.indexed()
      // The day is over: the sweep (every 5 minutes on a server; one run expires the same events).
      offsetMs = dayStart + DAY_MS - Date.now()
      const before = await count()
      const sweepStarted = performance.now()
      await enqueueRetentionSweep(db, clock())
      await ctx.jobs.drain()
      const sweepMs = performance.now() - sweepStarted
      const events = await count()
      // Then the VACUUM a server runs every 10 minutes; once a day here is enough: what it frees
      // is reused by the next day's inserts either way.
      const maintenanceStarted = performance.now()
      if (options.maintain ?? true) await runMaintenance(database)
      const maintenanceMs = performance.now() - maintenanceStarted
      const [size] = await queryRows<{ bytes: string | number }>(db, sql`SELECT pg_database_size(current_database()) AS bytes`)
      const row: SteadyRetentionDay = {
        day: day + 1,
        events,
        deleted: before - events,
        sweepMs,
        maintenanceMs,
        dataDirBytes: options.postgresUrl ? null : await sizeOnDisk(dataDir),
        walBytes: options.postgresUrl ? null : await sizeOnDisk(join(dataDir, 'pg_wal')),
        databaseBytes: Number(size!.bytes),
      }
      rows.push(row)
      options.onDay?.(row)
    }
    return rows
  } finally {
    await ctx.close()
    rmSync(root, { recursive: true, force: true })
  }
}
