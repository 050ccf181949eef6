import { describe, expect, it } from 'vitest'
import { isDatabaseUnavailable, isTransactionConflict, isTransientPgError } from './pg-errors.ts'

/** A failure as drizzle throws it: its own error, with the driver's as the cause. */
const wrapped = (cause: object) => Object.assign(new Error('Failed query: select 1'), { cause })

describe('isDatabaseUnavailable: 503 and retry, not a 500', () => {
  it('is true for a database that cannot be reached or is restarting', () => {
    expect(isDatabaseUnavailable(wrapped(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })))).toBe(true)
    expect(isDatabaseUnavailable(wrapped(new Error('Connection terminated unexpectedly')))).toBe(true)
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true)
    // Connection failure, administrator shutdown, starting up, too many connections.
    for (const code of ['08006', '57P01', '57P03', '53300']) expect(isDatabaseUnavailable(wrapped({ code, message: 'x' }))).toBe(true)
  })

  it('is false for failures that say something about the code: bad statements, protocol violations, cancelled queries, deadlocks', () => {
    for (const code of ['23505', '42P01', '22P02', '08P01', '57014', '40P01']) {
      expect(isDatabaseUnavailable(wrapped({ code, message: 'x' })), code).toBe(false)
    }
    expect(isDatabaseUnavailable(new Error('Cannot read properties of undefined'))).toBe(false)
  })

  it('tells deadlocks and serialization failures apart: retryable, but logged as errors', () => {
    expect(isTransactionConflict(wrapped({ code: '40P01', message: 'deadlock detected' }))).toBe(true)
    expect(isTransactionConflict(wrapped({ code: '40001', message: 'could not serialize access' }))).toBe(true)
    expect(isTransactionConflict(wrapped({ code: '08006', message: 'x' }))).toBe(false)
  })

  it('counts a broken connection as transient, though it has no SQLSTATE: the indexer retries its events', () => {
    expect(isTransientPgError(wrapped(new Error('Connection terminated unexpectedly')))).toBe(true)
    expect(isTransientPgError(wrapped(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })))).toBe(true)
    expect(isTransientPgError(new Error('Client has encountered a connection error and is not queryable'))).toBe(true)
    expect(isTransientPgError(wrapped({ code: '40P01', message: 'deadlock detected' }))).toBe(true)
    // A statement's own failure is not: that event is set aside rather than retried for ever.
    expect(isTransientPgError(wrapped({ code: '22P02', message: 'invalid input syntax' }))).toBe(false)
  })
})
