// The privacy page's selection: filters (the errors list's, in the URL's `f` form) centred on a
// person — user id, email and name first — and how a selection reads in the requests list.
import { FILTER_FIELDS, type FilterCondition, type Filters } from '../../../contract/filters.ts'
import { describeChip } from '../filters/filter-bar.tsx'
import { toFilterSearch } from '../filters/to-filter-search.ts'

/** The fields a privacy officer fills in first, in this order. */
export const PERSON_FIELDS = ['user.id', 'user.email', 'user.name'] as const
export type PersonField = (typeof PERSON_FIELDS)[number]

/** Every other field a selection may narrow by (the errors list's). */
export const OTHER_FIELDS = FILTER_FIELDS.filter((f) => !(PERSON_FIELDS as readonly string[]).includes(f.display_id))

const personCondition = (filters: Filters, fieldId: PersonField) => filters[fieldId]?.find((c) => c.type === 'eq' || c.type === 'exact')

/** The value typed for a person field (its first `eq` or `exact` condition), '' when none. */
export const personValue = (filters: Filters, fieldId: PersonField): string => personCondition(filters, fieldId)?.value ?? ''

/** Whether an email or name is matched as a whole (`exact`) rather than as a part (`eq`). */
export const isPersonExact = (filters: Filters, fieldId: PersonField): boolean => personCondition(filters, fieldId)?.type === 'exact'

/**
 * Sets a person field to one value, or removes it when the value is blank. `exact` (email and name
 * only: a user id is always whole) matches the whole value; by default it stays as it was.
 */
export function withPersonValue(filters: Filters, fieldId: PersonField, value: string, exact = isPersonExact(filters, fieldId)): Filters {
  const next = { ...filters }
  if (value.trim() === '') delete next[fieldId]
  else next[fieldId] = [{ type: exact && fieldId !== 'user.id' ? 'exact' : 'eq', value: value.trim() }]
  return next
}

/** The conditions beyond the person fields, as (field, condition) pairs in order. */
export function otherConditions(filters: Filters): { fieldId: string; condition: FilterCondition }[] {
  return Object.entries(filters)
    .filter(([fieldId]) => !(PERSON_FIELDS as readonly string[]).includes(fieldId))
    .flatMap(([fieldId, conditions]) => conditions.map((condition) => ({ fieldId, condition })))
}

export const hasSelection = (filters: Filters) => Object.keys(filters).length > 0

/** "User id is alice · Release stage is production"; "Every event" for an all_events request. */
export function describeSelection(filters: Filters, allEvents = false): string {
  if (allEvents) return 'Every event'
  const parts = Object.entries(filters).flatMap(([fieldId, conditions]) =>
    conditions.map((condition) => describeChip(fieldId, condition, [], undefined)),
  )
  return parts.length > 0 ? parts.join(' · ') : 'Every event'
}

/** The privacy page's `f` for one person: their user id, else their whole email address. */
export function personSearch(user: { id?: string | null; email?: string | null }): string[] | null {
  if (user.id) return toFilterSearch({ 'user.id': [{ type: 'eq', value: user.id }] })
  if (user.email) return toFilterSearch({ 'user.email': [{ type: 'exact', value: user.email }] })
  return null
}
