// Trends (docs/pivots-and-trends.md): events per time bucket for a project, an error, or
// several errors at once (sparklines). Buckets are whole multiples of the resolution since
// the Unix epoch, so the same event always lands in the same bucket whatever the window.
// Hour-multiple resolutions without event conditions read the hourly rollups; everything
// else groups the matching events with date_bin. Both give identical answers.
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm'
import type { Filters } from '../../contract/filters.ts'
import {
  DEFAULT_TREND_WINDOW_MS,
  MAX_TREND_BUCKETS,
  parseResolution,
  type ErrorTrends,
  type TrendBucket,
  type TrendQuery,
} from '../../contract/trends.ts'
import type { ProjectScope } from '../auth/scope.ts'
import { queryRows, type Db } from '../db/client.ts'
import { errors, events } from '../db/schema.ts'
import { compileFilters, projectEventsWhere, type CompiledFilters } from '../filters/filter-sql.ts'
import { ValidationError } from '../failures.ts'
import { requireScope, type PivotScope } from '../pivots/pivots.service.ts'
import { HOUR_MS } from '../rollups/rollups.ts'

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000

/** The buckets of a trend: `count` buckets of `resolution` ms from `start` (aligned). */
export interface TrendWindow {
  start: number
  resolution: number
  count: number
}

/** "30 days", "2 days 3 hours", "45 minutes": a window length in a 400 message. */
export function describeDuration(ms: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`
  const days = Math.floor(ms / DAY_MS)
  const hours = Math.floor((ms % DAY_MS) / HOUR_MS)
  const minutes = Math.ceil((ms % HOUR_MS) / MINUTE_MS)
  const parts = [days ? plural(days, 'day') : '', hours ? plural(hours, 'hour') : '', minutes ? plural(minutes, 'minute') : '']
  return parts.filter(Boolean).join(' ') || 'less than a minute'
}

/** The last instant PostgreSQL and ISO 8601 strings share: the end of the year 9999. */
const MAX_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/** Aligned buckets covering [since, before): from floor(since) to the boundary at or after before. */
function bucketsOf(since: number, before: number, resolution: number): TrendWindow {
  const start = Math.floor(since / resolution) * resolution
  const end = Math.ceil(before / resolution) * resolution
  if (end > MAX_TIME) {
    throw new ValidationError(
      'filters[event.before]: the last bucket would end after the year 9999; choose an earlier event.before or a smaller resolution',
    )
  }
  return { start, resolution, count: Math.max(1, (end - start) / resolution) }
}

/**
 * The buckets a trend query asks for: the window from event.since (default: 30 days before
 * the end) to event.before (default: now), cut at `resolution`, or at the window divided by
 * `buckets_count` rounded up to a whole minute, or by default at 1h (1d, or whole days, when
 * 1h would give more than MAX_TREND_BUCKETS). Too many buckets → 400 naming the numbers.
 */
export function trendWindow(query: TrendQuery, compiled: CompiledFilters, now: Date): TrendWindow {
  const before = (compiled.before ?? now).getTime()
  if (before <= 0) throw new ValidationError('filters[event.before]: must be after 1970-01-01 (no event is older)')
  // No event is older than the Unix epoch (received_at is the server's clock): start there at the earliest.
  const since = Math.max(0, compiled.since ? compiled.since.getTime() : before - DEFAULT_TREND_WINDOW_MS)
  if (since >= before) {
    throw new ValidationError('filters[event.since]: must be earlier than now (or than filters[event.before])')
  }
  const span = before - since
  if (query.resolution) {
    const resolution = parseResolution(query.resolution)!
    const window = bucketsOf(since, before, resolution)
    if (window.count > MAX_TREND_BUCKETS) {
      throw new ValidationError(
        `resolution: ${query.resolution} over ${describeDuration(span)} gives ${window.count} buckets; ` +
          `at most ${MAX_TREND_BUCKETS} — choose a larger resolution or a shorter event.since`,
      )
    }
    return window
  }
  if (query.buckets_count) {
    // Alignment can add a bucket; widen by whole minutes until the limit holds.
    let resolution = Math.ceil(span / query.buckets_count / MINUTE_MS) * MINUTE_MS
    let window = bucketsOf(since, before, resolution)
    while (window.count > MAX_TREND_BUCKETS) {
      resolution += MINUTE_MS
      window = bucketsOf(since, before, resolution)
    }
    return window
  }
  for (const resolution of [HOUR_MS, DAY_MS]) {
    const window = bucketsOf(since, before, resolution)
    if (window.count <= MAX_TREND_BUCKETS) return window
  }
  // Longer than MAX_TREND_BUCKETS days: whole days, as few as keep the limit.
  let resolution = Math.ceil(span / MAX_TREND_BUCKETS / DAY_MS) * DAY_MS
  let window = bucketsOf(since, before, resolution)
  while (window.count > MAX_TREND_BUCKETS) {
    resolution += DAY_MS
    window = bucketsOf(since, before, resolution)
  }
  return window
}

/** Contiguous buckets, oldest first, with 0 where no row counted anything. */
export function fillBuckets(window: TrendWindow, counts: ReadonlyMap<number, number>): TrendBucket[] {
  const buckets: TrendBucket[] = []
  for (let i = 0; i < window.count; i++) {
    const from = window.start + i * window.resolution
    buckets.push({
      events_count: counts.get(from) ?? 0,
      from: new Date(from).toISOString(),
      to: new Date(from + window.resolution).toISOString(),
    })
  }
  return buckets
}

interface CountRow {
  error_id?: string
  bucket: Date | string
  n: number | string
}

/** What a trend counts: a project, one error, or a set of errors (grouped by error). */
type TrendTarget = { projectId: string; errorIds?: readonly string[]; byError: boolean }

/** Whether the hourly rollups answer exactly: whole hours and no condition on single events. */
const useRollups = (window: TrendWindow, compiled: CompiledFilters) =>
  window.resolution % HOUR_MS === 0 && compiled.event === undefined

/** Bucket counts (bucket start ms → events), per error when `byError`. */
async function countBuckets(
  db: Db,
  target: TrendTarget,
  compiled: CompiledFilters,
  window: TrendWindow,
): Promise<CountRow[]> {
  const from = new Date(window.start).toISOString()
  const to = new Date(window.start + window.count * window.resolution).toISOString()
  const stride = `${window.resolution / 1000} seconds`
  const bin = (column: SQL) => sql`date_bin(${stride}::interval, ${column}, timestamptz '1970-01-01 00:00:00+00')`
  const errorIn = (column: SQL) =>
    target.errorIds ? sql`${column} IN (${sql.join(target.errorIds.map((id) => sql`${id}`), sql`, `)})` : undefined

  if (useRollups(window, compiled)) {
    // The project with no error condition but its status: project_hourly_counts are kept by status.
    if (!target.errorIds && compiled.errorFields.every((field) => field === 'error.status')) {
      return queryRows<CountRow>(
        db,
        sql`SELECT ${bin(sql`h.hour`)} AS bucket, sum(h.events) AS n FROM project_hourly_counts h
            WHERE ${and(
              sql`h.project_id = ${target.projectId} AND h.hour >= ${from}::timestamptz AND h.hour < ${to}::timestamptz`,
              compiled.statusOn?.(sql`h.status`),
            )}
            GROUP BY 1`,
      )
    }
    // Error conditions (status, severity, …) through the errors row of each hourly count.
    // Given errors (the callers checked they are the project's) are read by primary key on
    // both tables, whatever the planner's statistics say: with none (PGlite before its first
    // ANALYZE) it took the project index instead and read every hourly count once per error.
    const conditions = and(
      target.errorIds ? errorIn(sql`h.error_id`) : sql`h.project_id = ${target.projectId}`,
      sql`h.hour >= ${from}::timestamptz AND h.hour < ${to}::timestamptz`,
      compiled.error
        ? and(target.errorIds ? errorIn(sql`${errors.id}`) : sql`${errors.projectId} = ${target.projectId}`, compiled.error)
        : undefined,
    )
    return queryRows<CountRow>(
      db,
      sql`SELECT ${target.byError ? sql`h.error_id,` : sql``} ${bin(sql`h.hour`)} AS bucket, sum(h.events) AS n
          FROM error_hourly_counts h ${compiled.error ? sql`JOIN ${errors} ON ${errors.id} = h.error_id` : sql``}
          WHERE ${conditions}
          GROUP BY ${target.byError ? sql`1, 2` : sql`1`}`,
    )
  }

  // Raw events: the filters with their time bounds replaced by the aligned window.
  const where = and(
    errorIn(sql`${events.errorId}`),
    projectEventsWhere(target.projectId, { ...compiled, since: new Date(window.start), before: new Date(to) }),
  )
  return queryRows<CountRow>(
    db,
    sql`SELECT ${target.byError ? sql`${events.errorId} AS error_id,` : sql``} ${bin(sql`${events.receivedAt}`)} AS bucket,
               count(*) AS n
        FROM ${events} WHERE ${where}
        GROUP BY ${target.byError ? sql`1, 2` : sql`1`}`,
  )
}

const countsOf = (rows: readonly CountRow[]) => new Map(rows.map((r) => [new Date(r.bucket).getTime(), Number(r.n)]))

/** The project's (errorId undefined) or one error's trend. */
export async function getTrend(
  db: Db,
  scope: PivotScope,
  query: TrendQuery,
  filters: Filters,
  now = new Date(),
): Promise<TrendBucket[]> {
  const compiled = compileFilters(filters, { userId: scope.userId, now })
  const window = trendWindow(query, compiled, now)
  await requireScope(db, scope)
  const rows = await countBuckets(
    db,
    { projectId: scope.projectId, errorIds: scope.errorId ? [scope.errorId] : undefined, byError: false },
    compiled,
    window,
  )
  return fillBuckets(window, countsOf(rows))
}

/**
 * Trends of several errors of a project in one query (GROUP BY error, bucket): error id →
 * buckets, in the order asked; ids that are not errors of the project are left out.
 */
export async function getErrorTrends(
  db: Db,
  scope: ProjectScope,
  errorIds: readonly string[],
  query: TrendQuery,
  filters: Filters,
  now = new Date(),
): Promise<ErrorTrends> {
  const compiled = compileFilters(filters, { userId: scope.userId, now })
  const window = trendWindow(query, compiled, now)
  const { projectId } = scope
  const known = await db
    .select({ id: errors.id })
    .from(errors)
    .where(and(eq(errors.projectId, projectId), inArray(errors.id, [...errorIds])))
  const ids = new Set(known.map((row) => row.id))
  const inProject = errorIds.filter((id) => ids.has(id))
  if (inProject.length === 0) return {}
  const rows = await countBuckets(db, { projectId, errorIds: inProject, byError: true }, compiled, window)
  const perError = new Map<string, CountRow[]>()
  for (const row of rows) {
    const list = perError.get(row.error_id!) ?? []
    list.push(row)
    perError.set(row.error_id!, list)
  }
  const trends: ErrorTrends = {}
  for (const id of inProject) trends[id] = fillBuckets(window, countsOf(perError.get(id) ?? []))
  return trends
}
