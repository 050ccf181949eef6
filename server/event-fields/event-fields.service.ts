import { FILTER_FIELDS, type EventField } from '../../contract/filters.ts'
import { requireProjectAccess } from '../auth/access.ts'
import type { Db } from '../db/client.ts'

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

/** The filterable fields of a project (the same for every project today); 404 for outsiders. */
export async function listEventFields(db: Db, userId: string, projectId: string): Promise<readonly EventField[]> {
  await requireProjectAccess(db, userId, projectId)
  return EVENT_FIELDS
}
