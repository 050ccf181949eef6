import { once } from './once.ts'

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
]

// Each formatter made on its first use (once.ts), not when the module loads.
const relativeFormat = once(() => new Intl.RelativeTimeFormat('en', { numeric: 'auto' }))

// Server times run a little ahead of a browser whose clock is slow: up to a minute ahead is "just now".
const CLOCK_SKEW_SECONDS = 60

/** "just now", "3 minutes ago", "in 2 hours" — the largest unit that fits. */
export function formatRelativeTime(iso: string, now: number = Date.now()): string {
  const time = Date.parse(iso)
  if (Number.isNaN(time)) return iso
  const seconds = Math.round((time - now) / 1000)
  const abs = Math.abs(seconds)
  if (abs < 10 || (seconds > 0 && seconds <= CLOCK_SKEW_SECONDS)) return 'just now'
  for (const [unit, size] of UNITS) {
    if (abs >= size || unit === 'second') return relativeFormat().format(Math.trunc(seconds / size), unit)
  }
  return relativeFormat().format(seconds, 'second')
}

const exactFormat = once(
  () =>
    new Intl.DateTimeFormat('en', {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    }),
)

/** The exact local time, for hover titles: "Nov 22, 2026, 11:01:58 UTC". */
export function formatExactTime(iso: string): string {
  const time = Date.parse(iso)
  return Number.isNaN(time) ? iso : exactFormat().format(time)
}

const clockFormat = once(
  () =>
    new Intl.DateTimeFormat('en', {
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      fractionalSecondDigits: 3,
      hourCycle: 'h23',
    }),
)

/** "11:01:58.353" — breadcrumb times, where the milliseconds between steps matter. */
export function formatClockTime(iso: string): string {
  const time = Date.parse(iso)
  return Number.isNaN(time) ? iso : clockFormat().format(time)
}

const dayFormat = once(() => new Intl.DateTimeFormat('en', { year: 'numeric', month: 'short', day: 'numeric' }))

/**
 * A breadcrumb's time: "11:01:58.353" on the event's day, with the date before it when the
 * breadcrumb is from another day ("Nov 21, 2026, 23:59:58.100"), as the local calendar reads.
 */
export function formatClockTimeOn(iso: string, eventIso: string): string {
  const time = Date.parse(iso)
  const eventTime = Date.parse(eventIso)
  if (Number.isNaN(time)) return iso
  const day = dayFormat().format(time)
  const clock = clockFormat().format(time)
  return !Number.isNaN(eventTime) && day === dayFormat().format(eventTime) ? clock : `${day}, ${clock}`
}

const numberFormat = once(() => new Intl.NumberFormat('en'))
export const formatCount = (value: number): string => numberFormat().format(value)

const compactFormat = once(() => new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 }))
/** "950", "1.5K", "20K", "1.2M": at most four characters, for labels with little room (chart axes). */
export const formatCompactCount = (value: number): string => compactFormat().format(value)

/** A count with its noun in the right number: `1 event`, `1,204 events`. */
export const formatCountOf = (value: number, singular: string, plural = `${singular}s`): string =>
  `${formatCount(value)} ${value === 1 ? singular : plural}`
