// A project's rate limit: its quotas (admins set them, members read them) and what sampling did.
import { eq, sql } from 'drizzle-orm'
import type { RateLimit, UpdateRateLimit } from '../../contract/rate-limits.ts'
import type { ProjectScope } from '../auth/scope.ts'
import { queryRows, type Db } from '../db/client.ts'
import { projects } from '../db/schema.ts'

export async function getRateLimit(db: Db, { projectId }: ProjectScope): Promise<RateLimit> {
  return loadRateLimit(db, projectId)
}

/** Sets or clears either quota (admins only); the other is left as it is. */
/** For admins (the route says so). */
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

async function loadRateLimit(db: Db, projectId: string): Promise<RateLimit> {
  const [row] = await queryRows<{
    events_per_minute: number | null
    events_per_day: number | null
    events_today: number | string
    dropped_last_24h: number | string
    last_dropped_at: Date | string | null
  }>(
    db,
    sql`SELECT p.events_per_minute, p.events_per_day,
        coalesce((SELECT w.events FROM project_event_windows w WHERE w.project_id = p.id AND w.span = 'day'
          AND w.starts_at = date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0) AS events_today,
        coalesce((SELECT sum(w.dropped) FROM project_event_windows w WHERE w.project_id = p.id AND w.span = 'minute'
          AND w.starts_at > now() - interval '24 hours'), 0) AS dropped_last_24h,
        (SELECT s.last_dropped_at FROM project_rate_limit_state s WHERE s.project_id = p.id) AS last_dropped_at
      FROM projects p WHERE p.id = ${projectId}`,
  )
  return {
    events_per_minute: row?.events_per_minute ?? null,
    events_per_day: row?.events_per_day ?? null,
    events_today: Number(row?.events_today ?? 0),
    dropped_last_24h: Number(row?.dropped_last_24h ?? 0),
    last_dropped_at: row?.last_dropped_at ? new Date(row.last_dropped_at).toISOString() : null,
  }
}
