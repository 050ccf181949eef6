import { FILTER_FIELDS, type EventField } from '../../contract/filters.ts'

/** The filter registry as the API lists it; every field is built in (custom: false) for now. */
const EVENT_FIELDS: readonly EventField[] = FILTER_FIELDS.map((field) => ({
  display_id: field.display_id,
  name: field.name,
  custom: false,
  scope: field.scope,
  filter_types: [...field.types],
  match: field.match,
  values: field.values ? [...field.values] : null,
  pivot: field.pivot,
}))

/** The filterable fields of a project (the same for every project today). */
export function listEventFields(): readonly EventField[] {
  return EVENT_FIELDS
}
