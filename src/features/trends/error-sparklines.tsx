import { useQueries } from '@tanstack/react-query'
import { useMemo } from 'react'
import { parseDuration, type Filters } from '../../../contract/filters.ts'
import type { TrendBucket } from '../../../contract/trends.ts'
import { errorTrendsQuery, MAX_ERROR_TRENDS_IDS } from '../../api/trends.ts'
import { cn } from '../../lib/cn.ts'
import { formatCount } from '../../lib/relative-time.ts'
import { describeTimeRange } from '../filters/time-range-select.tsx'
import { timeRangeOf, timeWindowOf, withTimeRange } from '../filters/to-filter-search.ts'
import { bucketCount, sparklinePoints, totalEvents } from './to-trend-series.ts'
import { describeResolution } from './trend-panel.tsx'

const DEFAULT_SPARKLINE_RANGE = '14d'
const HOUR = 3_600_000
// A sparkline is a few dozen pixels wide: the finest resolution that keeps it to this many points.
const MAX_SPARKLINE_POINTS = 48
const SPARKLINE_RESOLUTIONS = ['1m', '5m', '30m', '1h', '6h', '1d'] as const
/** Relative ranges up to this long are cut in minutes: hourly buckets would be a handful of points. */
const MINUTES_UP_TO_MS = 12 * HOUR
/** ...and up to this long in hours: a day and a half of daily buckets would be two points. */
const HOURS_UP_TO_MS = 48 * HOUR

const finestResolution = (spanMs: number) =>
  SPARKLINE_RESOLUTIONS.find((r) => bucketCount(spanMs, r) <= MAX_SPARKLINE_POINTS) ?? '1d'

/**
 * The range and resolution sparklines use for a list's filters: the last 14 days without a
 * range; over a relative range daily, hourly up to two days and in minutes up to a few hours
 * (5-minute buckets for the last hour), and for a range selected on the chart the finest
 * resolution that keeps a sparkline to a few dozen points. The trend API takes any whole number
 * of minutes, hours or days.
 */
export function sparklineWindow(filters: Filters, now = Date.now()): { filters: Filters; resolution: string; label: string } {
  const range = timeRangeOf(filters)
  if (range.kind === 'all') {
    return {
      filters: withTimeRange(filters, { kind: 'relative', since: DEFAULT_SPARKLINE_RANGE }),
      resolution: '1d',
      label: 'Events per day, last 14 days',
    }
  }
  if (range.kind === 'absolute') {
    const { from, to } = timeWindowOf(range, now, 0)
    const resolution = finestResolution(to - from)
    // The range itself is in the time range control; the column header stays short.
    return { filters, resolution, label: `Events ${describeResolution(resolution)}, selected range` }
  }
  const span = parseDuration(range.since) ?? Infinity
  const resolution = span <= MINUTES_UP_TO_MS ? finestResolution(span) : span <= HOURS_UP_TO_MS ? '1h' : '1d'
  return {
    filters,
    resolution,
    label: `Events ${describeResolution(resolution)}, ${describeTimeRange(range).replace(/^Last/, 'last')}`,
  }
}

export interface ErrorSparklines {
  /** Buckets of one error; undefined while loading (or when its request failed). */
  bucketsOf: (errorId: string) => TrendBucket[] | undefined
  /** What every sparkline shows, e.g. "Events per day, last 14 days". */
  label: string
  isError: boolean
}

/**
 * Sparklines for the loaded rows of the errors list: one GET /error_trends per 100 ids (the
 * server's limit) rather than one request per row.
 */
export function useErrorSparklines(projectId: string, errorIds: readonly string[], filters: Filters): ErrorSparklines {
  const window = sparklineWindow(filters)
  const idsKey = errorIds.join(',')
  const chunks = useMemo(() => {
    const ids = idsKey ? idsKey.split(',') : []
    const result: string[][] = []
    for (let i = 0; i < ids.length; i += MAX_ERROR_TRENDS_IDS) result.push(ids.slice(i, i + MAX_ERROR_TRENDS_IDS))
    return result
  }, [idsKey])
  const results = useQueries({
    queries: chunks.map((ids) => errorTrendsQuery(projectId, ids, { resolution: window.resolution, filters: window.filters })),
  })
  const merged = new Map<string, TrendBucket[]>()
  for (const result of results) {
    for (const [id, buckets] of Object.entries(result.data ?? {})) merged.set(id, buckets)
  }
  return {
    bucketsOf: (errorId) => merged.get(errorId),
    label: window.label,
    isError: results.some((result) => result.isError),
  }
}

/** A tiny line of events per bucket; its label carries the total for screen readers. */
export function Sparkline({
  buckets,
  label,
  width = 80,
  height = 24,
  className,
}: {
  buckets: readonly TrendBucket[] | undefined
  label: string
  width?: number
  height?: number
  className?: string
}) {
  if (!buckets) {
    return (
      <span
        aria-hidden="true"
        className={cn('inline-block animate-pulse rounded bg-surface-muted', className)}
        style={{ width, height }}
      />
    )
  }
  const total = totalEvents(buckets)
  return (
    <svg
      role="img"
      aria-label={`${label}: ${formatCount(total)}`}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      className={cn('inline-block overflow-visible text-accent', className)}
    >
      <title>{`${label}: ${formatCount(total)}`}</title>
      <polyline
        points={sparklinePoints(
          buckets.map((bucket) => bucket.events_count),
          width,
          height,
        )}
        fill="none"
        stroke="currentColor"
        strokeWidth={1.5}
        strokeLinejoin="round"
        strokeLinecap="round"
      />
    </svg>
  )
}
