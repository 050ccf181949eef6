// A webhook's filters (the errors list's syntax) as conditions on a batch's events or on one
// error. Time fields (event.since, event.before) make no sense for notifications and are refused.
import { and, sql, type SQL } from 'drizzle-orm'
import { filterField, type Filters } from '../../contract/filters.ts'
import { ValidationError } from '../failures.ts'
import { compileFilters, errorsWhere, projectEventsWhere } from '../filters/filter-sql.ts'
import { errors } from '../db/schema.ts'

/** Checks filters when a webhook is saved: 400 naming each field that is unknown or a time. */
export function checkWebhookFilters(filters: Filters, userId: string): void {
  for (const fieldId of Object.keys(filters)) {
    const definition = filterField(fieldId)
    if (definition?.scope === 'time') throw new ValidationError(`filters[${fieldId}]: time filters do not apply to notifications`)
  }
  try {
    compileFilters(filters, { userId, now: new Date() })
  } catch (err) {
    if (err instanceof ValidationError) throw new ValidationError(err.messages)
    throw err
  }
}

export const hasFilters = (filters: Filters): boolean => Object.keys(filters).length > 0

/** The events of a project (in events, joined to errors as needed) that match; `me` is the webhook's creator. */
export function eventsMatching(projectId: string, filters: Filters, creatorId: string | null, now: Date): SQL {
  return projectEventsWhere(projectId, compileFilters(filters, { userId: creatorId ?? '', now }))
}

/** The errors of a project that match (on the errors table). */
export function errorsMatching(projectId: string, filters: Filters, creatorId: string | null, now: Date): SQL {
  const compiled = compileFilters(filters, { userId: creatorId ?? '', now })
  return and(sql`${errors.projectId} = ${projectId}`, errorsWhere(projectId, filters, compiled))!
}
