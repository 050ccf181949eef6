import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterEach, describe, expect, it } from 'vitest'
import { openPglite, queryRows, withTransaction } from '../db/client.ts'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'errata-backup-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

describe('Database.stageBackup (PGlite)', () => {
  it('copies the cluster between two transactions: one in progress ends first, and what it commits is in the copy', { timeout: 120_000 }, async () => {
    const root = tempDir()
    const database = await openPglite(join(root, 'data'))
    cleanups.push(() => database.close())
    await database.execScript('CREATE TABLE counted (n int)')
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    let inserted!: () => void
    const insertedRow = new Promise<void>((resolve) => (inserted = resolve))
    const transaction = withTransaction(database.db, async (tx) => {
      await tx.execute(sql`INSERT INTO counted VALUES (1)`)
      inserted()
      await gate
    })
    await insertedRow
    const staged = join(root, 'staged')
    // The database's thread takes requests in order: the copy is asked for before the COMMIT, so
    // a copy that did not wait for the transaction would be made without its row.
    const copying = database.stageBackup!(staged, [])
    release()
    await transaction
    await copying

    const copy = await openPglite(join(staged, 'pgdata'))
    cleanups.push(() => copy.close())
    expect(await queryRows(copy.db, sql`SELECT n FROM counted`)).toEqual([{ n: 1 }])
  })
})
