// ISO 8601 and RFC 3339 times as API clients send them: calendar, ordinal and week dates,
// extended (2026-03-01T10:15:30Z) and basic (20260301T101530Z) forms, reduced precision
// (a date alone, hh:mm), a decimal fraction on the last time unit (. or ,), `T`, `t` or a
// space between date and time, and Z, ±hh, ±hhmm or ±hh:mm. A time without an offset is UTC
// (never the server's zone). Each refusal says exactly what is wrong.

export type IsoTimeReading = { time: Date; problem?: undefined } | { time?: undefined; problem: string }

const DATE_FORMS =
  /^(\d{4})(?:(-?)(?:(\d{2})(?:\2(\d{2}))?|(\d{3})|[Ww](\d{2})(?:\2?([1-7]))?))?$/
const TIME_FORM = /^(\d{2})(?::?(\d{2})(?::?(\d{2}))?)?(?:[.,](\d{1,9}))?$/
const ZONE = /(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)$/

const EXAMPLES = 'e.g. 2026-03-01, 2026-03-01T10:15:30Z, 2026-03-01T10:15:30.250+02:00 or 20260301T101530Z'
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']

const daysInMonth = (year: number, month: number) => new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0)
const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

/** Midnight UTC of a day, for any year 1 to 9999 (Date.UTC maps 0 to 99 onto 1900 to 1999). */
function utcDay(year: number, month: number, day: number): number {
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  return date.getTime()
}

/** Monday of ISO week 1 of a year: the week holding its first Thursday. */
function isoWeekOneMonday(year: number): number {
  const jan4 = utcDay(year, 1, 4)
  const weekday = (new Date(jan4).getUTCDay() + 6) % 7 // Monday 0
  return jan4 - weekday * 86_400_000
}

const weeksIn = (year: number) => Math.round((isoWeekOneMonday(year + 1) - isoWeekOneMonday(year)) / (7 * 86_400_000))

/** Midnight UTC of the date part, or what is wrong with it. */
function readDate(text: string): { ms: number } | { problem: string } {
  const match = DATE_FORMS.exec(text)
  if (!match) return { problem: `"${text}" is not an ISO 8601 date (${EXAMPLES})` }
  const [, yearText, , monthText, dayText, ordinalText, weekText, weekdayText] = match
  const year = Number(yearText)
  if (year < 1) return { problem: 'year 0000 is before the year 0001' }
  if (ordinalText !== undefined) {
    const ordinal = Number(ordinalText)
    const days = isLeap(year) ? 366 : 365
    if (ordinal < 1 || ordinal > days) return { problem: `day ${ordinalText} of ${yearText} does not exist (001 to ${days})` }
    return { ms: utcDay(year, 1, ordinal) }
  }
  if (weekText !== undefined) {
    const week = Number(weekText)
    const weeks = weeksIn(year)
    if (week < 1 || week > weeks) return { problem: `week ${weekText} of ${yearText} does not exist (01 to ${weeks})` }
    return { ms: isoWeekOneMonday(year) + ((week - 1) * 7 + Number(weekdayText ?? 1) - 1) * 86_400_000 }
  }
  const month = monthText === undefined ? 1 : Number(monthText)
  if (month < 1 || month > 12) return { problem: `month ${monthText} does not exist (01 to 12)` }
  const day = dayText === undefined ? 1 : Number(dayText)
  const days = daysInMonth(year, month)
  if (day < 1 || day > days) {
    return { problem: `day ${dayText} does not exist: ${MONTHS[month - 1]} ${yearText} has ${days} days` }
  }
  return { ms: utcDay(year, month, day) }
}

/** Milliseconds since midnight (a fraction finer than a millisecond rounds up), or what is wrong. */
function readClock(text: string): { ms: number } | { problem: string } {
  const match = TIME_FORM.exec(text)
  if (!match) return { problem: `"${text}" is not an ISO 8601 time of day (hh, hh:mm, hh:mm:ss, each with an optional fraction, or hhmmss)` }
  const [, hourText, minuteText, secondText, fraction] = match as unknown as [string, string, string?, string?, string?]
  const hour = Number(hourText)
  const minute = Number(minuteText ?? 0)
  const second = Number(secondText ?? 0)
  if (hour === 24) return { problem: 'hour 24 is not accepted; write 00:00 of the next day' }
  if (hour > 23) return { problem: `hour ${hourText} does not exist (00 to 23)` }
  if (minute > 59) return { problem: `minute ${minuteText} does not exist (00 to 59)` }
  if (second === 60) return { problem: 'second 60 (a leap second) is not accepted; write 59' }
  if (second > 59) return { problem: `second ${secondText} does not exist (00 to 59)` }
  // The fraction belongs to the last unit written: 10.5 is half past ten, 10:15.5 is 10:15:30.
  const unitMs = secondText !== undefined ? 1000 : minuteText !== undefined ? 60_000 : 3_600_000
  const fractionMs = fraction ? Math.ceil(Number(`0.${fraction}`) * unitMs - 1e-9) : 0
  return { ms: ((hour * 60 + minute) * 60 + second) * 1000 + fractionMs }
}

/** An ISO 8601 / RFC 3339 date or time, or a message saying what is wrong with it. */
export function readIsoTime(input: string): IsoTimeReading {
  const text = input.trim()
  if (text === '') return { problem: `is empty; expected an ISO 8601 time (${EXAMPLES})` }
  // The date ends at T, t or a space (RFC 3339), after the digits, - and W a date is written with.
  const dateEnd = /^[0-9Ww-]+(?=[Tt ])/.exec(text)?.[0].length
  const date = readDate(dateEnd === undefined ? text : text.slice(0, dateEnd))
  if ('problem' in date) return { problem: date.problem.replace(/^"[^"]*"/, JSON.stringify(text)) }
  let ms = date.ms
  if (dateEnd !== undefined) {
    let clock = text.slice(dateEnd + 1)
    let offsetMinutes = 0
    const zone = ZONE.exec(clock)
    // A bare -hh could be the end of a basic time (101530-05): a zone needs digits before it.
    if (zone && zone.index > 0) {
      clock = clock.slice(0, zone.index)
      if (!zone[1]) {
        const hours = Number(zone[3])
        const minutes = Number(zone[4] ?? 0)
        if (hours > 23 || minutes > 59) return { problem: `offset ${zone[0]} is not an offset (hours 00 to 23, minutes 00 to 59)` }
        offsetMinutes = (zone[2] === '-' ? -1 : 1) * (hours * 60 + minutes)
      }
    }
    const time = readClock(clock)
    if ('problem' in time) return { problem: time.problem }
    ms += time.ms - offsetMinutes * 60_000
  }
  const result = new Date(ms)
  const year = result.getUTCFullYear()
  if (Number.isNaN(ms) || year < 1 || year > 9999) return { problem: 'must be between the years 0001 and 9999 (UTC)' }
  return { time: result }
}
