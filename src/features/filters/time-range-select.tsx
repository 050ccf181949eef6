import { parseFilterTime, type Filters } from '../../../contract/filters.ts'
import { Label, Select } from '../../components/ui/input.tsx'
import { cn } from '../../lib/cn.ts'
import { formatExactTime } from '../../lib/relative-time.ts'
import { TIME_RANGE_OPTIONS, timeRangeOf, withTimeRange, type TimeRange } from './to-filter-search.ts'

const ALL = 'all'
const CUSTOM = 'custom'

// Short enough for a select and a chart title; the exact times are in the select's title.
const rangeFormat = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })

/** "Nov 20, 10:00 – Nov 21, 12:00" for a brushed (absolute) range (shared parts written once). */
export function describeTimeRange(range: TimeRange, now = Date.now()): string {
  if (range.kind === 'all') return 'All time'
  if (range.kind === 'relative') {
    return TIME_RANGE_OPTIONS.find((option) => option.value === range.since)?.label ?? `Last ${range.since}`
  }
  const since = parseFilterTime(range.since, new Date(now))
  const before = range.before ? parseFilterTime(range.before, new Date(now)) : null
  if (!since) return `${range.since} – ${range.before ?? 'now'}`
  if (!before) return `${rangeFormat.format(since)} – now`
  return before > since ? rangeFormat.formatRange(since, before) : rangeFormat.format(since)
}

/** The exact bounds of a brushed range, for hover titles. */
const exactRange = (range: Extract<TimeRange, { kind: 'absolute' }>) =>
  `${formatExactTime(range.since)} – ${range.before ? formatExactTime(range.before) : 'now'}`

/**
 * The time range of a view: Last hour … Last 30 days or all time, written as the event.since
 * filter; a range selected on a chart (event.since + event.before) shows as a custom entry.
 */
export function TimeRangeSelect({
  filters,
  onChange,
  id,
  className,
}: {
  filters: Filters
  onChange: (next: Filters) => void
  id: string
  className?: string
}) {
  const range = timeRangeOf(filters)
  const value = range.kind === 'all' ? ALL : range.kind === 'relative' ? range.since : CUSTOM
  const known = TIME_RANGE_OPTIONS.some((option) => option.value === value) || value === ALL
  return (
    <div className={cn('flex items-center gap-2', className)}>
      <Label htmlFor={id} quiet>
        Time range
      </Label>
      <Select
        id={id}
        size="sm" fullWidth={false} className="w-auto max-w-72"
        title={range.kind === 'absolute' ? exactRange(range) : undefined}
        value={value}
        onChange={(event) => {
          const next = event.target.value
          if (next === CUSTOM) return
          onChange(withTimeRange(filters, next === ALL ? { kind: 'all' } : { kind: 'relative', since: next }))
        }}
      >
        {TIME_RANGE_OPTIONS.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
        <option value={ALL}>All time</option>
        {known ? null : <option value={value}>{describeTimeRange(range)}</option>}
      </Select>
    </div>
  )
}
