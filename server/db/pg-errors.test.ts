import { describe, expect, it } from 'vitest'
import { isDatabaseUnavailable } from './pg-errors.ts'

/** A failure as drizzle throws it: its own error, with the driver's as the cause. */
const wrapped = (cause: object) => Object.assign(new Error('Failed query: select 1'), { cause })

describe('isDatabaseUnavailable: 503 and retry, not a 500', () => {
  it('is true for a database that cannot be reached, restarts or is busy', () => {
    expect(isDatabaseUnavailable(wrapped(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })))).toBe(true)
    expect(isDatabaseUnavailable(wrapped(new Error('Connection terminated unexpectedly')))).toBe(true)
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true)
    // Administrator shutdown, too many connections, a deadlock.
    for (const code of ['57P01', '53300', '40P01']) expect(isDatabaseUnavailable(wrapped({ code, message: 'x' }))).toBe(true)
  })

  it('is false for a bad statement or bad data, which are bugs', () => {
    for (const code of ['23505', '42P01', '22P02']) expect(isDatabaseUnavailable(wrapped({ code, message: 'x' }))).toBe(false)
    expect(isDatabaseUnavailable(new Error('Cannot read properties of undefined'))).toBe(false)
  })
})
