import { describe, expect, it } from 'vitest'
import {
  autoResolution,
  brushedRange,
  bucketCount,
  formatBucketRange,
  logScaleTicks,
  resolveResolution,
  sparklinePoints,
  toTrendPoints,
} from './to-trend-series.ts'

const HOUR = 3_600_000
const buckets = [
  { events_count: 1, from: '2026-11-20T10:00:00.000Z', to: '2026-11-20T11:00:00.000Z' },
  { events_count: 0, from: '2026-11-20T11:00:00.000Z', to: '2026-11-20T12:00:00.000Z' },
  { events_count: 5, from: '2026-11-20T12:00:00.000Z', to: '2026-11-20T13:00:00.000Z' },
]

describe('trend shaping', () => {
  it('picks a resolution by range and falls back to auto beyond the bucket limit', () => {
    expect(autoResolution(HOUR)).toBe('1m')
    expect(autoResolution(24 * HOUR)).toBe('30m')
    expect(autoResolution(7 * 24 * HOUR)).toBe('1h')
    expect(autoResolution(30 * 24 * HOUR)).toBe('6h')
    expect(autoResolution(365 * 24 * HOUR)).toBe('1d')
    expect(bucketCount(24 * HOUR, '1h')).toBe(24)
    expect(resolveResolution('6h', 7 * 24 * HOUR)).toBe('6h')
    expect(resolveResolution('1h', 200 * 24 * HOUR)).toBe('1d')
  })

  it('turns buckets into points and a brushed span into since/before', () => {
    expect(toTrendPoints(buckets)[2]).toEqual({ time: Date.parse(buckets[2]!.from), from: buckets[2]!.from, to: buckets[2]!.to, events: 5 })
    expect(brushedRange(buckets, 2, 1)).toEqual({ since: '2026-11-20T11:00:00.000Z', before: '2026-11-20T13:00:00.000Z' })
    expect(brushedRange(buckets, 0, 9)).toBeNull()
  })

  it('draws a sparkline inside its box with the highest count at the top', () => {
    expect(sparklinePoints([0, 5, 10], 22, 12)).toBe('1,11 11,6 21,1')
    expect(sparklinePoints([], 10, 10)).toBe('')
    expect(sparklinePoints([0, 0], 10, 10)).toBe('1,9 9,9')
  })

  it('names a bucket so its end is never mistaken for its start', () => {
    // Local times: the labels are in the reader's time zone.
    const at = (day: number, hour: number) => new Date(2026, 10, day, hour).toISOString()
    expect(formatBucketRange(at(20, 10), at(20, 11))).toBe('Nov 20, 10:00 – 11:00')
    // A whole day is that day, not "Nov 20, 00:00 – 00:00".
    expect(formatBucketRange(at(20, 0), at(21, 0))).toBe('Nov 20')
    expect(formatBucketRange(at(20, 0), at(27, 0))).toBe('Nov 20 – Nov 26')
    // Ending at midnight: the end carries its date.
    expect(formatBucketRange(at(20, 18), at(21, 0))).toBe('Nov 20, 18:00 – Nov 21, 00:00')
  })
})

describe('logScaleTicks', () => {
  it('gives 0 and the powers of ten up to the first at or above the peak', () => {
    expect(logScaleTicks(0)).toEqual([0, 1])
    expect(logScaleTicks(1)).toEqual([0, 1])
    expect(logScaleTicks(7)).toEqual([0, 1, 10])
    expect(logScaleTicks(100)).toEqual([0, 1, 10, 100])
  })

  it('keeps to four ticks past that (a short chart’s labels overlapped): every second power of ten from the top', () => {
    expect(logScaleTicks(12_000)).toEqual([0, 10, 1_000, 100_000])
    expect(logScaleTicks(5_000_000)).toEqual([0, 10, 10_000, 10_000_000])
    expect(logScaleTicks(12_000, 8)).toEqual([0, 1, 10, 100, 1_000, 10_000, 100_000])
    expect(logScaleTicks(12_000, 3)).toEqual([0, 100, 100_000])
  })
})
