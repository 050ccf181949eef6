import type { Filters } from '../../../contract/filters.ts'
import { DEFAULT_TREND_WINDOW_MS, MAX_TREND_BUCKETS, parseResolution } from '../../../contract/trends.ts'
import { useNow } from '../../lib/use-now.ts'
import { describeTimeRange } from '../filters/time-range-select.tsx'
import { timeRangeOf, timeWindowOf, withTimeRange, type TimeRange } from '../filters/to-filter-search.ts'
import { autoResolution, bucketCount, formatFirstEvent, resolveResolution, type ResolutionChoice } from './to-trend-series.ts'

/** The shortest window a chart fitted to its data draws: a first event seconds old still gets a few bars. */
export const MIN_FITTED_WINDOW_MS = 10 * 60_000
/** A range whose data starts within this share of its beginning is drawn whole: trimming would gain little. */
const FIT_THRESHOLD = 0.1

export interface FittedWindow {
  from: number
  to: number
  /** The filters to ask the trend with: event.since moved to the first event when the window was fitted. */
  filters: Filters
  /** What the chart shows, for its title: "last 7 days", "all time (first event Nov 20, 10:04)". */
  label: string
}

/** When a trend's data begins: epoch ms, `none` when nothing matches, `unknown` when it could not be found out. */
export type DataStart = number | 'none' | 'unknown'

/**
 * The window a trend draws. The range's own window, except where the data starts well after
 * the range does (a young project, an error first seen yesterday): then from the first event,
 * so the bars fill the chart and auto resolution fits them. "All time" starts at the first
 * event; when that is unknown the server's default of the last 30 days is drawn, and said.
 */
export function fitTrendWindow(filters: Filters, now: number, dataStart: DataStart, what = 'event'): FittedWindow {
  const range = timeRangeOf(filters)
  const nominal = timeWindowOf(range, now, DEFAULT_TREND_WINDOW_MS)
  if (range.kind === 'all' && dataStart === 'unknown') return { ...nominal, filters, label: 'last 30 days' }
  const rangeName = range.kind === 'all' ? 'all time' : describeTimeRange(range, now).replace(/^Last/, 'last')
  const fits =
    typeof dataStart === 'number' &&
    dataStart < nominal.to &&
    (range.kind === 'all' || dataStart - nominal.from > (nominal.to - nominal.from) * FIT_THRESHOLD)
  if (!fits) return { ...nominal, filters, label: rangeName }
  const from = Math.min(dataStart, nominal.to - MIN_FITTED_WINDOW_MS)
  const before = range.kind === 'absolute' ? (range.before ?? null) : null
  const fitted: TimeRange = { kind: 'absolute', since: new Date(from).toISOString(), before }
  return {
    from,
    to: nominal.to,
    filters: withTimeRange(filters, fitted),
    label: `${rangeName} (first ${what} ${formatFirstEvent(dataStart)})`,
  }
}

/**
 * The window a trend covers for these filters and the resolution to ask for. `dataStart` is
 * undefined while it is still being found out: `ready` is false until then, so no request is
 * made for a window about to change. `what` names the first thing counted in the label (event, session).
 */
export function useTrendWindow(filters: Filters, choice: ResolutionChoice, dataStart: DataStart | undefined, what = 'event') {
  const now = useNow()
  const window = fitTrendWindow(filters, now, dataStart ?? 'unknown', what)
  const windowMs = Math.max(window.to - window.from, 60_000)
  const resolution = resolveResolution(choice, windowMs)
  return {
    ready: dataStart !== undefined,
    filters: window.filters,
    windowMs,
    resolution,
    resolutionMs: parseResolution(resolution) ?? 86_400_000,
    autoResolution: autoResolution(windowMs),
    rangeLabel: window.label,
    isAllowed: (c: ResolutionChoice) => c === 'auto' || bucketCount(windowMs, c) <= MAX_TREND_BUCKETS,
  }
}

/** A first-event time as useTrendWindow takes it, from an ISO time or a query for one. */
export function toDataStart(query: { data: string | null | undefined; isError: boolean }): DataStart | undefined {
  if (query.isError) return 'unknown'
  if (query.data === undefined) return undefined
  if (query.data === null) return 'none'
  const time = Date.parse(query.data)
  return Number.isFinite(time) ? time : 'unknown'
}
