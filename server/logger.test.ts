import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPglite, type Database } from './db/client.ts'
import pino from 'pino'
import { createLogger, serializeError } from './logger.ts'

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

describe('log format', () => {
  it('is the same on every thread: ISO timestamps, the service, and the thread where not the main one', () => {
    const lines: string[] = []
    const capture = (thread?: 'database' | 'pipeline') => {
      const logger = createLogger('info', thread)
      // pino writes to its destination; read what it would write.
      const stream = (logger as unknown as Record<symbol, { write: (line: string) => void }>)[pino.symbols.streamSym]
      stream!.write = (line: string) => void lines.push(line)
      return logger
    }
    capture().info('main')
    capture('database').info('database')
    capture('pipeline').info('pipeline')
    const records = lines.map((line) => JSON.parse(line) as { time: string; service: string; thread?: string })
    expect(records.map((r) => r.thread)).toEqual([undefined, 'database', 'pipeline'])
    for (const record of records) {
      expect(record.service).toBe('errata')
      expect(record.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    }
  })
})
