import { sql } from 'drizzle-orm'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { openPglite, queryRows, type Database } from './client.ts'
import { analyzeChangedTables, runMaintenance, startMaintenance } from './maintenance.ts'
import { migrate } from './migrate.ts'
import { migratedPgliteSnapshot } from './migrated-template.ts'
import { createTestDatabase } from '../test-support/test-app.ts'

let database: Database
beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(() => database.close())

describe('database maintenance', () => {
  it('vacuums and analyzes while data is being updated, leaving planner statistics behind', async () => {
    await database.execScript(`
      INSERT INTO organizations (id, name, slug) VALUES ('o1', 'Org', 'org');
      INSERT INTO projects (id, organization_id, name, slug, type, api_key) VALUES ('p1', 'o1', 'P', 'p', 'node', 'k1');
      INSERT INTO errors (id, project_id, grouping_hash, grouping_reason, error_class, message, severity, first_seen, last_seen)
        SELECT 'e' || g, 'p1', 'h' || g, 'in_project_frame', 'E', 'm', 'error', now(), now() FROM generate_series(1, 500) g;
      UPDATE errors SET events_count = events_count + 1;
      UPDATE errors SET events_count = events_count + 1;`)
    await runMaintenance(database)
    const [stats] = await queryRows<{ reltuples: number }>(
      database.db,
      sql`SELECT reltuples::int AS reltuples FROM pg_class WHERE relname = 'errors'`,
    )
    expect(stats?.reltuples).toBe(500)
    const [counted] = await queryRows<{ n: number }>(database.db, sql`SELECT count(*)::int AS n FROM errors WHERE events_count = 2`)
    expect(counted?.n).toBe(500)
  })
})

describe('maintenance of the embedded database', () => {
  it('checkpoints, so that the write-ahead log written so far can be recycled', async () => {
    const pglite = await openPglite(undefined, 'silent', await migratedPgliteSnapshot())
    try {
      await pglite.execScript(`CREATE TABLE filler AS SELECT g AS n, repeat('x', 200) AS text FROM generate_series(1, 20000) g`)
      const lsn = async (query: ReturnType<typeof sql>) => (await queryRows<{ lsn: string }>(pglite.db, query))[0]!.lsn
      const written = await lsn(sql`SELECT pg_current_wal_lsn()::text AS lsn`)
      // Single-user PostgreSQL has no checkpointer, and never requests a checkpoint however much log it writes.
      await runMaintenance(pglite)
      const [after] = await queryRows<{ ok: boolean }>(pglite.db, sql`SELECT redo_lsn >= ${written}::pg_lsn AS ok FROM pg_control_checkpoint()`)
      expect(after?.ok).toBe(true)
    } finally {
      await pglite.close()
    }
  })
})

describe('starting maintenance', () => {
  it('vacuums on its schedule where the engine does not maintain itself', async () => {
    const lines: string[] = []
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) })
    const stop = startMaintenance({ ...database, maintainsItself: false }, logger, { vacuumMs: 20, analyzeMs: 3_600_000 })
    try {
      await expect.poll(() => lines.some((line) => line.includes('database maintenance done')), { timeout: 30_000 }).toBe(true)
    } finally {
      stop()
    }
  })

  it('schedules nothing where the engine maintains itself', () => {
    vi.useFakeTimers()
    try {
      const stop = startMaintenance({ ...database, maintainsItself: true }, pino({ level: 'silent' }))
      expect(vi.getTimerCount()).toBe(0)
      stop()
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('analyzing changed tables (PGlite has no autovacuum)', () => {
  it('analyzes the tables whose rows changed by more than autovacuum would allow, and only those', async () => {
    const pglite = await openPglite()
    try {
      await migrate(pglite)
      // Planner statistics are as of the last ANALYZE: none yet.
      await runMaintenance(pglite)
      await pglite.execScript(`
        INSERT INTO organizations (id, name, slug) VALUES ('o1', 'Org', 'org');
        INSERT INTO projects (id, organization_id, name, slug, type, api_key) VALUES ('p1', 'o1', 'P', 'p', 'node', 'k1');
        INSERT INTO errors (id, project_id, grouping_hash, grouping_reason, error_class, message, severity, first_seen, last_seen)
          SELECT 'e' || g, 'p1', 'h' || g, 'in_project_frame', 'E', 'm', 'error', now(), now() FROM generate_series(1, 800) g;`)
      const reltuples = async () =>
        (
          await queryRows<{ n: number }>(pglite.db, sql`SELECT reltuples::int AS n FROM pg_class WHERE relname = 'errors'`)
        )[0]!.n
      expect(await reltuples()).toBe(0)
      // The database publishes its change counts at most once a second.
      await expect.poll(() => analyzeChangedTables(pglite), { interval: 300, timeout: 10_000 }).toContain('errors')
      expect(await reltuples()).toBe(800)
      // Two rows more of 800 is below the threshold (50 + 10 %): no new ANALYZE.
      await pglite.execScript(`UPDATE errors SET events_count = 1 WHERE id IN ('e1', 'e2')`)
      const modified = async () =>
        (
          await queryRows<{ n: number }>(pglite.db, sql`SELECT n_mod_since_analyze::int AS n FROM pg_stat_user_tables WHERE relname = 'errors'`)
        )[0]?.n
      // Once the database has published the two changes, they are what the decision reads.
      await expect.poll(modified, { interval: 100, timeout: 10_000 }).toBe(2)
      expect(await analyzeChangedTables(pglite)).toEqual([])
    } finally {
      await pglite.close()
    }
  })
})
