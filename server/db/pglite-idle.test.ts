import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPglite, withTransaction, type Database } from './client.ts'
import { migratedPgliteSnapshot } from './migrated-template.ts'

describe('PGlite: how long the engine has had none of the process\'s statements in flight', () => {
  let database: Database
  beforeAll(async () => {
    // From the migrated snapshot the tests share: initdb takes seconds of WebAssembly.
    database = await openPglite(undefined, 'silent', await migratedPgliteSnapshot())
  })
  afterAll(async () => {
    await database?.close()
  })

  it('is 0 while a statement or a transaction is in flight, and counts up once none is', async () => {
    const idleForMs = () => database.busy!.idleForMs()
    let during = -1
    await withTransaction(database.db, async (tx) => {
      await tx.execute(sql`SELECT 1`)
      // Between two statements of a transaction: it still holds the only connection.
      during = idleForMs()
    })
    expect(during).toBe(0)
    let settled = false
    const query = Promise.resolve(database.db.execute(sql`SELECT pg_sleep(0.05)`)).finally(() => (settled = true))
    let sawInFlight = false
    while (!settled) {
      if (idleForMs() === 0) sawInFlight = true
      await new Promise((resolve) => setImmediate(resolve))
    }
    await query
    expect(sawInFlight).toBe(true)
    const after = idleForMs()
    await expect.poll(idleForMs).toBeGreaterThan(after)
  })
})
