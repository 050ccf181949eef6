import { describe, expect, it } from 'vitest'
import { formatCrashFreeRate, stabilityTone, stabilityViewFilters, toStabilityFilters } from './to-stability-view.ts'

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
