// The filter syntax of the Data Access API: query parameters filters[<field>][][value] and
// filters[<field>][][type], given as pairs. Several `eq` values of one field are OR-ed,
// several `ne` values AND-ed; different fields are AND-ed. On a substring field (user.email,
// user.name, event.message) `eq` means "contains" and `exact` the whole value, case ignored.
// docs/filters.md explains each field.
import { z } from 'zod/mini'
import { ERROR_STATUSES, SEVERITIES } from './errors.ts'
import { readIsoTime } from './iso-time.ts'

export const FILTER_TYPES = ['eq', 'ne', 'empty', 'exact'] as const
export type FilterType = (typeof FILTER_TYPES)[number]

/**
 * How a field is evaluated: `error` fields test the error group, `event` fields test single
 * events (an error matches when one of its events matches every event condition), `time`
 * fields bound the events' received time, `seen_in` tests the versions an error was seen in.
 */
export type FilterScope = 'error' | 'event' | 'time' | 'seen_in'

/** How a value is compared: exactly, or as a case-insensitive substring. */
export type FilterMatch = 'exact' | 'substring'

export interface FilterFieldDefinition {
  display_id: string
  name: string
  scope: FilterScope
  types: readonly FilterType[]
  match: FilterMatch
  /** Allowed values when the field is an enumeration. */
  values?: readonly string[]
  /** Whether the field can be pivoted on (GET …/pivots/{display_id}/values). */
  pivot: boolean
}

const field = (
  display_id: string,
  name: string,
  scope: FilterScope,
  options: Partial<Pick<FilterFieldDefinition, 'types' | 'match' | 'values' | 'pivot'>> = {},
): FilterFieldDefinition => ({
  display_id,
  name,
  scope,
  // A substring field can also be matched as a whole (a privacy request for one email address).
  types: options.types ?? (options.match === 'substring' ? ['eq', 'ne', 'exact', 'empty'] : ['eq', 'ne', 'empty']),
  match: options.match ?? 'exact',
  values: options.values,
  pivot: options.pivot ?? false,
})

/** The free-text field: what the filter bar's search box sends. */
export const SEARCH_FIELD_ID = 'search'
/** What the search field looks in, as the dashboard names it ("searched error class, message and context"). */
export const SEARCHED_FIELDS = ['error class', 'message', 'context'] as const

/** Every filterable field, in the order the dashboard offers them. */
export const FILTER_FIELDS: readonly FilterFieldDefinition[] = [
  // Free text: a case-insensitive substring of an event's error class, message or context.
  field(SEARCH_FIELD_ID, 'Search', 'event', { types: ['eq', 'ne'], match: 'substring' }),
  field('error.status', 'Status', 'error', { types: ['eq', 'ne'], values: ERROR_STATUSES }),
  field('error.assigned_to', 'Assigned to', 'error'),
  field('error.severity', 'Severity', 'error', { types: ['eq', 'ne'], values: SEVERITIES }),
  // One error by id: how Bugsnag's clients ask for an error's events or pivots with filters.
  field('error', 'Error', 'error', { types: ['eq', 'ne'] }),
  field('event.since', 'Seen since', 'time', { types: ['eq'] }),
  field('event.before', 'Seen before', 'time', { types: ['eq'] }),
  field('version.seen_in', 'Seen in version', 'seen_in', { types: ['eq', 'ne'] }),
  field('app.release_stage', 'Release stage', 'event', { pivot: true }),
  field('app.version', 'App version', 'event', { pivot: true }),
  field('user.id', 'User id', 'event', { pivot: true }),
  field('user.name', 'User name', 'event', { match: 'substring' }),
  field('user.email', 'User email', 'event', { match: 'substring' }),
  field('event.class', 'Error class', 'event'),
  field('event.message', 'Error message', 'event', { match: 'substring' }),
  // Pivoted as `context` (Bugsnag's name) or `event.context`.
  field('event.context', 'Context', 'event', { pivot: true }),
  field('device.os_name', 'OS name', 'event', { pivot: true }),
  field('device.os_version', 'OS version', 'event', { pivot: true }),
  field('device.browser_name', 'Browser', 'event', { pivot: true }),
  field('device.model', 'Device model', 'event', { pivot: true }),
  field('request.url', 'Request URL', 'event', { pivot: true }),
]

/** Pivots answer for these display ids; `context` is an alias of event.context as Bugsnag names it. */
export const PIVOT_FIELD_IDS = [
  'user.id',
  'app.version',
  'app.release_stage',
  'context',
  'device.os_name',
  'device.os_version',
  'device.browser_name',
  'device.model',
  'request.url',
] as const
export type PivotFieldId = (typeof PIVOT_FIELD_IDS)[number]

/** The filter field a pivot's values narrow (clicking a pivot value adds this filter). */
export const pivotFilterField = (pivotId: PivotFieldId): string => (pivotId === 'context' ? 'event.context' : pivotId)

const FIELDS_BY_ID = new Map(FILTER_FIELDS.map((f) => [f.display_id, f]))
export const filterField = (displayId: string): FilterFieldDefinition | undefined => FIELDS_BY_ID.get(displayId)

export interface FilterCondition {
  type: FilterType
  value: string
}

/** Parsed filters: field display id → its conditions, in the order given. */
export type Filters = Record<string, FilterCondition[]>

/** The JSON form of filters in resources (event data requests): as the spec shows it. */
export const filtersSchema = z.record(
  z.string(),
  z.array(z.object({ type: z.enum(FILTER_TYPES), value: z.string() })),
)

const DURATION = /^(\d{1,6})([smhdw])$/
const DURATION_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 } as const

/** A relative duration such as `30m`, `12h` or `7d` in milliseconds; null when not one. */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text.trim())
  if (!match) return null
  const seconds = Number(match[1]) * DURATION_SECONDS[match[2] as keyof typeof DURATION_SECONDS]
  return seconds > 0 ? seconds * 1000 : null
}

// The earliest time a filter can name: PostgreSQL's timestamps, like ours, start in year 1.
const EARLIEST_TIME = Date.parse('0001-01-01T00:00:00Z')

/**
 * An ISO 8601 / RFC 3339 date or time as a Date, or null (contract/iso-time.ts says why): the
 * calendar must hold the date as written (2026-02-30 is no date), a time without an offset is
 * UTC, and a fraction finer than a millisecond rounds up, so [since, before) holds for
 * whole-millisecond received times (an event at .673 is before .6735 and not after it).
 */
export function parseIsoTime(text: string): Date | null {
  return readIsoTime(text).time ?? null
}

/**
 * A time filter value: a relative duration back from `now` (one reaching before year 1
 * means "since the beginning"), or an ISO 8601 time (parseIsoTime).
 */
export function parseFilterTime(text: string, now: Date): Date | null {
  const duration = parseDuration(text)
  if (duration !== null) return new Date(Math.max(now.getTime() - duration, EARLIEST_TIME))
  return parseIsoTime(text)
}

const FILTER_KEY = /^filters\[([^\]]+)\]\[(\d*)\]\[(value|type)\]$/

/**
 * Reads filters from query parameters. Returns the filters, or messages naming each
 * malformed field and what was expected. Validation of values that depend on the
 * server (collaborator ids) happens where the filter is applied.
 */
export function parseFilterParams(params: URLSearchParams): { filters: Filters; problems: string[] } {
  const raw = new Map<string, { values: string[]; types: string[]; indexed: Map<string, { value?: string; type?: string }> }>()
  const problems: string[] = []
  for (const [key, value] of params) {
    if (!key.startsWith('filters')) continue
    const match = FILTER_KEY.exec(key)
    if (!match) {
      problems.push(`${key}: expected filters[<field>][][value] and filters[<field>][][type]`)
      continue
    }
    const [, fieldId, index, part] = match as unknown as [string, string, string, 'value' | 'type']
    let entry = raw.get(fieldId)
    if (!entry) {
      entry = { values: [], types: [], indexed: new Map() }
      raw.set(fieldId, entry)
    }
    if (index === '') (part === 'value' ? entry.values : entry.types).push(value)
    else {
      const slot = entry.indexed.get(index) ?? {}
      slot[part] = value
      entry.indexed.set(index, slot)
    }
  }

  const filters: Filters = {}
  for (const [fieldId, entry] of raw) {
    const name = `filters[${fieldId}]`
    const definition = filterField(fieldId)
    if (!definition) {
      problems.push(`${name}: unknown filter field "${fieldId}" (GET /projects/{id}/event_fields lists them)`)
      continue
    }
    if (entry.values.length !== entry.types.length) {
      problems.push(
        `${name}: ${entry.values.length} value(s) but ${entry.types.length} type(s); give every value a type, e.g. filters[${fieldId}][][type]=eq`,
      )
      continue
    }
    const pairs = entry.values.map((value, i) => ({ value, type: entry.types[i]! }))
    for (const [index, slot] of [...entry.indexed].sort((a, b) => Number(a[0]) - Number(b[0]))) {
      if (slot.value === undefined || slot.type === undefined) {
        problems.push(`${name}[${index}]: needs both a value and a type`)
        continue
      }
      pairs.push({ value: slot.value, type: slot.type })
    }
    const conditions: FilterCondition[] = []
    for (const pair of pairs) {
      const problem = checkCondition(definition, pair.type, pair.value)
      if (problem) problems.push(`${name}: ${problem}`)
      else conditions.push({ type: pair.type as FilterType, value: pair.value })
    }
    if (conditions.length > 0) filters[fieldId] = conditions
  }
  return { filters, problems }
}

/** error.assigned_to: someone, the caller, or a user id (ids are 24 hex characters, as newId makes them). */
const ASSIGNEE = /^(anyone|me|[0-9a-f]{24})$/
const ERROR_ID = /^[A-Za-z0-9_-]{1,64}$/

/** What is wrong with one condition of a field, or null when it is well formed. */
export function checkCondition(definition: FilterFieldDefinition, type: string, value: string): string | null {
  if (!(FILTER_TYPES as readonly string[]).includes(type)) {
    return `unknown type "${type}"; expected one of ${definition.types.join(', ')}`
  }
  if (!definition.types.includes(type as FilterType)) {
    return `type "${type}" is not supported for this field; expected one of ${definition.types.join(', ')}`
  }
  if (type === 'empty') {
    return value === 'true' || value === 'false' ? null : `value "${value}" for type empty must be true or false`
  }
  if (definition.scope === 'time') {
    if (parseDuration(value) !== null) return null
    const reading = readIsoTime(value)
    return reading.problem === undefined
      ? null
      : `value "${value}" is not a duration (1 to 6 digits then s, m, h, d or w, such as 7d) or an ISO 8601 time: ${reading.problem}`
  }
  if (definition.display_id === 'error' && !ERROR_ID.test(value)) {
    return `value "${value}" is not an error id (letters, digits, - and _, at most 64)`
  }
  if (definition.display_id === 'error.assigned_to' && !ASSIGNEE.test(value)) {
    return `value "${value}" must be anyone, me or a collaborator's user id (24 hexadecimal characters)`
  }
  if (definition.values && !definition.values.includes(value)) {
    return `value "${value}" must be one of ${definition.values.join(', ')}`
  }
  if (value.length === 0) return 'value must not be empty (use type empty to match a missing value)'
  if (value.length > 1024) return 'value is longer than 1024 characters'
  return null
}

/** Filters as query parameters, in the pair form (the dashboard's URLs and API calls use this). */
export function filtersToParams(filters: Filters, params = new URLSearchParams()): URLSearchParams {
  for (const [fieldId, conditions] of Object.entries(filters)) {
    for (const condition of conditions) {
      params.append(`filters[${fieldId}][][type]`, condition.type)
      params.append(`filters[${fieldId}][][value]`, condition.value)
    }
  }
  return params
}

/** A filterable field as GET /projects/{id}/event_fields lists it. */
export const eventFieldSchema = z.object({
  display_id: z.string(),
  name: z.string(),
  custom: z.boolean(),
  scope: z.enum(['error', 'event', 'time', 'seen_in']),
  filter_types: z.array(z.enum(FILTER_TYPES)),
  match: z.enum(['exact', 'substring']),
  values: z.nullable(z.array(z.string())),
  pivot: z.boolean(),
})
export type EventField = z.infer<typeof eventFieldSchema>
