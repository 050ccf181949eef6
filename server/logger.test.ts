import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPglite, type Database } from './db/client.ts'
import { serializeError } from './logger.ts'

let database: Database
beforeAll(async () => {
  database = await openPglite()
})
afterAll(() => database.close())

describe('error logging', () => {
  it('keeps a failed query\'s SQL and the driver\'s message, never its parameters (event data)', async () => {
    const failure = await database.db
      .execute(sql`SELECT ${'ada@example.com'} AS email FROM no_such_table`)
      .then(() => null, (err: unknown) => err)
    const logged = JSON.stringify(serializeError(failure))
    expect(logged).not.toContain('ada@example.com')
    expect(logged).toContain('Failed query: SELECT $1 AS email FROM no_such_table')
    // The cause: PostgreSQL's own words.
    expect(logged).toContain('relation \\"no_such_table\\" does not exist')
  })

  it('strips the parameters of a failed query wrapped in another error, and keeps the SQLSTATE', async () => {
    const failure = await database.db
      .execute(sql`SELECT ${'grace@example.com'} AS email FROM no_such_table`)
      .then(() => null, (err: unknown) => err)
    const logged = serializeError(new Error('indexing failed', { cause: failure }))
    expect(JSON.stringify(logged)).not.toContain('grace@example.com')
    expect(logged.message).toContain('indexing failed')
    expect(logged.code).toBe('42P01')
  })

  it('serializes any other error as pino does', () => {
    const logged = serializeError(new TypeError('boom'))
    expect(logged).toMatchObject({ type: 'TypeError', message: 'boom' })
  })
})
