import { describe, expect, it } from 'vitest'
import type { Filters } from '../../../contract/filters.ts'
import { fitTrendWindow, MIN_FITTED_WINDOW_MS } from './use-trend-window.ts'

const NOW = Date.parse('2026-11-27T12:00:00.000Z')
const HOUR = 3_600_000
const DAY = 24 * HOUR
const since = (value: string): Filters => ({ 'event.since': [{ type: 'eq', value }] })

describe('fitTrendWindow', () => {
  it('draws all time from the first event, and says so', () => {
    const first = NOW - 2 * HOUR
    const window = fitTrendWindow({}, NOW, first)
    expect(window).toMatchObject({ from: first, to: NOW })
    expect(window.filters).toEqual(since(new Date(first).toISOString()))
    expect(window.label).toMatch(/^all time \(first event Nov 27, \d\d:00\)$/)
  })

  it('draws the server’s 30 days for all time when the first event is unknown, and says that, not "all time"', () => {
    expect(fitTrendWindow({}, NOW, 'unknown')).toEqual({ from: NOW - 30 * DAY, to: NOW, filters: {}, label: 'last 30 days' })
    // Nothing matches at all: an empty chart of all time.
    expect(fitTrendWindow({}, NOW, 'none').label).toBe('all time')
  })

  it('keeps a range whose data fills it, and trims one whose data starts well inside it', () => {
    expect(fitTrendWindow(since('7d'), NOW, NOW - 6.5 * DAY)).toEqual({ from: NOW - 7 * DAY, to: NOW, filters: since('7d'), label: 'last 7 days' })
    const young = fitTrendWindow(since('30d'), NOW, NOW - 3 * DAY)
    expect(young.from).toBe(NOW - 3 * DAY)
    expect(young.label).toMatch(/^last 30 days \(first event Nov 24, \d\d:00\)$/)
  })

  it('keeps a few bars for a first event seconds old, and the end of a selected range', () => {
    expect(fitTrendWindow({}, NOW, NOW - 5_000).from).toBe(NOW - MIN_FITTED_WINDOW_MS)
    const before = '2026-11-27T06:00:00.000Z'
    const selected: Filters = { 'event.since': [{ type: 'eq', value: '2026-11-20T00:00:00.000Z' }], 'event.before': [{ type: 'eq', value: before }] }
    const window = fitTrendWindow(selected, NOW, Date.parse('2026-11-26T00:00:00.000Z'))
    expect(window).toMatchObject({ from: Date.parse('2026-11-26T00:00:00.000Z'), to: Date.parse(before) })
    expect(window.filters['event.before']).toEqual([{ type: 'eq', value: before }])
  })
})
