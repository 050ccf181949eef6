/**
 * A time as notifiers send it, in epoch milliseconds (NaN when unreadable). ISO 8601 without a
 * zone ("2026-11-23T01:00:00", as bugsnag-python, -ruby and -php send session start times) is UTC,
 * as those notifiers mean it; Date.parse alone would read it in the server's own time zone.
 */
export function parseNotifierTime(value: string): number {
  const trimmed = value.trim()
  // "T", "t" or a space between date and time (RFC 3339 allows the latter two; Python's str() writes a space).
  const zoneless = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/.exec(trimmed)
  return Date.parse(zoneless ? `${zoneless[1]}T${zoneless[2]}Z` : trimmed)
}
