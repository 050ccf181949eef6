import { formatCount } from '../../lib/relative-time.ts'

const plural = (value: number, singular: string) => `${formatCount(value)} ${value === 1 ? singular : `${singular}s`}`

const DURATION_UNITS: [string, number][] = [
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
]

/** 86400 → "1 day", 5400 → "90 minutes": the largest unit that divides evenly. */
export function formatDuration(seconds: number): string {
  for (const [unit, size] of DURATION_UNITS) {
    if (seconds >= size && seconds % size === 0) return plural(seconds / size, unit)
  }
  return plural(seconds, 'second')
}

const timeFormat = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null)

/**
 * A snooze rule in words, as it continues "Snoozed …": "until 3 more events",
 * "until 10 events in 2 hours", "until Nov 22, 14:00". With the error's current event count the
 * first counts down from the bookkeeping the server stored at snooze time.
 */
export function describeReopenRules(rules: Record<string, unknown> | null, currentEvents?: number): string | null {
  if (!rules) return null
  switch (rules.reopen_if) {
    case 'n_additional_occurrences': {
      const additional = num(rules.additional_occurrences)
      if (additional === null) return null
      const atSnooze = num(rules.events_at_snooze)
      const remaining =
        atSnooze !== null && currentEvents !== undefined ? Math.max(0, atSnooze + additional - currentEvents) : additional
      return `until ${plural(remaining, 'more event')}`
    }
    case 'n_occurrences_in_m_hours': {
      const occurrences = num(rules.occurrences)
      const hours = num(rules.hours)
      if (occurrences === null || hours === null) return null
      return `until ${plural(occurrences, 'event')} in ${plural(hours, 'hour')}`
    }
    case 'occurs_after': {
      const reopenAfter = typeof rules.reopen_after === 'string' ? Date.parse(rules.reopen_after) : Number.NaN
      if (!Number.isNaN(reopenAfter)) return `until ${timeFormat.format(reopenAfter)}`
      const seconds = num(rules.seconds)
      return seconds === null ? null : `for ${formatDuration(seconds)}`
    }
    default:
      return null
  }
}
