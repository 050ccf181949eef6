import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { openPostgres, type Database } from './client.ts'
import { migrate } from './migrate.ts'
import { migratedPostgresTemplate } from './migrated-template.ts'

/**
 * A new, migrated database on the PostgreSQL server at `serverUrl`, dropped again by
 * close(): gives each test file or benchmark run a clean slate on a shared server.
 */
export async function openScratchPostgres(serverUrl: string, namePrefix: string, maxConnections = 10, { migrated = true }: { migrated?: boolean } = {}): Promise<Database> {
  const name = `${namePrefix}_${randomBytes(6).toString('hex')}`
  const runOnServer = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  // A copy of a migrated template (made once per migration set) instead of migrating each one.
  // Unmigrated (an upgrade test migrates it step by step): an empty database.
  if (migrated) await runOnServer(`CREATE DATABASE ${name} TEMPLATE ${await migratedPostgresTemplate(serverUrl, namePrefix)}`)
  else await runOnServer(`CREATE DATABASE ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const database = await openPostgres(url.toString(), { maxConnections })
  if (migrated) await migrate(database) // nothing left to apply: it checks that
  return {
    ...database,
    close: async () => {
      await database.close()
      await runOnServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    },
  }
}
