// The legacy errors list's reads on top of v2's: its conditions become SQL on the errors row,
// the page is v2's errors page query at an offset, and the counts by name come from the events.
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm'
import type { ErrorGroup } from '../../contract/errors.ts'
import type { ErrorEvent } from '../../contract/events.ts'
import type { LegacyErrorsQuery } from '../../contract/legacy.ts'
import type { ProjectScope } from '../auth/scope.ts'
import { queryRows, type Db } from '../db/client.ts'
import { errors } from '../db/schema.ts'
import { errorsPageQuery, toErrorGroup } from '../errors/errors.service.ts'
import { loadEvent } from '../events/events.service.ts'
import { compileFilters, errorsWhere } from '../filters/filter-sql.ts'
import type { UrlBuilder } from '../http/urls.ts'
import { versionMatches, type VersionCondition } from './app-versions.ts'
import { emptyBreakdown, type ErrorBreakdown } from './legacy-fields.ts'

const textArray = (values: readonly string[]) => sql`ARRAY[${sql.join(values.map((v) => sql`${v}`), sql`, `)}]::text[]`

/**
 * The versions of the project's errors that meet the conditions. They are few (one per
 * release), so they are compared here, as versions, and the list keeps errors seen in one of them.
 */
async function matchingVersions(db: Db, projectId: string, conditions: readonly VersionCondition[]): Promise<string[]> {
  const rows = await queryRows<{ version: string }>(
    db,
    sql`SELECT DISTINCT unnest(${errors.appVersions}) AS version FROM ${errors} WHERE ${errors.projectId} = ${projectId}`,
  )
  return rows.map((row) => row.version).filter((version) => versionMatches(conditions, version))
}

/** The legacy list's conditions as SQL on errors, with v2's own (merged errors are in no list). */
async function legacyConditions(db: Db, scope: ProjectScope, query: LegacyErrorsQuery, versions: VersionCondition[] | null): Promise<SQL | undefined> {
  const parts: (SQL | undefined)[] = [errorsWhere(scope.projectId, {}, compileFilters({}, { userId: scope.userId, now: new Date() }))]
  if (query.release_stages?.length) parts.push(sql`${errors.releaseStages} && ${textArray(query.release_stages)}`)
  if (query.severity?.length) parts.push(inArray(sql`coalesce(${errors.severityOverride}, ${errors.severity})`, query.severity))
  if (query.status) parts.push(eq(errors.status, query.status))
  if (versions) {
    const matching = await matchingVersions(db, scope.projectId, versions)
    parts.push(matching.length > 0 ? sql`${errors.appVersions} && ${textArray(matching)}` : sql`false`)
  }
  return and(...parts)
}

/**
 * One page of the project's errors, by last event first (`updated_at`: an error is updated when
 * an event arrives), at `offset`; `more` when another page follows.
 */
export async function listLegacyErrors(
  db: Db,
  urls: UrlBuilder,
  scope: ProjectScope,
  query: LegacyErrorsQuery,
  versions: VersionCondition[] | null,
): Promise<{ errors: ErrorGroup[]; more: boolean }> {
  const where = await legacyConditions(db, scope, query, versions)
  const rows = await errorsPageQuery(db, scope.projectId, { sort: 'last_seen', direction: query.direction, per_page: query.per_page }, where).offset(query.offset)
  return { errors: rows.slice(0, query.per_page).map((row) => toErrorGroup(urls, row.error)), more: rows.length > query.per_page }
}

/**
 * The errors' events counted by context, release stage and app version, in one pass over their
 * events (GROUPING SETS, through the events' error_id index); events without a value are left out.
 */
export async function errorBreakdowns(db: Db, errorIds: readonly string[]): Promise<Map<string, ErrorBreakdown>> {
  const byError = new Map(errorIds.map((id) => [id, emptyBreakdown()]))
  if (errorIds.length === 0) return byError
  const rows = await queryRows<{ error_id: string; context: string | null; release_stage: string | null; app_version: string | null; g: number; n: number | string }>(
    db,
    sql`SELECT error_id, context, release_stage, app_version, GROUPING(context, release_stage, app_version) AS g, count(*) AS n
      FROM events WHERE error_id IN (${sql.join(errorIds.map((id) => sql`${id}`), sql`, `)})
      GROUP BY GROUPING SETS ((error_id, context), (error_id, release_stage), (error_id, app_version))`,
  )
  for (const row of rows) {
    const breakdown = byError.get(row.error_id)
    if (!breakdown) continue
    // GROUPING's bits, highest first: context, release_stage, app_version (1: not grouped by it).
    const g = Number(row.g)
    if (g === 0b011 && row.context !== null) breakdown.contexts[row.context] = Number(row.n)
    else if (g === 0b101 && row.release_stage !== null) breakdown.release_stages[row.release_stage] = Number(row.n)
    else if (g === 0b110 && row.app_version !== null) breakdown.app_versions[row.app_version] = Number(row.n)
  }
  return byError
}

/** The error's newest event, null when none is left (the Events API resource). */
export async function mostRecentEvent(db: Db, urls: UrlBuilder, errorId: string): Promise<ErrorEvent | null> {
  const [row] = await db.select({ lastEventId: errors.lastEventId }).from(errors).where(eq(errors.id, errorId)).limit(1)
  return row?.lastEventId ? loadEvent(db, urls, row.lastEventId) : null
}

