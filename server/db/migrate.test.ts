import { sql } from 'drizzle-orm'
import { afterEach, describe, expect, it } from 'vitest'
import type { Database } from './client.ts'
import { queryRows } from './client.ts'
import { DevelopmentBuildDatabaseError, migrate } from './migrate.ts'
import { createTestDatabase } from '../test-support/test-app.ts'

let database: Database | undefined
afterEach(async () => {
  await database?.close()
  database = undefined
})

describe('migrate', { timeout: 180_000 }, () => {
  it('refuses a database made by a development build before 0.1.0, and leaves it as it was', async () => {
    database = await createTestDatabase()
    // What such a build left: its own migration names, none of them the baseline.
    await database.execScript(`DELETE FROM schema_migrations; INSERT INTO schema_migrations (name) VALUES ('0001-init.sql'), ('0002-triage.sql');`)
    const refused = await migrate(database).then(
      () => null,
      (err: unknown) => err,
    )
    expect(refused).toBeInstanceOf(DevelopmentBuildDatabaseError)
    expect((refused as Error).message).toMatch(/made by a development build of Errata before 0\.1\.0.*start with an empty DATA_DIR \/ database/)
    const names = await queryRows<{ name: string }>(database.db, sql`SELECT name FROM schema_migrations ORDER BY name`)
    expect(names.map((row) => row.name)).toEqual(['0001-init.sql', '0002-triage.sql'])
  })

  it('starts an empty database from the baseline', async () => {
    database = await createTestDatabase()
    await database.execScript(`DROP SCHEMA public CASCADE; CREATE SCHEMA public;`)
    expect((await migrate(database))[0]).toBe('0001-baseline.sql')
  })
})
