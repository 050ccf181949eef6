// Pivot values (docs/pivots-and-trends.md): the values one event field takes among a
// project's or an error's events, most events first. Unfiltered pages read the pivot_counts
// rollup (an index scan on pivot_counts_top_idx); filtered pages aggregate the matching events.
import { and, eq, sql, type SQL } from 'drizzle-orm'
import { filterField, PIVOT_FIELD_IDS, pivotFilterField, type Filters, type PivotFieldId } from '../../contract/filters.ts'
import type { ListPivotValuesQuery, PivotSummary, PivotValue } from '../../contract/pivots.ts'
import type { UrlBuilder } from '../http/urls.ts'
import type { ProjectScope } from '../auth/scope.ts'
import { queryRows, type Db } from '../db/client.ts'
import { errors, events } from '../db/schema.ts'
import { compileFilters, eventColumn, projectEventsWhere } from '../filters/filter-sql.ts'
import { NOT_ISSUED_CURSOR, openCursor, sealCursor } from '../http/cursor.ts'
import { NotFoundError, ValidationError } from '../failures.ts'

/** A project (the caller's access to it resolved at the edge), or one error of it. */
export type PivotScope = ProjectScope & { errorId?: string }

/**
 * For an error scope, checks that the error belongs to the project (404 otherwise) and returns
 * its events counter.
 */
export async function requireScope(db: Db, scope: PivotScope): Promise<{ errorEvents: number | null }> {
  if (scope.errorId === undefined) return { errorEvents: null }
  const rows = await db
    .select({ eventsCount: errors.eventsCount })
    .from(errors)
    .where(and(eq(errors.id, scope.errorId), eq(errors.projectId, scope.projectId)))
    .limit(1)
  if (!rows[0]) throw new NotFoundError('Error')
  return { errorEvents: Number(rows[0].eventsCount) }
}

/** A path's display id as a pivot field; 400 listing the valid ones otherwise. */
export function pivotFieldId(displayId: string): PivotFieldId {
  if ((PIVOT_FIELD_IDS as readonly string[]).includes(displayId)) return displayId as PivotFieldId
  // event_fields lists the context field by its filter id; both name the same pivot.
  if (displayId === 'event.context') return 'context'
  throw new ValidationError(`display_id: "${displayId}" is not a pivot field; must be one of ${PIVOT_FIELD_IDS.join(', ')}`)
}

// The keyset of a page: the last row's (events, value). Values are arbitrary text, so this
// cursor has its own shape rather than the (sort value, id) one of server/http/cursor.ts.
interface PivotCursor {
  events: number
  value: string
}

function encodePivotCursor(list: string, cursor: PivotCursor): string {
  return sealCursor(list, [cursor.events, cursor.value])
}

function decodePivotCursor(text: string, list: string): PivotCursor {
  const keyset = openCursor(text, list)
  const [events, value] = keyset
  if (
    keyset.length === 2 &&
    typeof events === 'number' &&
    Number.isSafeInteger(events) &&
    events >= 0 &&
    typeof value === 'string' &&
    !value.includes('\u0000')
  ) {
    return { events, value }
  }
  throw new ValidationError(NOT_ISSUED_CURSOR)
}

export interface PivotPage {
  values: PivotValue[]
  nextCursor: string | null
  /** Distinct values of the field in the scope. */
  totalCount: number
  /** The scope's events that match the filters: what proportions divide by. */
  matchingEvents: number
}

interface PivotRow {
  value: string
  events: number | string
  first_seen: Date | string
  last_seen: Date | string
  details: Record<string, string> | string | null
}

const iso = (time: Date | string) => new Date(time).toISOString()

/** The newest user.email / user.name only; absent keys omitted. */
function detailFields(details: PivotRow['details']): Record<string, string> {
  const object = typeof details === 'string' ? (JSON.parse(details) as Record<string, unknown>) : details
  const fields: Record<string, string> = {}
  for (const key of ['user.email', 'user.name']) {
    const value = object?.[key]
    if (typeof value === 'string' && value !== '') fields[key] = value
  }
  return fields
}

/**
 * Rows strictly after the cursor in (events DESC, value ASC) order. `events <= n` is the
 * index bound; the OR only filters the ties at n.
 */
function afterCursor(eventsColumn: SQL, valueColumn: SQL, cursor: PivotCursor | null): SQL {
  if (!cursor) return sql`true`
  return sql`${eventsColumn} <= ${cursor.events}
    AND (${eventsColumn} < ${cursor.events} OR ${valueColumn} > ${cursor.value})`
}

/**
 * One page of a pivot's values, ordered by events (most first), then by value in the
 * database's collation (the order of pivot_counts_top_idx; the cursor compares the same way).
 */
export async function listPivotValues(
  db: Db,
  scope: PivotScope,
  displayId: string,
  query: ListPivotValuesQuery,
  filters: Filters,
): Promise<PivotPage> {
  // Parameters first: a bad one is a 400 before any database work.
  const pivotId = pivotFieldId(displayId)
  const fieldId = pivotFilterField(pivotId)
  // One list per project or error and field (filters narrow it, so they may change between pages).
  const list = `pivot|${scope.errorId ? `error|${scope.errorId}` : `project|${scope.projectId}`}|${pivotId}`
  const cursor = query.cursor ? decodePivotCursor(query.cursor, list) : null
  const compiled = compileFilters(filters, { userId: scope.userId, now: new Date() })
  const { errorEvents } = await requireScope(db, scope)

  // user.id has about one rollup row per event (users × errors): summing them measured slower
  // (over 2 s at 1,000,000 events on PGlite) than grouping the events (~0.6 s), so it groups.
  const onlyErrorConditions =
    compiled.event === undefined && !compiled.since && !compiled.before && fieldId !== 'user.id'
  const page =
    Object.keys(filters).length === 0
      ? await rollupPage(db, scope, fieldId, query.per_page, cursor, errorEvents)
      : onlyErrorConditions
        ? await errorFilteredRollupPage(db, scope, fieldId, query.per_page, cursor, compiled.error!)
        : await filteredPage(db, scope, fieldId, query.per_page, cursor, projectEventsWhere(scope.projectId, compiled, scope.errorId))

  const shown = page.rows.slice(0, query.per_page)
  const last = shown[shown.length - 1]
  return {
    values: shown.map((row) => ({
      event_field_value: row.value,
      events: Number(row.events),
      fields: fieldId === 'user.id' ? detailFields(row.details) : {},
      first_seen: iso(row.first_seen),
      last_seen: iso(row.last_seen),
      proportion: page.denominator > 0 ? Number(row.events) / page.denominator : 0,
    })),
    nextCursor:
      page.rows.length > query.per_page && last ? encodePivotCursor(list, { events: Number(last.events), value: last.value }) : null,
    totalCount: page.totalCount,
    matchingEvents: page.denominator,
  }
}

interface RawPage {
  rows: PivotRow[]
  totalCount: number
  /** All events of the scope (that match the filters): what proportions divide by. */
  denominator: number
}

/** No filters: the rollup rows of (project, error or '', field), kept exact at ingest. */
async function rollupPage(
  db: Db,
  scope: PivotScope,
  fieldId: string,
  perPage: number,
  cursor: PivotCursor | null,
  errorEvents: number | null,
): Promise<RawPage> {
  const errorKey = scope.errorId ?? ''
  // '' rows count the events without a value, which pivots do not list.
  const inScope = sql`p.project_id = ${scope.projectId} AND p.error_id = ${errorKey} AND p.field = ${fieldId} AND p.value <> ''`
  const rows = await queryRows<PivotRow>(
    db,
    sql`SELECT p.value, p.events, p.first_seen, p.last_seen, p.details FROM pivot_counts p
        WHERE ${inScope} AND ${afterCursor(sql`p.events`, sql`p.value`, cursor)}
        ORDER BY p.events DESC, p.value ASC
        LIMIT ${perPage + 1}`,
  )
  const [totals] = await queryRows<{ n: number | string }>(db, sql`SELECT count(*) AS n FROM pivot_counts p WHERE ${inScope}`)
  let denominator = errorEvents
  if (denominator === null) {
    const [sum] = await queryRows<{ n: number | string | null }>(
      db,
      sql`SELECT coalesce(sum(events), 0) AS n FROM project_hourly_counts WHERE project_id = ${scope.projectId}`,
    )
    denominator = Number(sum?.n ?? 0)
  }
  return { rows, totalCount: Number(totals?.n ?? 0), denominator }
}

/**
 * Only error conditions (status, assignment, …): the per-error rollup rows of the matching
 * errors, summed per value. The denominator is their events (errors.events_count is exact).
 */
async function errorFilteredRollupPage(
  db: Db,
  scope: PivotScope,
  fieldId: string,
  perPage: number,
  cursor: PivotCursor | null,
  errorConditions: SQL,
): Promise<RawPage> {
  const ofMatching = sql`${errors.projectId} = ${scope.projectId}
    ${scope.errorId ? sql`AND ${errors.id} = ${scope.errorId}` : sql``} AND ${errorConditions}`
  const matching = sql`SELECT ${errors.id} FROM ${errors} WHERE ${ofMatching}`
  const inScope = sql`p.project_id = ${scope.projectId} AND p.field = ${fieldId} AND p.error_id <> '' AND p.value <> ''
    AND p.error_id IN (${matching})`
  // One pass over the field's rows: the page, and how many values there are (rows of v).
  const rows = await queryRows<PivotRow & { values: number | string }>(
    db,
    sql`WITH v AS (
          SELECT p.value, sum(p.events) AS events, min(p.first_seen) AS first_seen, max(p.last_seen) AS last_seen,
                 count(*) OVER () AS values
          FROM pivot_counts p WHERE ${inScope} GROUP BY p.value)
        SELECT v.value, v.events, v.first_seen, v.last_seen, NULL AS details, v.values FROM v
        WHERE ${afterCursor(sql`v.events`, sql`v.value`, cursor)}
        ORDER BY v.events DESC, v.value ASC
        LIMIT ${perPage + 1}`,
  )
  const [totals] = await queryRows<{ values: number | string | null; events: number | string | null }>(
    db,
    sql`SELECT ${rows.length > 0 ? sql`NULL` : sql`(SELECT count(DISTINCT p.value) FROM pivot_counts p WHERE ${inScope})`} AS values,
               (SELECT sum(${errors.eventsCount}) FROM ${errors} WHERE ${ofMatching}) AS events`,
  )
  const valueCount = rows.length > 0 ? Number(rows[0]!.values) : Number(totals?.values ?? 0)
  if (fieldId === 'user.id' && rows.length > 0) {
    // The newest details among the matching errors' rows of the users on this page.
    const details = await queryRows<{ value: string; details: PivotRow['details'] }>(
      db,
      sql`SELECT DISTINCT ON (p.value) p.value, p.details FROM pivot_counts p
          WHERE ${inScope} AND p.details IS NOT NULL
            AND p.value IN (${sql.join(rows.map((row) => sql`${row.value}`), sql`, `)})
          ORDER BY p.value, p.last_seen DESC`,
    )
    const byValue = new Map(details.map((d) => [d.value, d.details]))
    for (const row of rows) row.details = byValue.get(row.value) ?? null
  }
  return { rows, totalCount: valueCount, denominator: Number(totals?.events ?? 0) }
}

/** With filters: the matching events grouped by the field's column. */
async function filteredPage(
  db: Db,
  scope: PivotScope,
  fieldId: string,
  perPage: number,
  cursor: PivotCursor | null,
  where: SQL,
): Promise<RawPage> {
  const column = eventColumn(fieldId)
  // One pass over the matching events: the groups (events without a value in one of them), then
  // over all groups the matching events and the number of values.
  const rows = await queryRows<PivotRow & { matching: number | string; values: number | string }>(
    db,
    sql`WITH g AS (
          SELECT ${column} AS value, count(*) AS events,
                 min(${events.receivedAt}) AS first_seen, max(${events.receivedAt}) AS last_seen
          FROM ${events} WHERE ${where}
          GROUP BY ${column}
        ), v AS (
          SELECT g.*, sum(g.events) OVER () AS matching, count(g.value) OVER () AS values FROM g)
        SELECT v.value, v.events, v.first_seen, v.last_seen, NULL AS details, v.matching, v.values FROM v
        WHERE v.value IS NOT NULL AND ${afterCursor(sql`v.events`, sql`v.value`, cursor)}
        ORDER BY v.events DESC, v.value ASC
        LIMIT ${perPage + 1}`,
  )
  // Past the last page (or no value at all), the totals alone.
  const [totals] = rows.length > 0
    ? [{ events: rows[0]!.matching, values: rows[0]!.values }]
    : await queryRows<{ events: number | string; values: number | string }>(
        db,
        sql`SELECT count(*) AS events, count(DISTINCT ${column}) AS values FROM ${events} WHERE ${where}`,
      )
  if (fieldId === 'user.id' && rows.length > 0) await addUserDetails(db, rows, where)
  return { rows, totalCount: Number(totals?.values ?? 0), denominator: Number(totals?.events ?? 0) }
}

/**
 * user.email and user.name of the newest matching event of each user id on the page that
 * carries either (as the rollup keeps them), in one query for the whole page.
 */
async function addUserDetails(db: Db, rows: PivotRow[], where: SQL): Promise<void> {
  const ids = rows.map((row) => row.value)
  const details = await queryRows<{ user_id: string; email: string | null; name: string | null }>(
    db,
    sql`SELECT DISTINCT ON (${events.userId}) ${events.userId} AS user_id,
               nullif(${events.userEmail}, '') AS email, nullif(${events.userName}, '') AS name
        FROM ${events}
        WHERE ${where} AND ${events.userId} IN (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})
          AND (nullif(${events.userEmail}, '') IS NOT NULL OR nullif(${events.userName}, '') IS NOT NULL)
        ORDER BY ${events.userId}, ${events.receivedAt} DESC, ${events.id} DESC`,
  )
  const byId = new Map(details.map((d) => [d.user_id, d]))
  for (const row of rows) {
    const found = byId.get(row.value)
    row.details = found
      ? { ...(found.email ? { 'user.email': found.email } : {}), ...(found.name ? { 'user.name': found.name } : {}) }
      : null
  }
}

/**
 * The pivots of a project or an error (Bugsnag's "List Pivots on an Error"): each pivot field
 * with its number of distinct values, its top `summarySize` values and how many events the
 * others hold, among the events that match the filters.
 */
export async function listPivots(
  db: Db,
  urls: UrlBuilder,
  scope: PivotScope,
  fields: readonly PivotFieldId[],
  summarySize: number,
  filters: Filters,
): Promise<PivotSummary[]> {
  const pivots: PivotSummary[] = []
  for (const pivotId of fields) {
    const page = await listPivotValues(db, scope, pivotId, { per_page: summarySize }, filters)
    const listed = page.values.reduce((sum, value) => sum + value.events, 0)
    const base = scope.errorId ? `/projects/${scope.projectId}/errors/${scope.errorId}` : `/projects/${scope.projectId}`
    pivots.push({
      event_field_display_id: pivotId,
      name: filterField(pivotFilterField(pivotId))?.name ?? pivotId,
      cardinality: page.totalCount,
      summary: {
        list: page.values.map((value) => ({ value: value.event_field_value, count: value.events })),
        other: Math.max(page.matchingEvents - listed, 0),
      },
      values_url: urls.api(`${base}/pivots/${encodeURIComponent(pivotId)}/values`),
    })
  }
  return pivots
}
