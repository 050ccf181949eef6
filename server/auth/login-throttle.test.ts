import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { TooManyRequestsError } from '../failures.ts'
import type { LoginThrottle } from '../context.ts'
import { createLoginThrottle, DEFAULT_LOGIN_LIMITS } from './login-throttle.ts'

const EMAIL = 'owner@example.com'

/** A failed sign-in (begun, never marked otherwise); answers the seconds to wait when refused instead. */
function fail(throttle: LoginThrottle, address: string, browser: string | null = null): number | 'counted' {
  try {
    throttle.begin(EMAIL, address, browser)
    return 'counted'
  } catch (err) {
    if (err instanceof TooManyRequestsError) return err.retryAfterSeconds
    throw err
  }
}

/** Failures from `count` different public addresses, `perAddress` each. */
function failFromMany(throttle: LoginThrottle, count: number, perAddress: number) {
  for (let address = 0; address < count; address++) {
    for (let i = 0; i < perAddress; i++) expect(fail(throttle, `203.0.113.${address}`)).toBe('counted')
  }
}

beforeEach(() => vi.useFakeTimers())
afterEach(() => vi.useRealTimers())

describe('the per-email limit for browsers an email has not signed in from', () => {
  it('slows each further attempt, 1 s, then twice as long after each failure, up to maxDelayMs: never a lock', () => {
    const throttle = createLoginThrottle({ ...DEFAULT_LOGIN_LIMITS, perEmail: 20, maxDelayMs: 8000 })
    failFromMany(throttle, 4, 5)
    const waits: number[] = []
    for (let i = 0; i < 6; i++) {
      const wait = fail(throttle, '198.51.100.1')
      if (typeof wait !== 'number') throw new Error(`attempt ${i} was not refused`)
      waits.push(wait)
      // Nothing gets through before the wait is over, from any other address either…
      vi.advanceTimersByTime(wait * 1000 - 1)
      expect(fail(throttle, '198.51.100.2')).toBe(1)
      // …and one attempt does right after it.
      vi.advanceTimersByTime(1)
      expect(fail(throttle, `198.51.100.${10 + i}`)).toBe('counted')
    }
    expect(waits).toEqual([1, 2, 4, 8, 8, 8])
  })

  it('is forgotten windowMs after the last failure', () => {
    const throttle = createLoginThrottle({ ...DEFAULT_LOGIN_LIMITS, perEmail: 20 })
    failFromMany(throttle, 4, 5)
    vi.advanceTimersByTime(DEFAULT_LOGIN_LIMITS.windowMs)
    // A fresh count: nineteen more failures before anyone waits.
    failFromMany(throttle, 19, 1)
    expect(fail(throttle, '198.51.100.1')).toBe('counted')
    expect(fail(throttle, '198.51.100.2')).toBe(1)
  })
})

describe('a browser the email signed in from before', () => {
  it("is counted apart: ten failures from each of ten addresses never make it wait", () => {
    const throttle = createLoginThrottle()
    failFromMany(throttle, 10, 10)
    expect(fail(throttle, '198.51.100.1')).toBe(1)
    const owner = throttle.begin(EMAIL, '198.51.100.1', 'owners-browser')
    owner.succeeded()
    // Not even from an address that is itself locked for this email.
    expect(fail(throttle, '203.0.113.0')).toBe(15 * 60)
    expect(() => throttle.begin(EMAIL, '203.0.113.0', 'owners-browser').succeeded()).not.toThrow()
  })

  it("locks only itself after its own failures, and starts afresh after a right password", () => {
    const throttle = createLoginThrottle()
    for (let i = 0; i < 9; i++) expect(fail(throttle, '198.51.100.1', 'laptop')).toBe('counted')
    throttle.begin(EMAIL, '198.51.100.1', 'laptop').succeeded()
    for (let i = 0; i < 10; i++) expect(fail(throttle, '198.51.100.1', 'laptop')).toBe('counted')
    expect(fail(throttle, '198.51.100.1', 'laptop')).toBe(15 * 60)
    // Another known browser and the unknown track are untouched.
    expect(fail(throttle, '198.51.100.1', 'phone')).toBe('counted')
    expect(fail(throttle, '198.51.100.1')).toBe('counted')
    vi.advanceTimersByTime(DEFAULT_LOGIN_LIMITS.lockMs)
    expect(fail(throttle, '198.51.100.1', 'laptop')).toBe('counted')
  })
})
