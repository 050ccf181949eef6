import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from './client.ts'
import { queryRows } from './client.ts'
import { migrate } from './migrate.ts'
import { schema } from './schema.ts'
import { createTestDatabase } from '../test-support/test-app.ts'

let database: Database
beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(() => database.close())

describe('schema', () => {
  it('the typed tables in schema.ts match the columns the migrations create', async () => {
    const rows = await queryRows<{ table_name: string; column_name: string }>(
      database.db,
      sql`SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`,
    )
    for (const table of Object.values(schema) as PgTable[]) {
      const config = getTableConfig(table)
      const inDatabase = rows.filter((r) => r.table_name === config.name).map((r) => r.column_name).sort()
      expect(inDatabase, `columns of ${config.name}`).toEqual(config.columns.map((c) => c.name).sort())
    }
  })

  it('migrating twice is a no-op', async () => {
    expect(await migrate(database)).toEqual([])
  })
})
