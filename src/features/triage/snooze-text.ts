import type { StoredReopenRules } from '../../../contract/errors.ts'
import { once } from '../../lib/once.ts'
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

const timeFormat = once(() => new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }))

/**
 * A snooze rule in words, as it continues "Snoozed …": "until 3 more events",
 * "until 10 events in 2 hours", "until Nov 22, 14:00". With the error's current event count the
 * first counts down from the bookkeeping the server stored at snooze time.
 */
export function describeReopenRules(rules: StoredReopenRules | null, currentEvents?: number): string | null {
  if (!rules) return null
  switch (rules.reopen_if) {
    case 'n_additional_occurrences': {
      const remaining =
        currentEvents === undefined
          ? rules.additional_occurrences
          : Math.max(0, rules.events_at_snooze + rules.additional_occurrences - currentEvents)
      return `until ${plural(remaining, 'more event')}`
    }
    case 'n_additional_users':
      return `until ${plural(rules.additional_users, 'more user')}`
    case 'n_occurrences_in_m_hours':
      return `until ${plural(rules.occurrences, 'event')} in ${plural(rules.hours, 'hour')}`
    case 'occurs_after': {
      const reopenAfter = Date.parse(rules.reopen_after)
      return Number.isNaN(reopenAfter) ? `for ${formatDuration(rules.seconds)}` : `until ${timeFormat().format(reopenAfter)}`
    }
  }
}
