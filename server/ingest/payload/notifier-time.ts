// ISO 8601 / RFC 3339 as notifiers write it: a date, then optionally a time ("T", "t" or a space
// between, as RFC 3339 and Python's str() allow) with an optional fraction and zone.
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/
// RFC 1123 / 2822, as an HTTP Date header reads: "Mon, 23 Nov 2026 01:00:00 GMT".
const RFC_2822_TIME = /^(?:[A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{2}:\d{2}(?::\d{2})?\s+(?:GMT|UTC|UT|Z|[+-]\d{4})$/

/**
 * A time as notifiers send it, in epoch milliseconds (NaN when unreadable). Only the forms above
 * and epoch milliseconds are read: Date.parse alone takes almost any text for a date ("session 12"
 * is 2001-12-01, "1.5" 2001-01-05, "0" 2000-01-01). ISO 8601 without a zone
 * ("2026-11-23T01:00:00", as bugsnag-python, -ruby and -php send session start times) is UTC, as
 * those notifiers mean it, not the server's own time zone. 10 to 15 digits alone are epoch
 * milliseconds, as the same value sent as a JSON number is; 4 digits are a year; other digits are
 * unreadable. A date that is not in the calendar ("2026-02-30") is unreadable, rather than rolled
 * over into March.
 */
export function parseNotifierTime(value: string): number {
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) {
    if (trimmed.length >= 10 && trimmed.length <= 15) return Number(trimmed)
    return trimmed.length === 4 ? Date.UTC(Number(trimmed), 0, 1) : Number.NaN
  }
  const iso = ISO_TIME.exec(trimmed)
  if (iso) {
    const [, year, month, day, time, zone] = iso
    if (!isCalendarDate(Number(year), Number(month), Number(day))) return Number.NaN
    if (time === undefined) return Date.parse(`${year}-${month}-${day}`)
    return Date.parse(`${year}-${month}-${day}T${time.replace(',', '.')}${isoZone(zone)}`)
  }
  return RFC_2822_TIME.test(trimmed) ? Date.parse(trimmed) : Number.NaN
}

/** "Z" for none (UTC, see above), "z" and the short forms "+01" and "+0100" as "+01:00". */
function isoZone(zone: string | undefined): string {
  if (zone === undefined || zone === 'z' || zone === 'Z') return 'Z'
  const digits = zone.slice(1).replace(':', '')
  return `${zone[0]}${digits.slice(0, 2)}:${digits.slice(2) || '00'}`
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate()
}
