import { and, asc, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm'
import type { ErrorEvent } from '../../contract/events.ts'
import type { Filters } from '../../contract/filters.ts'
import type {
  ErrorGroup,
  ErrorSort,
  ErrorStatus,
  ErrorStatusCounts,
  GroupingReason,
  ListErrorsQuery,
  Severity,
  StoredReopenRules,
} from '../../contract/errors.ts'
import type { ProjectScope } from '../auth/scope.ts'
import { queryRows, type Db } from '../db/client.ts'
import { errors, events } from '../db/schema.ts'
import { loadEvent } from '../events/events.service.ts'
import { listMergedErrors } from './error-merges.service.ts'
import { compileFilters, countingField, errorsWhere, eventTimeConditions, fieldRows, type CompiledFilters } from '../filters/filter-sql.ts'
import { decodeCursor, encodeCursor, type Cursor } from '../http/cursor.ts'
import { NotFoundError, ValidationError } from '../failures.ts'
import { HOUR_MS } from '../rollups/rollups.ts'
import type { UrlBuilder } from '../http/urls.ts'

type ErrorRow = typeof errors.$inferSelect

/** An errors row as the v2 Error resource. */
export function toErrorGroup(urls: UrlBuilder, row: ErrorRow): ErrorGroup {
  const path = `/projects/${row.projectId}/errors/${row.id}`
  return {
    id: row.id,
    project_id: row.projectId,
    error_class: row.errorClass,
    message: row.message,
    context: row.context,
    severity: (row.severityOverride ?? row.severity) as Severity,
    severity_override: (row.severityOverride as Severity | null) ?? null,
    unhandled: row.unhandled,
    status: row.status as ErrorStatus,
    assigned_collaborator_id: row.assignedCollaboratorId,
    // Written only by the snooze UPDATE (and a revert, which restores one of its values).
    reopen_rules: (row.reopenRules as StoredReopenRules | null) ?? null,
    first_seen: row.firstSeen.toISOString(),
    last_seen: row.lastSeen.toISOString(),
    events: row.eventsCount,
    users: row.usersCount,
    release_stages: row.releaseStages,
    app_versions: row.appVersions,
    grouping_reason: row.groupingReason as GroupingReason,
    first_release:
      row.firstAppVersion !== null && row.firstReleaseStage !== null
        ? { release_stage: row.firstReleaseStage, app_version: row.firstAppVersion }
        : null,
    discarded: row.discardedAt !== null,
    discarded_at: row.discardedAt?.toISOString() ?? null,
    discarded_events: row.discardedEvents,
    linked_issues: row.linkedIssueUrl ? [{ type: 'url', url: row.linkedIssueUrl }] : [],
    merged_into_id: row.mergedIntoId,
    url: urls.api(path),
    html_url: urls.web(path),
  }
}

/** Each sort key is backed by the index errors_project_<sort>_idx on (project_id, column, id). */
const SORT_COLUMNS = {
  last_seen: errors.lastSeen,
  first_seen: errors.firstSeen,
  events: errors.eventsCount,
  users: errors.usersCount,
} as const

const isTimestampSort = (sort: ErrorSort) => sort === 'last_seen' || sort === 'first_seen'

/**
 * The sort value as it goes into a cursor. Timestamps are read as text with full
 * microsecond precision: a JS Date keeps only milliseconds, and a rounded cursor
 * would skip or repeat rows that differ below the millisecond.
 */
function cursorValueColumn(sort: ErrorSort): SQL<string | number> {
  const column = SORT_COLUMNS[sort]
  return isTimestampSort(sort)
    ? sql<string>`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
    : sql<number>`${column}`.mapWith(Number)
}

// Exactly what cursorValueColumn writes: to_char(… 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"').
const CURSOR_TIME = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/

/** A cursor time PostgreSQL can take back: that exact form, a real date, years 1 to 9999. */
function isCursorTime(value: string): boolean {
  const match = CURSOR_TIME.exec(value)
  const time = new Date(value)
  return (
    match !== null &&
    Number(match[1]) >= 1 &&
    !Number.isNaN(time.getTime()) &&
    time.toISOString().slice(0, 23) === value.slice(0, 23)
  )
}

/** Checks that a decoded cursor fits the requested sort, so a mismatched one is a 400, not a SQL error. */
function checkCursor(sort: ErrorSort, cursor: Cursor): Cursor {
  const fits = isTimestampSort(sort)
    ? typeof cursor.v === 'string' && isCursorTime(cursor.v)
    : typeof cursor.v === 'number' && Number.isSafeInteger(cursor.v)
  if (!fits) throw new ValidationError(`cursor: does not belong to sort=${sort} (use the Link rel="next" address)`)
  return cursor
}

/**
 * Keyset condition as a row comparison, `(column, id) < (value, id)`, which PostgreSQL
 * matches against the (project_id, column, id) index instead of filtering afterwards.
 */
function afterCursor(sort: ErrorSort, direction: 'asc' | 'desc', cursor: Cursor): SQL {
  const column = SORT_COLUMNS[sort]
  const value = isTimestampSort(sort) ? sql`${cursor.v}::timestamptz` : sql`${cursor.v}::bigint`
  return direction === 'desc'
    ? sql`(${column}, ${errors.id}) < (${value}, ${cursor.id})`
    : sql`(${column}, ${errors.id}) > (${value}, ${cursor.id})`
}

/** The list a cursor belongs to: one project's errors in one sort and direction (filters narrow it). */
const errorsList = (projectId: string, query: ListErrorsQuery) => `errors|${projectId}|${query.sort}|${query.direction}`

/** One page of a project's errors (per_page + 1 rows, to know whether another page follows). */
export function errorsPageQuery(db: Db, projectId: string, query: ListErrorsQuery, filtered?: SQL) {
  const column = SORT_COLUMNS[query.sort]
  const order = query.direction === 'desc' ? desc : asc
  const cursor = query.cursor === undefined ? undefined : checkCursor(query.sort, decodeCursor(query.cursor, errorsList(projectId, query)))
  return db
    .select({ error: errors, cursorValue: cursorValueColumn(query.sort) })
    .from(errors)
    .where(and(eq(errors.projectId, projectId), filtered, cursor && afterCursor(query.sort, query.direction, cursor)))
    .orderBy(order(column), order(errors.id))
    .limit(query.per_page + 1)
}

/**
 * Under this many errors matching event conditions per row of a page, the page is read from the
 * matching errors' ids rather than walked down the sort index (listErrors): a walk would test
 * more than 1 in 100 of the project's errors per row it keeps.
 */
const FEW_MATCHES_PER_PAGE_ROW = 100

/** Whether the filters select events (a time window or an event field), not only errors. */
const selectsEvents = (compiled: CompiledFilters) => Boolean(compiled.event || compiled.since || compiled.before)

/**
 * How many events of each listed error match the event and time conditions, for the page's
 * errors only, the cheapest exact way: one event field (not the free-text search) and no time
 * bounds from its pivot_counts rows, unless one of those errors has a row that may be cut; a time
 * window alone from the hourly rollups for its whole hours and the events only for the partial
 * hours at its ends (a busy error has thousands of events a week); other event conditions from
 * the events themselves, over the (error_id, received_at) index.
 */
async function matchingEventCounts(db: Db, projectId: string, errorIds: string[], filters: Filters, compiled: CompiledFilters) {
  if (errorIds.length === 0) return new Map<string, number>()
  const field = compiled.since || compiled.before ? undefined : countingField(compiled)
  const rows = field ? fieldRows(field, filters[field]!) : undefined
  const ids = sql.join(errorIds.map((id) => sql`${id}`), sql`, `)
  const ofPage = (condition: SQL) => sql`FROM pivot_counts p WHERE p.project_id = ${projectId} AND p.error_id IN (${ids}) AND ${condition}`
  const cut = rows?.mayBeCut ? await queryRows(db, sql`SELECT 1 ${ofPage(rows.mayBeCut)} LIMIT 1`) : []
  const query = rows && cut.length === 0
    ? sql`SELECT p.error_id, sum(p.events) AS n ${ofPage(rows.matching)} GROUP BY p.error_id`
    : compiled.event
      ? eventsMatchingCount(projectId, errorIds, compiled)
      : windowCount(errorIds, compiled)
  const counted = await queryRows<{ error_id: string; n: number }>(db, query)
  return new Map(counted.map((row) => [row.error_id, Number(row.n)]))
}

function eventsMatchingCount(projectId: string, errorIds: string[], compiled: CompiledFilters): SQL {
  return sql`SELECT ${events.errorId} AS error_id, count(*) AS n FROM ${events}
    WHERE ${and(inArray(events.errorId, errorIds), eq(events.projectId, projectId), compiled.event, eventTimeConditions(compiled))}
    GROUP BY ${events.errorId}`
}

/** Events in [since, before): whole hours from error_hourly_counts, the partial hours at the ends from events. */
function windowCount(errorIds: string[], compiled: CompiledFilters): SQL {
  const since = compiled.since?.getTime()
  const before = compiled.before?.getTime()
  const firstHour = since === undefined ? undefined : Math.ceil(since / HOUR_MS) * HOUR_MS
  const endHour = before === undefined ? undefined : Math.floor(before / HOUR_MS) * HOUR_MS
  const at = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`
  const ids = sql.join(errorIds.map((id) => sql`${id}`), sql`, `)
  const countEvents = (from: number | undefined, to: number | undefined) =>
    sql`SELECT error_id, count(*) AS n FROM events WHERE error_id IN (${ids})
      ${from === undefined ? sql`` : sql`AND received_at >= ${at(from)}`} ${to === undefined ? sql`` : sql`AND received_at < ${at(to)}`}
      GROUP BY error_id`
  // Within one hour (or less than one whole hour): the events alone.
  if (firstHour !== undefined && endHour !== undefined && firstHour >= endHour) return countEvents(since, before)
  const parts = [
    sql`SELECT error_id, events AS n FROM error_hourly_counts WHERE error_id IN (${ids})
      ${firstHour === undefined ? sql`` : sql`AND hour >= ${at(firstHour)}`} ${endHour === undefined ? sql`` : sql`AND hour < ${at(endHour)}`}`,
  ]
  if (since !== undefined && since < firstHour!) parts.push(countEvents(since, firstHour))
  if (before !== undefined && endHour! < before) parts.push(countEvents(endHour, before))
  return sql`SELECT error_id, sum(n) AS n FROM (${sql.join(parts, sql` UNION ALL `)}) AS counted GROUP BY error_id`
}

export interface ErrorsPage {
  errors: ErrorGroup[]
  nextCursor: string | null
  totalCount: number
}

export async function listErrors(
  db: Db,
  urls: UrlBuilder,
  { userId, projectId }: ProjectScope,
  query: ListErrorsQuery,
  filters: Filters = {},
): Promise<ErrorsPage> {
  const compiled = compileFilters(filters, { userId, now: new Date() })
  const filtered = errorsWhere(projectId, filters, compiled)
  // Building the query decodes the cursor: a bad one is a 400 before any database work.
  const pageQuery = errorsPageQuery(db, projectId, query, filtered)
  let rows: Awaited<typeof pageQuery>
  let totalCount: number
  if (selectsEvents(compiled)) {
    // A page walks the sort index, testing errors until it has per_page of them: about
    // per_page × errors / matches tests, every error of the project when few match, which row
    // estimates of event conditions do not foresee (280 ms instead of 1 ms at 50,000 errors on
    // PostgreSQL). So the matching errors are counted first, with their ids when they are few,
    // and a page of few is read from those ids.
    const [matching] = await queryRows<{ total: number | string; ids: string[] | null }>(db, sql`
      SELECT count(*) AS total, CASE WHEN count(*) <= ${query.per_page * FEW_MATCHES_PER_PAGE_ROW} THEN array_agg(${errors.id}) END AS ids
      FROM ${errors} WHERE ${and(eq(errors.projectId, projectId), filtered)}`)
    totalCount = Number(matching?.total ?? 0)
    const ids = matching?.ids
    rows = totalCount === 0 ? [] : ids ? await errorsPageQuery(db, projectId, query, inArray(errors.id, ids)) : await pageQuery
  } else {
    const [pageRows, totals] = await Promise.all([
      pageQuery,
      db.select({ n: count() }).from(errors).where(and(eq(errors.projectId, projectId), filtered)),
    ])
    rows = pageRows
    totalCount = totals[0]?.n ?? 0
  }
  const page = rows.slice(0, query.per_page)
  const last = page[page.length - 1]
  const nextCursor =
    rows.length > query.per_page && last ? encodeCursor({ v: last.cursorValue, id: last.error.id }, errorsList(projectId, query)) : null
  const groups = page.map((row) => toErrorGroup(urls, row.error))
  if (selectsEvents(compiled)) {
    const matching = await matchingEventCounts(db, projectId, groups.map((group) => group.id), filters, compiled)
    for (const group of groups) group.matching_events = matching.get(group.id) ?? 0
  }
  return { errors: groups, nextCursor, totalCount }
}

/**
 * How many of a project's errors match the filters, per status: the filters without their
 * error.status conditions (the status is what is counted), through the same errorsWhere as the list.
 */
export async function countErrorsByStatus(db: Db, { userId, projectId }: ProjectScope, filters: Filters = {}): Promise<ErrorStatusCounts> {
  const { 'error.status': _status, ...others } = filters
  const compiled = compileFilters(others, { userId, now: new Date() })
  const filtered = errorsWhere(projectId, others, compiled)
  const rows = await db
    .select({ status: errors.status, n: count() })
    .from(errors)
    .where(and(eq(errors.projectId, projectId), filtered))
    .groupBy(errors.status)
  const counts: ErrorStatusCounts['counts'] = { open: 0, fixed: 0, snoozed: 0, ignored: 0 }
  for (const row of rows) if (row.status in counts) counts[row.status as ErrorStatus] = Number(row.n)
  return { counts, total: Object.values(counts).reduce((sum, n) => sum + n, 0) }
}

/** The error row, when it belongs to the scope's project; 404 otherwise. */
async function loadErrorRow(db: Db, { projectId }: ProjectScope, errorId: string): Promise<ErrorRow> {
  const rows = await db
    .select()
    .from(errors)
    .where(and(eq(errors.id, errorId), eq(errors.projectId, projectId)))
    .limit(1)
  if (!rows[0]) throw new NotFoundError('Error')
  return rows[0]
}

export async function getError(
  db: Db,
  urls: UrlBuilder,
  scope: ProjectScope,
  errorId: string,
): Promise<ErrorGroup> {
  const error = toErrorGroup(urls, await loadErrorRow(db, scope, errorId))
  return { ...error, merged_errors: await listMergedErrors(db, errorId) }
}

/** The newest event of the error (errors.last_event_id, kept current at ingest) as an Events API resource. */
export async function getLatestEvent(
  db: Db,
  urls: UrlBuilder,
  scope: ProjectScope,
  errorId: string,
): Promise<ErrorEvent> {
  const row = await loadErrorRow(db, scope, errorId)
  // Deleting an event moves last_event_id to the newest remaining one, so null means no events.
  const event = row.lastEventId ? await loadEvent(db, urls, row.lastEventId) : null
  if (!event) throw new NotFoundError('Event')
  return event
}
