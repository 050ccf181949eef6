// Stability: crash-free sessions per release (release stage and app version) over a period,
// from session_counts (sessions started, POST /sessions) and crashed_sessions (sessions an
// unhandled event named, written by the indexer). docs/api.md, "Stability".
import { sql } from 'drizzle-orm'
import type { Filters } from '../../contract/filters.ts'
import {
  crashFreeRate,
  DEFAULT_STABILITY_WINDOW_MS,
  MAX_STABILITY_RELEASES,
  STABILITY_FILTER_FIELDS,
  type Stability,
  type StabilityBucket,
} from '../../contract/stability.ts'
import type { TrendQuery } from '../../contract/trends.ts'
import type { ProjectScope } from '../auth/scope.ts'
import { queryRows, type Db } from '../db/client.ts'
import { compileFilters, type CompiledFilters } from '../filters/filter-sql.ts'
import { ValidationError } from '../failures.ts'
import { trendWindow } from '../trends/trends.service.ts'

interface ReleaseRow {
  release_stage: string
  app_version: string
  sessions: number | string
  crashed: number | string
  first_seen: Date | string
  last_seen: Date | string
  total_sessions: number | string
  total_crashed: number | string
  total_first_seen: Date | string
}

const iso = (value: Date | string) => new Date(value).toISOString()

/** The period [since, before) and the release stages asked for; 400 naming any other filter. */
export function stabilityScope(
  filters: Filters,
  userId: string,
  now: Date,
): { since: Date; before: Date; stages: string[]; compiled: CompiledFilters } {
  const problems: string[] = []
  for (const [fieldId, conditions] of Object.entries(filters)) {
    if (!(STABILITY_FILTER_FIELDS as readonly string[]).includes(fieldId)) {
      problems.push(`filters[${fieldId}]: not supported by stability; it takes ${STABILITY_FILTER_FIELDS.join(', ')}`)
    } else if (fieldId === 'app.release_stage' && conditions.some((c) => c.type !== 'eq')) {
      problems.push('filters[app.release_stage]: only type eq is supported by stability')
    }
  }
  if (problems.length > 0) throw new ValidationError(problems)
  const compiled = compileFilters(filters, { userId, now })
  const before = compiled.before ?? now
  const since = compiled.since ?? new Date(before.getTime() - DEFAULT_STABILITY_WINDOW_MS)
  if (since >= before) throw new ValidationError('filters[event.since]: must be earlier than now (or than filters[event.before])')
  return { since, before, stages: (filters['app.release_stage'] ?? []).map((c) => c.value), compiled }
}

/** `AND column IN (stages…)`, or nothing for every stage. */
const stageIn = (column: string, stages: readonly string[]) =>
  stages.length > 0 ? sql`AND ${sql.raw(column)} IN (${sql.join(stages.map((s) => sql`${s}`), sql`, `)})` : sql``

/**
 * Sessions started in the period and those of them that crashed, per release, by the minute
 * the sessions started; the releases seen most recently first (at most MAX_STABILITY_RELEASES),
 * and totals over all of them.
 */
export async function getStability(db: Db, scope: ProjectScope, filters: Filters, now = new Date()): Promise<Stability> {
  const { since, before, stages } = stabilityScope(filters, scope.userId, now)
  const { projectId } = scope
  const from = since.toISOString()
  const to = before.toISOString()
  const rows = await queryRows<ReleaseRow>(
    db,
    sql`WITH started AS (
          SELECT release_stage, app_version, sum(sessions) AS sessions, min(minute) AS first_seen, max(minute) AS last_seen
          FROM session_counts
          WHERE project_id = ${projectId} AND minute >= ${from}::timestamptz AND minute < ${to}::timestamptz
            AND sessions > 0 ${stageIn('release_stage', stages)}
          GROUP BY release_stage, app_version),
        crashed AS (
          SELECT release_stage, app_version, count(*) AS crashed, min(started_minute) AS first_seen, max(started_minute) AS last_seen
          FROM crashed_sessions
          WHERE project_id = ${projectId} AND started_minute >= ${from}::timestamptz AND started_minute < ${to}::timestamptz
            ${stageIn('release_stage', stages)}
          GROUP BY release_stage, app_version),
        releases AS (
          SELECT release_stage, app_version, coalesce(s.sessions, 0) AS sessions, coalesce(c.crashed, 0) AS crashed,
            least(s.first_seen, c.first_seen) AS first_seen, greatest(s.last_seen, c.last_seen) AS last_seen
          FROM started s FULL JOIN crashed c USING (release_stage, app_version))
        SELECT release_stage, app_version, sessions, crashed, first_seen, last_seen,
          sum(sessions) OVER () AS total_sessions, sum(crashed) OVER () AS total_crashed, min(first_seen) OVER () AS total_first_seen
        FROM releases
        ORDER BY last_seen DESC, release_stage, app_version
        LIMIT ${MAX_STABILITY_RELEASES}`,
  )
  const totalSessions = Number(rows[0]?.total_sessions ?? 0)
  const totalCrashed = Number(rows[0]?.total_crashed ?? 0)
  return {
    total: {
      sessions: totalSessions,
      crashed_sessions: totalCrashed,
      crash_free_rate: crashFreeRate(totalSessions, totalCrashed),
      first_seen: rows[0] ? iso(rows[0].total_first_seen) : null,
    },
    releases: rows.map((row) => {
      const sessions = Number(row.sessions)
      const crashed = Number(row.crashed)
      return {
        release_stage: row.release_stage,
        app_version: row.app_version,
        sessions,
        crashed_sessions: crashed,
        crash_free_rate: crashFreeRate(sessions, crashed),
        first_seen: iso(row.first_seen),
        last_seen: iso(row.last_seen),
      }
    }),
  }
}

/**
 * Crash-free sessions over time: the period cut into the trend's aligned buckets (the same
 * resolution rules and limit as GET /trend), each with the sessions that started in it and
 * those of them that crashed. Empty buckets are there, with a null rate.
 */
export async function getStabilityTrend(
  db: Db,
  scope: ProjectScope,
  query: TrendQuery,
  filters: Filters,
  now = new Date(),
): Promise<StabilityBucket[]> {
  const { stages, compiled } = stabilityScope(filters, scope.userId, now)
  const window = trendWindow(query, compiled, now)
  const { projectId } = scope
  const from = new Date(window.start).toISOString()
  const to = new Date(window.start + window.count * window.resolution).toISOString()
  const bin = (column: string) =>
    sql`date_bin(${`${window.resolution / 1000} seconds`}::interval, ${sql.raw(column)}, timestamptz '1970-01-01 00:00:00+00')`
  const rows = await queryRows<{ bucket: Date | string; sessions: number | string; crashed: number | string }>(
    db,
    sql`WITH started AS (
          SELECT ${bin('minute')} AS bucket, sum(sessions) AS sessions FROM session_counts
          WHERE project_id = ${projectId} AND minute >= ${from}::timestamptz AND minute < ${to}::timestamptz
            ${stageIn('release_stage', stages)}
          GROUP BY 1),
        crashed AS (
          SELECT ${bin('started_minute')} AS bucket, count(*) AS crashed FROM crashed_sessions
          WHERE project_id = ${projectId} AND started_minute >= ${from}::timestamptz AND started_minute < ${to}::timestamptz
            ${stageIn('release_stage', stages)}
          GROUP BY 1)
        SELECT bucket, coalesce(s.sessions, 0) AS sessions, coalesce(c.crashed, 0) AS crashed
        FROM started s FULL JOIN crashed c USING (bucket)`,
  )
  const byBucket = new Map(rows.map((row) => [new Date(row.bucket).getTime(), row]))
  return Array.from({ length: window.count }, (_, i) => {
    const start = window.start + i * window.resolution
    const row = byBucket.get(start)
    const sessions = Number(row?.sessions ?? 0)
    const crashed = Number(row?.crashed ?? 0)
    return {
      from: new Date(start).toISOString(),
      to: new Date(start + window.resolution).toISOString(),
      sessions,
      crashed_sessions: crashed,
      crash_free_rate: crashFreeRate(sessions, crashed),
    }
  })
}
