// Filters in the dashboard's URLs: one repeated `f` parameter per condition, written
// `field:type:value` (`?f=error.status:eq:open&f=app.release_stage:ne:staging`), readable in
// a shared link and exact on a round trip. No `f` at all means the default view.
import { z } from 'zod/mini'
import {
  checkCondition,
  filterField,
  FILTER_TYPES,
  parseFilterTime,
  type FilterCondition,
  type FilterMatch,
  type Filters,
  type FilterType,
} from '../../../contract/filters.ts'

/** The default view, as in Bugsnag's inbox: open errors. Shown as a removable chip. */
export const DEFAULT_FILTERS: Filters = { 'error.status': [{ type: 'eq', value: 'open' }] }

/** One condition in the URL form. */
export const toFilterEntry = (fieldId: string, condition: FilterCondition): string =>
  `${fieldId}:${condition.type}:${condition.value}`

/** Parses `field:type:value` (the value may itself contain colons); null when malformed or invalid. */
export function parseFilterEntry(entry: string): { fieldId: string; condition: FilterCondition } | null {
  const first = entry.indexOf(':')
  const second = first < 0 ? -1 : entry.indexOf(':', first + 1)
  if (second < 0) return null
  const fieldId = entry.slice(0, first)
  const type = entry.slice(first + 1, second)
  const value = entry.slice(second + 1)
  const definition = filterField(fieldId)
  if (!definition || !(FILTER_TYPES as readonly string[]).includes(type)) return null
  if (checkCondition(definition, type, value) !== null) return null
  return { fieldId, condition: { type: type as FilterType, value } }
}

/** Filters → the URL's entries, in the filters' order. */
export function toFilterSearch(filters: Filters): string[] {
  return Object.entries(filters).flatMap(([fieldId, conditions]) =>
    conditions.map((condition) => toFilterEntry(fieldId, condition)),
  )
}

/** The URL's entries → filters; `undefined` (no `f` in the URL) is the default view. */
export function fromFilterSearch(entries: readonly string[] | undefined): Filters {
  if (entries === undefined) return DEFAULT_FILTERS
  let filters: Filters = {}
  for (const entry of entries) {
    const parsed = parseFilterEntry(entry)
    if (parsed) filters = addCondition(filters, parsed.fieldId, parsed.condition)
  }
  return filters
}

/** An error's pages' `f`: they have no default filter (unlike the errors list), so no `f` means none. */
export const fromErrorFilterSearch = (entries: readonly string[] | undefined): Filters =>
  entries === undefined ? {} : fromFilterSearch(entries)

/** Whether these are the errors list's default filters (open errors). */
export const isDefaultFilters = (filters: Filters): boolean => JSON.stringify(filters) === JSON.stringify(DEFAULT_FILTERS)

/**
 * The `f` search parameter: a single value arrives as a string, several as an array, and
 * `f=` (empty) means "no filters at all" — distinct from no `f`, the default view. Malformed
 * entries are dropped so a hand-edited link still opens; when nothing valid is left of what
 * was given, the link opens the default view rather than everything (fixed and ignored included).
 */
export const filterSearchSchema = z.optional(
  z.catch(
    z.pipe(
      z.transform((raw: unknown) => {
        if (raw === undefined || raw === null) return undefined
        const values = Array.isArray(raw) ? raw : [raw]
        const valid = values.filter((value): value is string => typeof value === 'string' && parseFilterEntry(value) !== null)
        const onlyMalformed = valid.length === 0 && values.some((value) => value !== '')
        return onlyMalformed ? undefined : valid
      }),
      z.optional(z.array(z.string())),
    ),
    undefined,
  ),
)

const sameCondition = (a: FilterCondition, b: FilterCondition) => a.type === b.type && a.value === b.value

/** Adds a condition (several `eq` of a field are OR-ed); a duplicate changes nothing. */
export function addCondition(filters: Filters, fieldId: string, condition: FilterCondition): Filters {
  const current = filters[fieldId] ?? []
  if (current.some((c) => sameCondition(c, condition))) return filters
  // An "is empty"/"is present" replaces the field's other conditions: together they could never match.
  const kept = condition.type === 'empty' ? [] : current.filter((c) => c.type !== 'empty')
  return { ...filters, [fieldId]: [...kept, condition] }
}

export function removeCondition(filters: Filters, fieldId: string, condition: FilterCondition): Filters {
  const remaining = (filters[fieldId] ?? []).filter((c) => !sameCondition(c, condition))
  const next = { ...filters }
  if (remaining.length > 0) next[fieldId] = remaining
  else delete next[fieldId]
  return next
}

/** Filters without some fields (a field's own suggestions should not be narrowed by itself). */
export function withoutFields(filters: Filters, fieldIds: readonly string[]): Filters {
  return Object.fromEntries(Object.entries(filters).filter(([fieldId]) => !fieldIds.includes(fieldId)))
}

/**
 * The filters that select events — the time range and the event fields (release stage, user,
 * OS…) — without those that test the error group itself (status, assignee, severity, versions
 * seen in): what a single error's pages (its trend, pivots) can apply to its events.
 */
export function eventScopedFilters(filters: Filters): Filters {
  return Object.fromEntries(
    Object.entries(filters).filter(([fieldId]) => {
      const scope = filterField(fieldId)?.scope
      return scope === 'event' || scope === 'time'
    }),
  )
}

/** The time range part of the filters (event.since / event.before). */
export type TimeRange = { kind: 'all' } | { kind: 'relative'; since: string } | { kind: 'absolute'; since: string; before: string | null }

export const TIME_FIELDS = ['event.since', 'event.before'] as const

const RELATIVE = /^\d+[smhdw]$/

export function timeRangeOf(filters: Filters): TimeRange {
  const since = filters['event.since']?.[0]?.value
  const before = filters['event.before']?.[0]?.value ?? null
  if (!since) return { kind: 'all' }
  if (RELATIVE.test(since) && !before) return { kind: 'relative', since }
  return { kind: 'absolute', since, before }
}

export function withTimeRange(filters: Filters, range: TimeRange): Filters {
  const next = withoutFields(filters, TIME_FIELDS)
  if (range.kind === 'all') return next
  next['event.since'] = [{ type: 'eq', value: range.since }]
  if (range.kind === 'absolute' && range.before) next['event.before'] = [{ type: 'eq', value: range.before }]
  return next
}

/** The window a time range covers, in epoch ms; `defaultMs` back from now when unbounded. */
export function timeWindowOf(range: TimeRange, now: number, defaultMs: number): { from: number; to: number } {
  if (range.kind === 'all') return { from: now - defaultMs, to: now }
  const since = parseFilterTime(range.since, new Date(now))?.getTime() ?? now - defaultMs
  const before = range.kind === 'absolute' && range.before ? (parseFilterTime(range.before, new Date(now))?.getTime() ?? now) : now
  return { from: since, to: Math.max(before, since) }
}

export const TIME_RANGE_OPTIONS = [
  { value: '1h', label: 'Last hour' },
  { value: '24h', label: 'Last 24 hours' },
  { value: '7d', label: 'Last 7 days' },
  { value: '14d', label: 'Last 14 days' },
  { value: '30d', label: 'Last 30 days' },
] as const

/** The conditions the filter bar offers: a value's `eq` / `ne`, and `empty` true / false. */
export type FilterOperator = 'eq' | 'ne' | 'exact' | 'empty' | 'present'

/**
 * How an operator reads: "is", "is not", "is empty", "is present" — and "contains" / "does not
 * contain" on substring fields (message, user name and email), which is what the API does there.
 */
export function operatorLabel(operator: FilterOperator, match: FilterMatch = 'exact'): string {
  switch (operator) {
    case 'eq':
      return match === 'substring' ? 'contains' : 'is'
    case 'ne':
      return match === 'substring' ? 'does not contain' : 'is not'
    case 'exact':
      return 'is exactly'
    case 'empty':
      return 'is empty'
    case 'present':
      return 'is present'
  }
}

/** How a condition reads on a chip: "is", "is not", "contains", "does not contain", "is empty", "is present". */
export function describeOperator(condition: FilterCondition, match: FilterMatch = 'exact'): string {
  if (condition.type === 'empty') return operatorLabel(condition.value === 'true' ? 'empty' : 'present')
  return operatorLabel(condition.type, match)
}
