import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { queryRows, type Database } from './client.ts'

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url))
const MIGRATION_LOCK_KEY = 7_245_001

export function listMigrations(dir = MIGRATIONS_DIR): { name: string; text: string }[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}-[\w-]+\.sql$/.test(file))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }))
}

const BASELINE = '0001-baseline.sql'

/**
 * Applies pending migrations in order, each in its own transaction. Several Errata
 * processes may start at once against one PostgreSQL: an advisory lock lets one migrate.
 *
 * 0001-baseline.sql is the schema of 0.1.0, the first release, squashed from the migrations of
 * the development builds before it; later changes are 0002 onwards. A database made by one of
 * those builds (its schema_migrations names migrations, but not the baseline) is not upgraded:
 * Errata refuses to start on it rather than guess which of its tables are which.
 */
export async function migrate(database: Database, { through }: { through?: string } = {}): Promise<string[]> {
  return database.withExclusiveLock(MIGRATION_LOCK_KEY, async () => {
    await database.execScript(
      `CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    )
    const done = await queryRows<{ name: string }>(database.db, sql`SELECT name FROM schema_migrations`)
    const applied = new Set(done.map((row) => row.name))
    if (applied.size > 0 && !applied.has(BASELINE)) throw new DevelopmentBuildDatabaseError()
    const ran: string[] = []
    for (const migration of listMigrations()) {
      if (applied.has(migration.name)) continue
      // Tests of upgrades stop at an older schema (server/db/upgrade.test.ts).
      if (through !== undefined && migration.name > through) break
      const escapedName = migration.name.replace(/'/g, "''")
      await database.execScript(
        `BEGIN;\n${migration.text}\nINSERT INTO schema_migrations (name) VALUES ('${escapedName}');\nCOMMIT;`,
      )
      ran.push(migration.name)
    }
    return ran
  })
}

export class DevelopmentBuildDatabaseError extends Error {
  constructor() {
    super(
      'This database was made by a development build of Errata before 0.1.0, and is not upgraded: ' +
        'start with an empty DATA_DIR / database.',
    )
    this.name = 'DevelopmentBuildDatabaseError'
  }
}
