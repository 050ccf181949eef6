import {
  filterField,
  PIVOT_FIELD_IDS,
  pivotFilterField,
  type FilterCondition,
  type Filters,
  type PivotFieldId,
} from '../../../contract/filters.ts'
import type { PivotValue } from '../../../contract/pivots.ts'
import { addCondition, toFilterSearch } from '../filters/to-filter-search.ts'

export const isPivotFieldId = (value: string): value is PivotFieldId =>
  (PIVOT_FIELD_IDS as readonly string[]).includes(value)

/** The pivot that lists a filter field's values (event.context is pivoted as `context`), or null. */
export function pivotIdOfField(fieldId: string): PivotFieldId | null {
  const candidate = fieldId === 'event.context' ? 'context' : fieldId
  return isPivotFieldId(candidate) ? candidate : null
}

/** What a pivot value narrows to: `eq value`, or "is empty" for the value of events without one. */
export function pivotCondition(pivotId: PivotFieldId, value: string): FilterCondition {
  const definition = filterField(pivotFilterField(pivotId))
  if (value === '' && definition?.types.includes('empty')) return { type: 'empty', value: 'true' }
  return { type: 'eq', value }
}

/** The filters with a pivot value added (clicking a value in a pivot). */
export const withPivotValue = (filters: Filters, pivotId: PivotFieldId, value: string): Filters =>
  addCondition(filters, pivotFilterField(pivotId), pivotCondition(pivotId, value))

/** The field's name as the filter bar shows it. */
export const pivotFieldName = (pivotId: PivotFieldId): string => filterField(pivotFilterField(pivotId))?.name ?? pivotId

/** A value as people read it: for user.id the name and email beside the id. */
export function describePivotValue(value: PivotValue): { primary: string; secondary: string | null } {
  const name = value.fields['user.name']
  const email = value.fields['user.email']
  const primary = value.event_field_value === '' ? '(none)' : value.event_field_value
  const who = [name, email].filter(Boolean).join(' · ')
  return who ? { primary: who, secondary: primary } : { primary, secondary: null }
}

/** "42.5%" with one decimal below 10%, none above (and "<0.1%" for slivers). */
export function formatProportion(proportion: number): string {
  const percent = proportion * 100
  if (percent > 0 && percent < 0.1) return '<0.1%'
  return `${percent < 10 ? percent.toFixed(1).replace(/\.0$/, '') : Math.round(percent)}%`
}

/**
 * The `f` of a link to an error's pages: none when there are no filters. Those pages have no
 * default filter (unlike the errors list), so a bare link means the same and reads cleaner.
 */
export function errorFilterSearch(filters: Filters): string[] | undefined {
  const entries = toFilterSearch(filters)
  return entries.length > 0 ? entries : undefined
}
