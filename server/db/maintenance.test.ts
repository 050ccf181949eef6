import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows, type Database } from './client.ts'
import { runMaintenance } from './maintenance.ts'
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
