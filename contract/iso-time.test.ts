import { describe, expect, it } from 'vitest'
import { readIsoTime } from './iso-time.ts'

const iso = (text: string) => readIsoTime(text).time?.toISOString() ?? readIsoTime(text).problem

describe('readIsoTime', () => {
  it('reads the forms ISO 8601 and RFC 3339 allow', () => {
    const cases: Array<[string, string]> = [
      ['2026-03-01', '2026-03-01T00:00:00.000Z'],
      ['20260301', '2026-03-01T00:00:00.000Z'],
      ['2026-03', '2026-03-01T00:00:00.000Z'],
      ['2026', '2026-01-01T00:00:00.000Z'],
      ['2026-060', '2026-03-01T00:00:00.000Z'],
      ['2026060', '2026-03-01T00:00:00.000Z'],
      ['2026-W09-7', '2026-03-01T00:00:00.000Z'],
      ['2026W097', '2026-03-01T00:00:00.000Z'],
      ['2026-W01', '2025-12-29T00:00:00.000Z'],
      ['2026-03-01T10:15:30', '2026-03-01T10:15:30.000Z'],
      ['2026-03-01T10:15', '2026-03-01T10:15:00.000Z'],
      ['2026-03-01T10', '2026-03-01T10:00:00.000Z'],
      ['2026-03-01 10:15:30Z', '2026-03-01T10:15:30.000Z'],
      ['2026-03-01t10:15:30z', '2026-03-01T10:15:30.000Z'],
      ['20260301T101530Z', '2026-03-01T10:15:30.000Z'],
      ['20260301T101530+0200', '2026-03-01T08:15:30.000Z'],
      ['2026-03-01T10:15:30+02', '2026-03-01T08:15:30.000Z'],
      ['2026-03-01T10:15:30.250-05:30', '2026-03-01T15:45:30.250Z'],
      ['2026-03-01T10:15:30,5Z', '2026-03-01T10:15:30.500Z'],
      ['2026-03-01T10:15.5Z', '2026-03-01T10:15:30.000Z'],
      ['2026-03-01T10.25Z', '2026-03-01T10:15:00.000Z'],
      ['2026-03-01T10:15:32.6735Z', '2026-03-01T10:15:32.674Z'],
    ]
    for (const [text, expected] of cases) expect(iso(text), text).toBe(expected)
  })

  it('says exactly what is wrong', () => {
    const cases: Array<[string, string]> = [
      ['2026-02-30', 'day 30 does not exist: February 2026 has 28 days'],
      ['2026-13-01', 'month 13 does not exist (01 to 12)'],
      ['2026-367', 'day 367 of 2026 does not exist (001 to 365)'],
      ['2025-W53', 'week 53 of 2025 does not exist (01 to 52)'],
      ['2026-03-01T25:00Z', 'hour 25 does not exist (00 to 23)'],
      ['2026-03-01T24:00Z', 'hour 24 is not accepted; write 00:00 of the next day'],
      ['2026-03-01T10:61Z', 'minute 61 does not exist (00 to 59)'],
      ['2026-03-01T23:59:60Z', 'second 60 (a leap second) is not accepted; write 59'],
      ['2026-03-01T10:00+24:00', 'offset +24:00 is not an offset (hours 00 to 23, minutes 00 to 59)'],
      ['yesterday', '"yesterday" is not an ISO 8601 date (e.g. 2026-03-01, 2026-03-01T10:15:30Z, 2026-03-01T10:15:30.250+02:00 or 20260301T101530Z)'],
      ['0001-01-01T00:00+01:00', 'must be between the years 0001 and 9999 (UTC)'],
    ]
    for (const [text, expected] of cases) expect(readIsoTime(text).problem, text).toBe(expected)
  })
})
