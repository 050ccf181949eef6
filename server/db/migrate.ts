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

/**
 * Applies pending migrations in order, each in its own transaction. Several Errata
 * processes may start at once against one PostgreSQL: an advisory lock lets one migrate.
 */
export async function migrate(database: Database): Promise<string[]> {
  return database.withExclusiveLock(MIGRATION_LOCK_KEY, async () => {
    await database.execScript(
      `CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    )
    const done = await queryRows<{ name: string }>(database.db, sql`SELECT name FROM schema_migrations`)
    const applied = new Set(done.map((row) => row.name))
    const ran: string[] = []
    for (const migration of listMigrations()) {
      if (applied.has(migration.name)) continue
      const escapedName = migration.name.replace(/'/g, "''")
      await database.execScript(
        `BEGIN;\n${migration.text}\nINSERT INTO schema_migrations (name) VALUES ('${escapedName}');\nCOMMIT;`,
      )
      ran.push(migration.name)
    }
    return ran
  })
}
