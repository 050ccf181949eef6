import type { UseQueryResult } from '@tanstack/react-query'
import { useEffect } from 'react'
import type { Filters } from '../../../contract/filters.ts'
import type { TrendBucket } from '../../../contract/trends.ts'
import { Label, Select } from '../../components/ui/input.tsx'
import { Skeleton } from '../../components/ui/skeleton.tsx'
import { EmptyState, ErrorState } from '../../components/ui/states.tsx'
import { formatCountOf } from '../../lib/relative-time.ts'
import { timeRangeOf, withoutFields, TIME_FIELDS } from '../filters/to-filter-search.ts'
import { lazyComponent } from '../../lib/lazy-component.tsx'
import { RESOLUTION_CHOICES, totalEvents, type ResolutionChoice, type TrendScale } from './to-trend-series.ts'

const RESOLUTION_LABELS: Record<Exclude<ResolutionChoice, 'auto'>, string> = {
  '1h': 'Hourly',
  '6h': 'Every 6 hours',
  '1d': 'Daily',
}

const UNIT_WORDS: Record<string, string> = { m: 'minute', h: 'hour', d: 'day' }

/** "per 6 hours", "per hour". */
export function describeResolution(resolution: string): string {
  const match = /^(\d+)([mhd])$/.exec(resolution)
  if (!match) return `per ${resolution}`
  const [, count, unit] = match as unknown as [string, string, string]
  const word = UNIT_WORDS[unit] ?? unit
  return count === '1' ? `per ${word}` : `per ${count} ${word}s`
}

export function ResolutionSelect({
  id,
  choice,
  resolved,
  onChange,
  isAllowed,
}: {
  id: string
  choice: ResolutionChoice
  /** What auto resolves to, shown in its label. */
  resolved: string
  onChange: (next: ResolutionChoice) => void
  /** Choices that would give more buckets than the server answers are disabled. */
  isAllowed: (choice: ResolutionChoice) => boolean
}) {
  return (
    <div className="flex items-center gap-2">
      <Label htmlFor={id} quiet>
        Resolution
      </Label>
      <Select
        id={id}
        size="sm" fullWidth={false} className="w-auto"
        value={choice}
        onChange={(event) => {
          const next = RESOLUTION_CHOICES.find((c) => c === event.target.value)
          if (next) onChange(next)
        }}
      >
        {RESOLUTION_CHOICES.map((value) => (
          <option key={value} value={value} disabled={!isAllowed(value)}>
            {value === 'auto' ? `Auto (${describeResolution(resolved).replace(/^per /, '')})` : RESOLUTION_LABELS[value]}
          </option>
        ))}
      </Select>
    </div>
  )
}

/** Linear or log counts: the log scale shows a small steady rate next to a burst. */
export function ScaleSelect({ id, scale, onChange }: { id: string; scale: TrendScale; onChange: (next: TrendScale) => void }) {
  return (
    <div className="flex items-center gap-2">
      <Label htmlFor={id} quiet>
        Scale
      </Label>
      <Select
        id={id}
        size="sm"
        fullWidth={false}
        className="w-auto"
        value={scale}
        title="Log shows small counts beside a spike"
        onChange={(event) => onChange(event.target.value === 'log' ? 'log' : 'linear')}
      >
        <option value="linear">Linear</option>
        <option value="log">Log</option>
      </Select>
    </div>
  )
}

export interface EmptyTrend {
  title: string
  hint: string
}

/**
 * What a chart without events says. Advice to widen the range or drop a filter only when a
 * range or a filter is there to hide events; a project that never received one has nothing to
 * widen.
 */
export function describeEmptyTrend({ hasEvents, filters }: { hasEvents: boolean; filters: Filters }): EmptyTrend {
  if (!hasEvents) return { title: 'No events yet', hint: 'Events show here as soon as the first error arrives.' }
  const narrowed = timeRangeOf(filters).kind !== 'all'
  const filtered = Object.keys(withoutFields(filters, TIME_FIELDS)).length > 0
  if (narrowed || filtered) return { title: 'No events in this range', hint: 'Choose a longer time range or remove a filter.' }
  // "All time" charts the server's default window.
  return { title: 'No events in the last 30 days', hint: 'The chart of all time shows the last 30 days.' }
}

// recharts is most of the dashboard's code: the chart is fetched once a page that shows one has
// painted (its skeleton meanwhile), so no first page waits for it. A chunk that cannot be fetched
// becomes the route's error, with Retry (lib/lazy-component.tsx).
const trendChart = lazyComponent(() => import('./trend-chart.tsx').then((module) => module.TrendChart))

/**
 * Starts fetching the chart's code as soon as a trend's panel is on screen, while its data is
 * still being asked for (a chart's window waits for the extent request, then the trend's own):
 * otherwise the code's download would only start once the buckets had arrived. A failure here
 * is left to the chart's own import, which reports it.
 */
function usePreloadedTrendChart(): void {
  useEffect(() => trendChart.preload(), [])
}

/** A trend query's states around the chart: skeleton, error with retry, "No events", the bars. */
export function TrendBody({
  query,
  resolutionMs,
  windowMs,
  label,
  height,
  empty,
  onSelectRange,
  scale = 'linear',
}: {
  query: UseQueryResult<TrendBucket[]>
  scale?: TrendScale
  /** What to say when the range holds no events; null while that is still being found out. */
  empty: EmptyTrend | null
  resolutionMs: number
  windowMs: number
  label: string
  height: number
  onSelectRange?: (range: { since: string; before: string }) => void
}) {
  usePreloadedTrendChart()
  const loading = (
    <div role="status" aria-live="polite">
      <span className="sr-only">Loading the trend</span>
      <Skeleton style={{ height }} className="w-full" />
    </div>
  )
  if (query.isPending) return loading
  if (query.isError) {
    return <ErrorState title="Could not load the trend" error={query.error} onRetry={() => void query.refetch()} />
  }
  const buckets = query.data
  const total = totalEvents(buckets)
  if (total === 0) {
    if (!empty) return loading
    return (
      <EmptyState title={empty.title} className="py-8">
        {empty.hint}
      </EmptyState>
    )
  }
  return (
    <div className={query.isPlaceholderData ? 'opacity-60 transition-opacity' : undefined}>
      <p className="sr-only" aria-live="polite">
        {formatCountOf(total, 'event')} in this range.
      </p>
      <trendChart.Component
        fallback={loading}
        buckets={buckets}
        resolutionMs={resolutionMs}
        windowMs={windowMs}
        label={`${label}: ${formatCountOf(total, 'event')}`}
        height={height}
        onSelectRange={onSelectRange}
        scale={scale}
      />
    </div>
  )
}
