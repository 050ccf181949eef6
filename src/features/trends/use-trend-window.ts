import type { Filters } from '../../../contract/filters.ts'
import { DEFAULT_TREND_WINDOW_MS, MAX_TREND_BUCKETS, parseResolution } from '../../../contract/trends.ts'
import { useNow } from '../../lib/use-now.ts'
import { describeTimeRange } from '../filters/time-range-select.tsx'
import { timeRangeOf, timeWindowOf } from '../filters/to-filter-search.ts'
import { autoResolution, bucketCount, resolveResolution, type ResolutionChoice } from './to-trend-series.ts'

/** The window a trend covers for these filters and the resolution to ask for. */
export function useTrendWindow(filters: Filters, choice: ResolutionChoice) {
  const now = useNow()
  const range = timeRangeOf(filters)
  const window = timeWindowOf(range, now, DEFAULT_TREND_WINDOW_MS)
  const windowMs = Math.max(window.to - window.from, 60_000)
  const resolution = resolveResolution(choice, windowMs)
  return {
    windowMs,
    resolution,
    resolutionMs: parseResolution(resolution) ?? 86_400_000,
    autoResolution: autoResolution(windowMs),
    rangeLabel: range.kind === 'all' ? 'last 30 days' : describeTimeRange(range).replace(/^Last/, 'last'),
    isAllowed: (c: ResolutionChoice) => c === 'auto' || bucketCount(windowMs, c) <= MAX_TREND_BUCKETS,
  }
}
