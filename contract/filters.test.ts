import { describe, expect, it } from 'vitest'
import { parseFilterTime, parseIsoTime } from './filters.ts'

const iso = (text: string) => parseIsoTime(text)?.toISOString() ?? null

describe('parseIsoTime', () => {
  it('reads dates and times with Z or an offset', () => {
    expect(iso('2026-03-01')).toBe('2026-03-01T00:00:00.000Z')
    expect(iso('2026-03-01T10:15')).toBe('2026-03-01T10:15:00.000Z')
    expect(iso('2026-03-01T10:15:30.250Z')).toBe('2026-03-01T10:15:30.250Z')
    expect(iso('2026-03-01T10:15:30+02:00')).toBe('2026-03-01T08:15:30.000Z')
    expect(iso('2026-03-01T01:00:00-0530')).toBe('2026-03-01T06:30:00.000Z')
    expect(iso('0001-01-01T00:00:00Z')).toBe('0001-01-01T00:00:00.000Z')
  })

  it('reads a time without an offset as UTC, whatever the server’s time zone', () => {
    const zone = process.env.TZ
    process.env.TZ = 'America/New_York'
    try {
      expect(new Date('2026-01-01T00:00:00').getUTCHours()).toBe(5) // what Date alone would do here
      expect(iso('2026-01-01T00:00:00')).toBe('2026-01-01T00:00:00.000Z')
    } finally {
      if (zone === undefined) delete process.env.TZ
      else process.env.TZ = zone
    }
  })

  it('refuses dates the calendar does not have and clock times past the day', () => {
    for (const text of ['2026-02-30T00:00:00Z', '2025-02-29', '2026-13-01', '2026-00-10', '2026-01-01T24:00:00Z', '2026-01-01T10:60Z', '2026-01-01T10:00:60Z', 'yesterday', '2026-1-1']) {
      expect(iso(text), text).toBeNull()
    }
    expect(iso('2024-02-29')).toBe('2024-02-29T00:00:00.000Z')
  })

  it('rounds a fraction finer than a millisecond up, so [since, before) holds for whole-millisecond times', () => {
    expect(iso('2026-03-01T10:15:32.6735Z')).toBe('2026-03-01T10:15:32.674Z')
    expect(iso('2026-03-01T10:15:32.673000Z')).toBe('2026-03-01T10:15:32.673Z')
    expect(iso('2026-03-01T10:15:32.999999Z')).toBe('2026-03-01T10:15:33.000Z')
  })

  it('keeps to the years 1 to 9999', () => {
    expect(iso('9999-12-31T23:59:59Z')).toBe('9999-12-31T23:59:59.000Z')
    expect(iso('0001-01-01T00:00:00+01:00')).toBeNull()
  })
})

describe('parseFilterTime', () => {
  it('takes durations back from now, and ISO times', () => {
    const now = new Date('2026-03-10T00:00:00Z')
    expect(parseFilterTime('7d', now)?.toISOString()).toBe('2026-03-03T00:00:00.000Z')
    expect(parseFilterTime('2026-03-01', now)?.toISOString()).toBe('2026-03-01T00:00:00.000Z')
    expect(parseFilterTime('2026-02-30', now)).toBeNull()
  })
})
