// Which events a privacy request selects: its filters (read and compiled by server/filters, as
// the errors list's are), its scope (an organization or one project) and a time bound.
import { and, asc, eq, sql, type SQL } from 'drizzle-orm'
import { filtersToParams, parseFilterParams, type Filters } from '../../contract/filters.ts'
import type { Db } from '../db/client.ts'
import { events, projects } from '../db/schema.ts'
import { compileFilters, filtersFromUrl, projectEventsWhere, type CompiledFilters } from '../filters/filter-sql.ts'
import { ValidationError } from '../failures.ts'

export interface Scope {
  organizationId: string
  /** null: every project of the organization. */
  projectId: string | null
}

/** What a request selects, as stored with it. */
interface Selection {
  scope: Scope
  filters: Filters
  allEvents: boolean
  /** For error.assigned_to=me: who made the request. */
  userId: string
  /** Relative times (event.since=7d) count back from when the request was made. */
  now: Date
}

/**
 * The filters of a request, from its query string or its JSON body (the same reader and messages
 * as every list's filters: a body's filters are read as the query form would be), refusing a
 * selection that would take every event by omission.
 */
export function readSelectionFilters(
  url: string,
  bodyFilters: Filters | undefined,
  allEvents: boolean,
  scope: Scope,
): Filters {
  const queryFilters = filtersFromUrl(url)
  const inQuery = [...new URL(url).searchParams.keys()].some((key) => key.startsWith('filters'))
  if (inQuery && bodyFilters !== undefined) {
    throw new ValidationError('filters: give them in the query string or in the body, not both')
  }
  let filters = queryFilters
  if (bodyFilters !== undefined) {
    const { filters: parsed, problems } = parseFilterParams(filtersToParams(bodyFilters))
    if (problems.length > 0) throw new ValidationError(problems)
    filters = parsed
  }
  const any = Object.keys(filters).length > 0
  const what = scope.projectId ? 'the project' : 'the organization'
  if (!any && !allEvents) {
    throw new ValidationError(
      `filters: give at least one filter (such as filters[user.id][][type]=eq&filters[user.id][][value]=…), or all_events=true to select every event of ${what}`,
    )
  }
  if (any && allEvents) throw new ValidationError('all_events: cannot be combined with filters; give one or the other')
  return filters
}

/** Compiles a selection's filters (a 400 for contradictions such as event.since after event.before). */
export function compileSelection(selection: Pick<Selection, 'filters' | 'userId' | 'now'>): CompiledFilters {
  return compileFilters(selection.filters, { userId: selection.userId, now: selection.now })
}

export interface ScopeProject {
  id: string
  name: string
}

/** The projects a request covers, in id order. */
export function projectsInScope(db: Db, scope: Scope): Promise<ScopeProject[]> {
  return db
    .select({ id: projects.id, name: projects.name })
    .from(projects)
    .where(scope.projectId ? eq(projects.id, scope.projectId) : eq(projects.organizationId, scope.organizationId))
    .orderBy(asc(projects.id))
}

/** The selected events of one project, received before `before` when given. */
export function selectedEventsWhere(projectId: string, compiled: CompiledFilters, before?: Date): SQL {
  return and(
    projectEventsWhere(projectId, compiled),
    before ? sql`${events.receivedAt} < ${before.toISOString()}::timestamptz` : undefined,
  )!
}

/** Keyset position in a project's events: (received_at, id), ascending. */
export interface EventKey {
  at: string
  id: string
}

/**
 * Where a deletion's passes over the events stand: the pass (1: the events indexed when it began;
 * 2: once those acknowledged before it are indexed too, from the start again; 3: all deleted, the
 * finishing steps run), and in it the project and the last event deleted (projects go in id order).
 */
export interface DeletionProgress {
  pass: 1 | 2 | 3
  projectId?: string
  after?: EventKey
}

export const afterKey = (key: EventKey | null): SQL | undefined =>
  key ? sql`(${events.receivedAt}, ${events.id}) > (${key.at}::timestamptz, ${key.id})` : undefined
