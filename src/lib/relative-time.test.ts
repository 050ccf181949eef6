import { describe, expect, it } from 'vitest'
import { formatClockTime, formatCount, formatCountOf, formatExactTime, formatRelativeTime } from './relative-time.ts'

const now = Date.parse('2026-11-22T12:00:00.000Z')
const ago = (seconds: number) => new Date(now - seconds * 1000).toISOString()

describe('formatRelativeTime', () => {
  it('says "just now" for the last few seconds', () => {
    expect(formatRelativeTime(ago(3), now)).toBe('just now')
    expect(formatRelativeTime(ago(-3), now)).toBe('just now')
  })

  it('uses the largest unit that fits', () => {
    expect(formatRelativeTime(ago(45), now)).toBe('45 seconds ago')
    expect(formatRelativeTime(ago(60), now)).toBe('1 minute ago')
    expect(formatRelativeTime(ago(5 * 60 + 20), now)).toBe('5 minutes ago')
    expect(formatRelativeTime(ago(3 * 3600), now)).toBe('3 hours ago')
    expect(formatRelativeTime(ago(24 * 3600), now)).toBe('yesterday')
    expect(formatRelativeTime(ago(3 * 24 * 3600), now)).toBe('3 days ago')
    expect(formatRelativeTime(ago(14 * 24 * 3600), now)).toBe('2 weeks ago')
    expect(formatRelativeTime(ago(400 * 24 * 3600), now)).toBe('last year')
  })

  it('handles future times (clock skew) and bad input', () => {
    // A server time up to a minute ahead of this browser's clock is "just now", not "in 26 seconds".
    expect(formatRelativeTime(ago(-26), now)).toBe('just now')
    expect(formatRelativeTime(ago(-60), now)).toBe('just now')
    expect(formatRelativeTime(ago(-5 * 60), now)).toBe('in 5 minutes')
    expect(formatRelativeTime(ago(-2 * 3600), now)).toBe('in 2 hours')
    expect(formatRelativeTime('not a date', now)).toBe('not a date')
  })
})

describe('exact and clock times', () => {
  it('formats the exact time with seconds and a zone', () => {
    const exact = formatExactTime('2026-11-22T11:01:58.398Z')
    expect(exact).toMatch(/2026/)
    expect(exact).toMatch(/:58/)
  })

  it('keeps milliseconds in clock times', () => {
    expect(formatClockTime('2026-11-22T11:01:58.353Z')).toMatch(/:58\.353$/)
  })

  it('groups thousands', () => {
    expect(formatCount(1234567)).toBe('1,234,567')
  })
})

describe('formatCountOf', () => {
  it('puts the noun in the right number', () => {
    expect(formatCountOf(1, 'event')).toBe('1 event')
    expect(formatCountOf(0, 'user')).toBe('0 users')
    expect(formatCountOf(1204, 'open error')).toBe('1,204 open errors')
  })
})
