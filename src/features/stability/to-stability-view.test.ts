import { describe, expect, it } from 'vitest'
import { formatCrashFreeRate, stabilityDomain, stabilityTone, stabilityViewFilters, toStabilityFilters, toStabilityPoints } from './to-stability-view.ts'

describe('formatCrashFreeRate', () => {
  it('shows one decimal, rounded down so that any crash is below 100%', () => {
    expect(formatCrashFreeRate(0.992)).toBe('99.2%')
    expect(formatCrashFreeRate(0.75)).toBe('75.0%')
    expect(formatCrashFreeRate(0.99999)).toBe('99.9%')
    expect(formatCrashFreeRate(1)).toBe('100.0%')
    expect(formatCrashFreeRate(0)).toBe('0.0%')
    expect(formatCrashFreeRate(0.7)).toBe('70.0%')
    expect(formatCrashFreeRate(null)).toBe('—')
  })
})

describe('stabilityTone', () => {
  it('names the band as well as colouring it', () => {
    expect(stabilityTone(0.999)).toEqual({ tone: 'success', label: 'Healthy' })
    expect(stabilityTone(0.99)).toEqual({ tone: 'warning', label: 'Fair' })
    expect(stabilityTone(0.5)).toEqual({ tone: 'danger', label: 'Poor' })
    expect(stabilityTone(null)).toEqual({ tone: 'neutral', label: 'No sessions' })
  })
})

describe('the period in the URL', () => {
  it('defaults to all time (as the errors page), keeps only the time range, and sends all time explicitly', () => {
    expect(stabilityViewFilters(undefined)).toEqual({})
    expect(stabilityViewFilters(['event.since:eq:7d', 'error.status:eq:open'])).toEqual({ 'event.since': [{ type: 'eq', value: '7d' }] })
    expect(stabilityViewFilters([])).toEqual({})
    expect(toStabilityFilters({})).toEqual({ 'event.since': [{ type: 'eq', value: '0001-01-01T00:00:00Z' }] })
    const week = { 'event.since': [{ type: 'eq' as const, value: '7d' }] }
    expect(toStabilityFilters(week)).toBe(week)
  })
})

describe('the crash-free chart', () => {
  const bucket = (hour: number, sessions: number, rate: number | null) => ({
    from: `2026-11-20T${String(hour).padStart(2, '0')}:00:00.000Z`,
    to: `2026-11-20T${String(hour + 1).padStart(2, '0')}:00:00.000Z`,
    sessions,
    crashed_sessions: 0,
    crash_free_rate: rate,
  })

  it('draws a bucket without sessions as a gap, not as 0 %', () => {
    expect(toStabilityPoints([bucket(0, 10, 0.9), bucket(1, 0, null)]).map((p) => p.percent)).toEqual([90, null])
  })

  it('zooms the axis to a whole percent below the lowest rate, so a small dip shows', () => {
    expect(stabilityDomain(toStabilityPoints([bucket(0, 10, 0.999), bucket(1, 10, 0.992), bucket(2, 0, null)]))).toEqual([98, 100])
    expect(stabilityDomain(toStabilityPoints([bucket(0, 10, 0.005)]))).toEqual([0, 100])
    expect(stabilityDomain(toStabilityPoints([bucket(0, 10, 0.5), bucket(1, 10, 0.95)]))).toEqual([40, 100])
    expect(stabilityDomain(toStabilityPoints([bucket(0, 0, null)]))).toEqual([0, 100])
  })
})
