// On the embedded database (which never vacuums nor checkpoints on its own: server/db/maintenance.ts)
// the space retention frees is reused: under a steady ingest the data directory stops growing
// once the sweep runs, and maintenance reaches every table ingestion and the sweep rewrite.
import { sql } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { openPglite, queryRows } from '../db/client.ts'
import { runMaintenance } from '../db/maintenance.ts'
import { migratedPgliteSnapshot } from '../db/migrated-template.ts'
import { ingestAt, notifierEvent } from '../test-support/ingest.ts'
import { seedProject } from '../test-support/seed.ts'
import { simulateSteadyRetention } from '../test-support/steady-retention.ts'
import { createTestContext } from '../test-support/test-app.ts'
import { enqueueRetentionSweep } from './retention.jobs.ts'

const DAY = 86_400_000

/** An event with what a real one carries (a user, metadata, breadcrumbs: a stored payload of ~2 KB), varied by `i`. */
function steadyEvent(i: number): { payloadVersion: string; events: Record<string, unknown>[] } {
  return {
    payloadVersion: '4',
    events: [
      notifierEvent(`SteadyError${i % 20}`, {
        user: { id: `user-${i % 50}`, email: `user-${i % 50}@example.com` },
        app: { releaseStage: 'production', version: `1.0.${i % 5}` },
        context: `GET /orders/${i % 100}`,
        metaData: { request: { url: `https://shop.example.com/orders/${i}`, headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' } } },
        breadcrumbs: Array.from({ length: 10 }, (_, n) => ({ name: `step ${n} of order ${i}`, type: 'navigation', timestamp: new Date(0).toISOString() })),
      }),
    ],
  }
}

describe('steady ingest under retention (embedded database)', () => {
  it('keeps the data directory flat once the sweep runs', async () => {
    const retentionDays = 2
    const days = retentionDays * 4
    const rows = await simulateSteadyRetention({ retentionDays, days, eventsPerDay: 200, payload: (_apiKey, i) => steadyEvent(i) })
    // The first sweep that deletes is at the end of day retentionDays + 1; the day after, the
    // tables hold a full retention period of events and have had freed space to reuse once.
    expect(rows[retentionDays]!.deleted).toBeGreaterThan(0)
    const first = rows[retentionDays + 1]!
    const last = rows.at(-1)!
    expect(last.events).toBe(first.events)
    // Two more periods after that, the same events stored. The tables and their indexes (the
    // directory less pg_wal): the same size, give or take pages here and there (index splits, the
    // free space map), well under 5 %; without VACUUM they grow by a day's events (~1/3 of them)
    // every day. The write-ahead log: PostgreSQL keeps up to min_wal_size (80 MB) of old segments
    // for reuse; without a checkpoint it would hold every byte ever written (maintenance.test.ts).
    const tables = (row: typeof first) => row.dataDirBytes! - row.walBytes!
    expect(tables(last) - tables(first), JSON.stringify(rows)).toBeLessThanOrEqual(0.05 * tables(first))
    expect(last.walBytes!).toBeLessThanOrEqual(80 * 2 ** 20 + 16 * 2 ** 20)
  }, 120_000)

  it('vacuums every table that ingestion or the sweep updated or deleted rows of', async () => {
    const ctx = await createTestContext(
      { retention: { defaultDays: 1, intervalMs: 60_000, sourceMapsKept: 20 } },
      { database: await openPglite(undefined, 'silent', await migratedPgliteSnapshot()) },
    )
    try {
      const { project } = await seedProject(ctx)
      const db = ctx.deps.database.db
      // Batches of one request each, so that ingestion rewrites rows (counters, windows, watermarks).
      for (let i = 0; i < 6; i++) await ingestAt(ctx, project.id, [{ at: new Date(Date.now() - (3 - i / 3) * DAY), event: steadyEvent(i).events[0]! }])
      await enqueueRetentionSweep(db, new Date())
      await ctx.jobs.drain()
      await runMaintenance(ctx.deps.database)
      const tables = () =>
        queryRows<{ relname: string; changed: number; vacuumed: boolean }>(
          db,
          sql`SELECT relname, (n_tup_upd + n_tup_del)::int AS changed, last_vacuum IS NOT NULL AS vacuumed FROM pg_stat_user_tables`,
        )
      // A VACUUM shows at once; other counts are published at most once a second, all together:
      // those of the sweep's deletions, and of the writes before them.
      const events = async () => (await tables()).find((t) => t.relname === 'events')
      await expect.poll(async () => (await events())?.changed, { interval: 200, timeout: 20_000 }).toBeGreaterThan(0)
      expect((await events())?.vacuumed).toBe(true)
      expect((await tables()).filter((t) => t.changed > 0 && !t.vacuumed).map((t) => t.relname)).toEqual([])
    } finally {
      await ctx.close()
    }
  }, 60_000)
})
