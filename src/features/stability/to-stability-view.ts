// The stability page's period in the URL and on the wire, and how a rate reads.
import type { Filters } from '../../../contract/filters.ts'
import type { StabilityBucket } from '../../../contract/stability.ts'
import { fromFilterSearch, TIME_FIELDS, withoutFields } from '../filters/to-filter-search.ts'

/** With no `f` in the URL the page shows all time, as the errors page and its chart do: one default range. */
export const DEFAULT_STABILITY_FILTERS: Filters = {}

/** The earliest time the API reads: "All time" is sent as a period starting there. */
const ALL_TIME_SINCE = '0001-01-01T00:00:00Z'

/** The view's time range from the URL's `f` entries (other fields are not the page's and are dropped). */
export function stabilityViewFilters(entries: readonly string[] | undefined): Filters {
  if (entries === undefined) return DEFAULT_STABILITY_FILTERS
  const filters = fromFilterSearch(entries)
  return withoutFields(filters, Object.keys(filters).filter((field) => !(TIME_FIELDS as readonly string[]).includes(field)))
}

/** What the page asks the API for: without event.since the API would read 30 days, so "All time" is said outright. */
export function toStabilityFilters(view: Filters): Filters {
  return view['event.since'] ? view : { ...view, 'event.since': [{ type: 'eq', value: ALL_TIME_SINCE }] }
}

/**
 * A crash-free rate as a percentage with one decimal, rounded DOWN so that a release that
 * crashed at all never reads 100.0%; an em dash when there is no rate (no sessions counted).
 */
export function formatCrashFreeRate(rate: number | null): string {
  if (rate === null) return '—'
  return `${(Math.floor(rate * 1000 + 1e-9) / 10).toFixed(1)}%`
}

export type StabilityTone = 'success' | 'warning' | 'danger' | 'neutral'

/** How healthy a rate is: at least 99.5 % healthy, at least 98 % fair, below that poor. */
export function stabilityTone(rate: number | null): { tone: StabilityTone; label: string } {
  if (rate === null) return { tone: 'neutral', label: 'No sessions' }
  if (rate >= 0.995) return { tone: 'success', label: 'Healthy' }
  if (rate >= 0.98) return { tone: 'warning', label: 'Fair' }
  return { tone: 'danger', label: 'Poor' }
}

export interface StabilityPoint {
  /** Bucket start, epoch ms (the x value). */
  time: number
  from: string
  to: string
  sessions: number
  crashed: number
  /** Crash-free percentage, 0–100; null without sessions (a gap in the line, not a 0). */
  percent: number | null
}

export const toStabilityPoints = (buckets: readonly StabilityBucket[]): StabilityPoint[] =>
  buckets.map((b) => ({
    time: Date.parse(b.from),
    from: b.from,
    to: b.to,
    sessions: b.sessions,
    crashed: b.crashed_sessions,
    percent: b.crash_free_rate === null ? null : b.crash_free_rate * 100,
  }))

/**
 * The rate axis: up to 100 %, down to a whole percent below the lowest rate, so that a dip from
 * 99.9 % to 99.2 % is visible rather than a flat line at the top of a 0–100 axis.
 */
export function stabilityDomain(points: readonly StabilityPoint[]): [number, number] {
  const rates = points.flatMap((p) => (p.percent === null ? [] : [p.percent]))
  if (rates.length === 0) return [0, 100]
  const lower = Math.max(0, Math.floor(Math.min(...rates)) - 1)
  // A wide span starts at a multiple of 10, so its ticks read 40 %, 60 %… rather than 49 %, 69 %.
  return [100 - lower > 10 ? Math.floor(lower / 10) * 10 : lower, 100]
}
