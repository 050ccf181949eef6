// Pure shaping for the trend charts: which resolution a range gets, chart points, the range a
// brush selects, and sparkline geometry.
import { MAX_TREND_BUCKETS, parseResolution, type TrendBucket } from '../../../contract/trends.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR

export const RESOLUTION_CHOICES = ['auto', '1h', '6h', '1d'] as const
export type ResolutionChoice = (typeof RESOLUTION_CHOICES)[number]

/**
 * How the count axis is drawn. Log keeps a steady trickle readable beside a burst a thousand
 * times taller; linear (the default) keeps bar heights proportional.
 */
export const TREND_SCALES = ['linear', 'log'] as const
export type TrendScale = (typeof TREND_SCALES)[number]

/**
 * The y-axis ticks of the log scale (drawn as symlog, which takes 0 where log cannot): 0, then
 * powers of ten up to the first at or above the peak, so the top tick bounds every bar. At most
 * `maxTicks` in all, as on the linear scale, so a short chart's labels do not overlap: past that,
 * every second (third…) power of ten, counted down from the top.
 */
export function logScaleTicks(peak: number, maxTicks = 4): number[] {
  const decades = [1]
  while (decades[decades.length - 1]! < peak) decades.push(decades[decades.length - 1]! * 10)
  const step = Math.ceil(decades.length / Math.max(1, maxTicks - 1))
  return [0, ...decades.filter((_, index) => (decades.length - 1 - index) % step === 0)]
}

/** A resolution giving a readable number of bars (roughly 24 to 180) for a window. */
export function autoResolution(windowMs: number): string {
  if (windowMs <= 3 * HOUR) return '1m'
  if (windowMs <= 12 * HOUR) return '5m'
  if (windowMs <= 2 * DAY) return '30m'
  if (windowMs <= 7 * DAY) return '1h'
  if (windowMs <= 31 * DAY) return '6h'
  return '1d'
}

/** How many buckets a resolution gives over a window. */
export const bucketCount = (windowMs: number, resolution: string): number =>
  Math.ceil(windowMs / (parseResolution(resolution) ?? DAY))

/** The resolution to request: the chosen one, or auto when the choice would exceed the server's limit. */
export function resolveResolution(choice: ResolutionChoice, windowMs: number): string {
  if (choice === 'auto' || bucketCount(windowMs, choice) > MAX_TREND_BUCKETS) return autoResolution(windowMs)
  return choice
}

export interface TrendPoint {
  /** Bucket start, epoch ms (the x value). */
  time: number
  from: string
  to: string
  events: number
}

export const toTrendPoints = (buckets: readonly TrendBucket[]): TrendPoint[] =>
  buckets.map((bucket) => ({ time: Date.parse(bucket.from), from: bucket.from, to: bucket.to, events: bucket.events_count }))

export const totalEvents = (buckets: readonly TrendBucket[]): number =>
  buckets.reduce((sum, bucket) => sum + bucket.events_count, 0)

/**
 * The time range a brush over buckets `a`..`b` (either order, inclusive) selects: from the
 * first bucket's start to the last one's end. Null when the indexes are out of range.
 */
export function brushedRange(
  buckets: readonly Pick<TrendBucket, 'from' | 'to'>[],
  a: number,
  b: number,
): { since: string; before: string } | null {
  const first = buckets[Math.min(a, b)]
  const last = buckets[Math.max(a, b)]
  if (!first || !last) return null
  return { since: first.from, before: last.to }
}

const timeOnly = new Intl.DateTimeFormat('en', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
const dayOnly = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric' })
const dayAndTime = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })

/** "Nov 20, 10:04": when a chart fitted to its data starts. */
export const formatFirstEvent = (time: number): string => dayAndTime.format(time)

/** Axis tick text for a bucket start: times for sub-day resolutions over a day, dates otherwise. */
export function formatTick(time: number, resolutionMs: number, windowMs: number): string {
  if (resolutionMs >= DAY) return dayOnly.format(time)
  if (windowMs <= DAY) return timeOnly.format(time)
  return dayAndTime.format(time)
}

const isMidnight = (time: number) => {
  const date = new Date(time)
  return date.getHours() === 0 && date.getMinutes() === 0 && date.getSeconds() === 0 && date.getMilliseconds() === 0
}

/**
 * A bucket's span for tooltips and the data table: "Nov 20, 10:00 – 11:00", a whole day as
 * "Nov 20" (not "Nov 20, 00:00 – 00:00"), and an end at midnight with its date.
 */
export function formatBucketRange(from: string, to: string): string {
  const start = Date.parse(from)
  const end = Date.parse(to)
  if (end - start >= DAY && isMidnight(start) && isMidnight(end)) {
    const lastDay = dayOnly.format(end - 1)
    return lastDay === dayOnly.format(start) ? lastDay : `${dayOnly.format(start)} – ${lastDay}`
  }
  const sameDay = dayOnly.format(start) === dayOnly.format(end)
  return sameDay ? `${dayAndTime.format(start)} – ${timeOnly.format(end)}` : `${dayAndTime.format(start)} – ${dayAndTime.format(end)}`
}

/** SVG polyline points for a sparkline of `counts` in a width × height box (1px inset). */
export function sparklinePoints(counts: readonly number[], width: number, height: number): string {
  if (counts.length === 0) return ''
  const max = Math.max(...counts, 1)
  const step = counts.length > 1 ? (width - 2) / (counts.length - 1) : 0
  return counts
    .map((count, index) => {
      const x = 1 + index * step
      const y = height - 1 - (count / max) * (height - 2)
      return `${round(x)},${round(y)}`
    })
    .join(' ')
}

const round = (n: number) => Math.round(n * 10) / 10

/** The time axis of the trend and stability charts (recharts XAxis props): one look for both. */
export const timeAxisProps = (resolutionMs: number, windowMs: number) => ({
  dataKey: 'time',
  tickFormatter: (time: number) => formatTick(time, resolutionMs, windowMs),
  tick: { fontSize: 11, fill: 'var(--color-muted-foreground)' },
  tickLine: false,
  axisLine: { stroke: 'var(--color-border)' },
  minTickGap: 24,
})
