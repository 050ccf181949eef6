import { sql } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/node-postgres'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { installPgTransactionFix } from './pg-transaction.ts'

/**
 * A pool whose connections fail the way a connection PostgreSQL closed does: every query
 * rejects with node-postgres's own error. Counts what is handed out and handed back.
 */
function brokenPool() {
  const pool = new pg.Pool({ max: 2 })
  const released: (Error | undefined)[] = []
  let checkedOut = 0
  pool.connect = (async () => {
    checkedOut += 1
    return {
      query: async () => {
        throw new Error('Connection terminated unexpectedly')
      },
      release: (err?: Error) => {
        checkedOut -= 1
        released.push(err)
      },
    }
  }) as unknown as pg.Pool['connect']
  return { pool, released, checkedOut: () => checkedOut }
}

describe('node-postgres transactions (drizzle, with the fix installed)', () => {
  it('hands back a connection whose BEGIN failed, as broken, so the pool never runs dry', async () => {
    installPgTransactionFix()
    const { pool, released, checkedOut } = brokenPool()
    const db = drizzle({ client: pool })
    for (let i = 0; i < 5; i++) {
      await expect(db.transaction(async (tx) => tx.execute(sql`SELECT 1`))).rejects.toThrow()
    }
    expect(checkedOut()).toBe(0)
    expect(released).toHaveLength(5)
    // Handed back with the error: node-postgres then closes the connection instead of reusing it.
    for (const err of released) expect((err?.cause as Error | undefined)?.message).toMatch(/Connection terminated/)
    await pool.end()
  })
})
