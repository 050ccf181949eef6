// A project's rate limit: its quotas (admins set them, members read them) and what sampling did.
import { eq, sql } from 'drizzle-orm'
import type { RateLimit, UpdateRateLimit } from '../../contract/rate-limits.ts'
import type { ProjectScope } from '../auth/scope.ts'
import { queryRows, type Db } from '../db/client.ts'
import { projects } from '../db/schema.ts'

export async function getRateLimit(db: Db, { projectId }: ProjectScope): Promise<RateLimit> {
  return loadRateLimit(db, projectId)
}

/** Sets or clears either quota (admins only: the route says so); the other is left as it is. */
export async function updateRateLimit(db: Db, { projectId }: ProjectScope, input: UpdateRateLimit): Promise<RateLimit> {
  await db
    .update(projects)
    .set({
      ...(input.events_per_minute !== undefined && { eventsPerMinute: input.events_per_minute }),
      ...(input.events_per_day !== undefined && { eventsPerDay: input.events_per_day }),
      updatedAt: sql`now()`,
    })
    .where(eq(projects.id, projectId))
  return loadRateLimit(db, projectId)
}

const MINUTE_MS = 60_000
const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
const HOURS_SHOWN = 24

/**
 * The quotas and the recent volume, from the project's windows (project_event_windows, which the
 * index step counts for every project): received events, whether kept or dropped. Not from
 * project_hourly_counts, which holds the stored events (after sampling, less deletions) and lags
 * by a fold. At most a day of minute windows is read, by the table's key.
 */
async function loadRateLimit(db: Db, projectId: string): Promise<RateLimit> {
  // The server's clock, as ingestion's received times (tests stop it to read a chosen minute).
  const now = new Date()
  const at = sql`${now.toISOString()}::timestamptz`
  const [row] = await queryRows<{
    events_per_minute: number | null
    events_per_day: number | null
    events_today: number | string
    events_last_minute: number | string
    last_dropped_at: Date | string | null
  }>(
    db,
    sql`SELECT p.events_per_minute, p.events_per_day,
        coalesce((SELECT w.events FROM project_event_windows w WHERE w.project_id = p.id AND w.span = 'day'
          AND w.starts_at = ${new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS).toISOString()}::timestamptz), 0) AS events_today,
        coalesce((SELECT w.events FROM project_event_windows w WHERE w.project_id = p.id AND w.span = 'minute'
          AND w.starts_at = ${new Date(Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS - MINUTE_MS).toISOString()}::timestamptz), 0) AS events_last_minute,
        (SELECT s.last_dropped_at FROM project_rate_limit_state s WHERE s.project_id = p.id) AS last_dropped_at
      FROM projects p WHERE p.id = ${projectId}`,
  )
  const firstHour = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - (HOURS_SHOWN - 1) * HOUR_MS
  // The hours of the last 24 hours' minute windows; the first one is partly before the hours shown.
  const minutes = await queryRows<{ hour: Date | string; events: number | string; dropped: number | string; busiest: number | string; last_hour: number | string }>(
    db,
    sql`SELECT date_bin('1 hour', starts_at, timestamptz '1970-01-01 00:00:00+00') AS hour, sum(events) AS events, sum(dropped) AS dropped,
        max(events) AS busiest, coalesce(sum(events) FILTER (WHERE starts_at > ${at} - interval '1 hour'), 0) AS last_hour
      FROM project_event_windows
      WHERE project_id = ${projectId} AND span = 'minute' AND starts_at > ${at} - interval '24 hours'
      GROUP BY 1`,
  )
  const byHour = new Map(minutes.map((m) => [new Date(m.hour).getTime(), m]))
  const sum = (pick: (m: (typeof minutes)[number]) => number | string) => minutes.reduce((total, m) => total + Number(pick(m)), 0)
  return {
    events_per_minute: row?.events_per_minute ?? null,
    events_per_day: row?.events_per_day ?? null,
    events_today: Number(row?.events_today ?? 0),
    events_last_minute: Number(row?.events_last_minute ?? 0),
    events_last_hour: sum((m) => m.last_hour),
    busiest_minute_24h: Math.max(0, ...minutes.map((m) => Number(m.busiest))),
    hours: Array.from({ length: HOURS_SHOWN }, (_, i) => {
      const hour = firstHour + i * HOUR_MS
      const found = byHour.get(hour)
      return { hour: new Date(hour).toISOString(), events: Number(found?.events ?? 0), dropped: Number(found?.dropped ?? 0) }
    }),
    dropped_last_24h: sum((m) => m.dropped),
    last_dropped_at: row?.last_dropped_at ? new Date(row.last_dropped_at).toISOString() : null,
  }
}
