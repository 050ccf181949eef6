/**
 * A time as notifiers send it, in epoch milliseconds (NaN when unreadable). ISO 8601 without a
 * zone ("2026-11-23T01:00:00", as bugsnag-python, -ruby and -php send session start times) is UTC,
 * as those notifiers mean it; Date.parse alone would read it in the server's own time zone.
 * 10 to 15 digits alone are epoch milliseconds, as the same value sent as a JSON number is; other
 * digits, but for a year, are unreadable (Date.parse reads "0" as 2000-01-01 and "12345" as a year). A date that is not in the calendar ("2026-02-30") is unreadable,
 * rather than rolled over into March.
 */
export function parseNotifierTime(value: string): number {
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) {
    // Epoch milliseconds from 10 digits; a bare year ("2026") is a date; other digits are not a time.
    if (trimmed.length >= 10 && trimmed.length <= 15) return Number(trimmed)
    if (trimmed.length !== 4) return Number.NaN
  }
  const date = /^(\d{4})-(\d{2})-(\d{2})/.exec(trimmed)
  if (date && !isCalendarDate(Number(date[1]), Number(date[2]), Number(date[3]))) return Number.NaN
  // "T", "t" or a space between date and time (RFC 3339 allows the latter two; Python's str() writes a space).
  const zoneless = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/.exec(trimmed)
  return Date.parse(zoneless ? `${zoneless[1]}T${zoneless[2]}Z` : trimmed)
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate()
}
