// Rollups: counts kept beside the events so trends, pivots and single-field error filters
// read hundreds of rows instead of millions. Written in the same transaction as the events
// they count (ingest, event and error deletion), so they are exact at every commit.
//   error_hourly_counts    events per error per hour
//   project_hourly_counts  events per project per hour
//   pivot_counts           events per value of each pivot field, per error and per project (error_id '')
import { sql } from 'drizzle-orm'
import { queryRows, type Db } from '../db/client.ts'
import { textArrayLiteral } from '../db/text-array.ts'
import { ROLLUP_FIELDS } from '../filters/filter-sql.ts'

export const HOUR_MS = 3_600_000

/** What the rollups need from one stored event. */
export interface RollupEvent {
  projectId: string
  errorId: string
  receivedAt: Date
  /** Values of the ROLLUP_FIELDS, null when the event has none. */
  values: Record<(typeof ROLLUP_FIELDS)[number], string | null>
  userEmail: string | null
  userName: string | null
}

interface PivotRow {
  project_id: string
  error_id: string
  field: string
  value: string
  events: number
  first_seen: string
  last_seen: string
  details: { 'user.email'?: string; 'user.name'?: string } | null
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Adds a batch of events to every rollup: aggregated in memory first, then one upsert per
 * table carrying the rows as one jsonb parameter. Rows are written in key order so that
 * concurrent batches lock them in the same order and cannot deadlock.
 */
export async function addToRollups(tx: Db, batch: readonly RollupEvent[]): Promise<void> {
  if (batch.length === 0) return
  const errorHours = new Map<string, { project_id: string; error_id: string; hour: string; events: number }>()
  const projectHours = new Map<string, { project_id: string; hour: string; events: number }>()
  const pivots = new Map<string, PivotRow>()

  for (const event of batch) {
    const hour = new Date(Math.floor(event.receivedAt.getTime() / HOUR_MS) * HOUR_MS).toISOString()
    const at = event.receivedAt.toISOString()
    const errorHourKey = `${event.errorId}\u0000${hour}`
    const errorHour = errorHours.get(errorHourKey)
    if (errorHour) errorHour.events += 1
    else errorHours.set(errorHourKey, { project_id: event.projectId, error_id: event.errorId, hour, events: 1 })
    const projectHourKey = `${event.projectId}\u0000${hour}`
    const projectHour = projectHours.get(projectHourKey)
    if (projectHour) projectHour.events += 1
    else projectHours.set(projectHourKey, { project_id: event.projectId, hour, events: 1 })

    for (const field of ROLLUP_FIELDS) {
      const value = event.values[field]
      if (value === null) continue
      const details =
        field === 'user.id' && (event.userEmail || event.userName)
          ? {
              ...(event.userEmail ? { 'user.email': event.userEmail } : {}),
              ...(event.userName ? { 'user.name': event.userName } : {}),
            }
          : null
      for (const errorId of [event.errorId, '']) {
        const key = `${event.projectId}\u0000${errorId}\u0000${field}\u0000${value}`
        const row = pivots.get(key)
        if (!row) {
          pivots.set(key, {
            project_id: event.projectId,
            error_id: errorId,
            field,
            value,
            events: 1,
            first_seen: at,
            last_seen: at,
            details,
          })
          continue
        }
        row.events += 1
        if (at < row.first_seen) row.first_seen = at
        if (at >= row.last_seen) {
          row.last_seen = at
          if (details) row.details = details
        }
      }
    }
  }

  const sorted = <T>(rows: Map<string, T>) => [...rows].sort((a, b) => compare(a[0], b[0])).map(([, row]) => row)
  await tx.execute(sql`
    INSERT INTO error_hourly_counts AS h (project_id, error_id, hour, events)
    SELECT project_id, error_id, hour, events FROM jsonb_to_recordset(${JSON.stringify(sorted(errorHours))}::jsonb)
      AS x(project_id text, error_id text, hour timestamptz, events bigint)
    ON CONFLICT (error_id, hour) DO UPDATE SET events = h.events + excluded.events`)
  await tx.execute(sql`
    INSERT INTO project_hourly_counts AS h (project_id, hour, events)
    SELECT project_id, hour, events FROM jsonb_to_recordset(${JSON.stringify(sorted(projectHours))}::jsonb)
      AS x(project_id text, hour timestamptz, events bigint)
    ON CONFLICT (project_id, hour) DO UPDATE SET events = h.events + excluded.events`)
  await tx.execute(sql`
    INSERT INTO pivot_counts AS p (project_id, error_id, field, value, events, first_seen, last_seen, details)
    SELECT project_id, error_id, field, value, events, first_seen, last_seen, details
    FROM jsonb_to_recordset(${JSON.stringify(sorted(pivots))}::jsonb)
      AS x(project_id text, error_id text, field text, value text, events bigint, first_seen timestamptz,
           last_seen timestamptz, details jsonb)
    ON CONFLICT (project_id, error_id, field, value) DO UPDATE SET
      events = p.events + excluded.events,
      first_seen = least(p.first_seen, excluded.first_seen),
      last_seen = greatest(p.last_seen, excluded.last_seen),
      details = CASE WHEN excluded.last_seen >= p.last_seen AND excluded.details IS NOT NULL
                     THEN excluded.details ELSE p.details END`)
}

/** The events columns of each rollup field, as (field, value) pairs for a LATERAL VALUES list. */
const fieldValuePairs = sql.raw(`(VALUES
  ('app.release_stage', g.release_stage), ('app.version', g.app_version), ('user.id', g.user_id),
  ('event.context', g.context), ('device.os_name', g.os_name), ('device.os_version', g.os_version),
  ('device.browser_name', g.browser_name), ('device.model', g.device_model), ('request.url', g.request_url))`)

/**
 * Takes events out of the rollups; call it in the transaction that deletes them, BEFORE the
 * DELETE. Counts go down exactly and rows reaching zero are removed; first_seen and
 * last_seen of surviving pivot rows are left as they were (docs/filters.md).
 */
export async function removeEventsFromRollups(tx: Db, eventIds: readonly string[]): Promise<void> {
  if (eventIds.length === 0) return
  const ids = sql`(SELECT unnest(${textArrayLiteral(eventIds)}::text[]))`
  const hour = sql.raw(`date_bin('1 hour', g.received_at, timestamptz '1970-01-01 00:00:00+00')`)
  // Each UPDATE names the rows it emptied; only those are deleted afterwards.
  const emptied = { errorHours: [] as EmptyRow[], projectHours: [] as EmptyRow[], pivots: [] as EmptyRow[] }
  emptied.errorHours = await queryRows<EmptyRow>(tx, sql`
    UPDATE error_hourly_counts h SET events = h.events - d.n
    FROM (SELECT g.error_id, ${hour} AS hour, count(*) AS n FROM events g WHERE g.id IN ${ids} GROUP BY 1, 2) d
    WHERE h.error_id = d.error_id AND h.hour = d.hour
    RETURNING h.error_id AS a, h.hour::text AS b, '' AS c, '' AS d, h.events AS events`)
  emptied.projectHours = await queryRows<EmptyRow>(tx, sql`
    UPDATE project_hourly_counts h SET events = h.events - d.n
    FROM (SELECT g.project_id, ${hour} AS hour, count(*) AS n FROM events g WHERE g.id IN ${ids} GROUP BY 1, 2) d
    WHERE h.project_id = d.project_id AND h.hour = d.hour
    RETURNING h.project_id AS a, h.hour::text AS b, '' AS c, '' AS d, h.events AS events`)
  emptied.pivots = await queryRows<EmptyRow>(tx, sql`
    UPDATE pivot_counts p SET events = p.events - d.n
    FROM (SELECT g.project_id, k.error_id, f.field, f.value, count(*) AS n
          FROM events g CROSS JOIN LATERAL ${fieldValuePairs} AS f(field, value)
          CROSS JOIN LATERAL (VALUES (g.error_id), ('')) AS k(error_id)
          WHERE g.id IN ${ids} AND f.value IS NOT NULL
          GROUP BY 1, 2, 3, 4) d
    WHERE p.project_id = d.project_id AND p.error_id = d.error_id AND p.field = d.field AND p.value = d.value
    RETURNING p.project_id AS a, p.error_id AS b, p.field AS c, p.value AS d, p.events AS events`)
  await deleteEmptyRows(tx, emptied)
}

/**
 * Takes whole errors out of the project-wide rollups; call it before deleting them, with
 * the error rows locked (their own error_hourly_counts go with them by foreign key; their
 * pivot rows are removed here).
 */
export async function removeErrorsFromRollups(tx: Db, projectId: string, errorIds: readonly string[]): Promise<void> {
  if (errorIds.length === 0) return
  const ids = sql`(SELECT unnest(${textArrayLiteral(errorIds)}::text[]))`
  const projectHours = await queryRows<EmptyRow>(tx, sql`
    UPDATE project_hourly_counts h SET events = h.events - e.events
    FROM (SELECT hour, sum(events) AS events FROM error_hourly_counts WHERE error_id IN ${ids} GROUP BY hour) e
    WHERE h.project_id = ${projectId} AND h.hour = e.hour
    RETURNING h.project_id AS a, h.hour::text AS b, '' AS c, '' AS d, h.events AS events`)
  const pivots = await queryRows<EmptyRow>(tx, sql`
    UPDATE pivot_counts p SET events = p.events - e.events
    FROM (SELECT field, value, sum(events) AS events FROM pivot_counts
          WHERE project_id = ${projectId} AND error_id IN ${ids} GROUP BY field, value) e
    WHERE p.project_id = ${projectId} AND p.error_id = '' AND p.field = e.field AND p.value = e.value
    RETURNING p.project_id AS a, p.error_id AS b, p.field AS c, p.value AS d, p.events AS events`)
  await tx.execute(sql`DELETE FROM pivot_counts WHERE project_id = ${projectId} AND error_id IN ${ids}`)
  await deleteEmptyRows(tx, { errorHours: [], projectHours, pivots })
}

/** A rollup row's key (a–d, meaning per table) and its count after an UPDATE. */
interface EmptyRow {
  a: string
  b: string
  c: string
  d: string
  events: number | string
}

/** Deletes exactly the rows an UPDATE brought to zero. */
async function deleteEmptyRows(
  tx: Db,
  rows: { errorHours: EmptyRow[]; projectHours: EmptyRow[]; pivots: EmptyRow[] },
): Promise<void> {
  const empty = (list: EmptyRow[]) => JSON.stringify(list.filter((r) => Number(r.events) <= 0))
  const keys = sql.raw(`AS x(a text, b text, c text, d text)`)
  if (rows.errorHours.some((r) => Number(r.events) <= 0)) {
    await tx.execute(sql`DELETE FROM error_hourly_counts t USING jsonb_to_recordset(${empty(rows.errorHours)}::jsonb) ${keys}
      WHERE t.error_id = x.a AND t.hour = x.b::timestamptz AND t.events <= 0`)
  }
  if (rows.projectHours.some((r) => Number(r.events) <= 0)) {
    await tx.execute(sql`DELETE FROM project_hourly_counts t USING jsonb_to_recordset(${empty(rows.projectHours)}::jsonb) ${keys}
      WHERE t.project_id = x.a AND t.hour = x.b::timestamptz AND t.events <= 0`)
  }
  if (rows.pivots.some((r) => Number(r.events) <= 0)) {
    await tx.execute(sql`DELETE FROM pivot_counts t USING jsonb_to_recordset(${empty(rows.pivots)}::jsonb) ${keys}
      WHERE t.project_id = x.a AND t.error_id = x.b AND t.field = x.c AND t.value = x.d AND t.events <= 0`)
  }
}

/** Rebuilds every rollup of a project from its events (tests compare it with the incremental result). */
export async function rollupsFromEvents(tx: Db, projectId: string) {
  return queryRows<{ error_id: string; field: string; value: string; events: number }>(
    tx,
    sql`SELECT k.error_id, f.field, f.value, count(*)::int AS events
        FROM events g CROSS JOIN LATERAL ${fieldValuePairs} AS f(field, value)
        CROSS JOIN LATERAL (VALUES (g.error_id), ('')) AS k(error_id)
        WHERE g.project_id = ${projectId} AND f.value IS NOT NULL
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  )
}

/**
 * Recomputes every rollup of a project from its events, replacing what was there. For data
 * loaded around ingestion (the benchmark's SQL seeding, imports); ingestion keeps them current.
 */
export async function rebuildRollups(tx: Db, projectId: string): Promise<void> {
  const hour = sql.raw(`date_bin('1 hour', g.received_at, timestamptz '1970-01-01 00:00:00+00')`)
  await tx.execute(sql`DELETE FROM error_hourly_counts WHERE project_id = ${projectId}`)
  await tx.execute(sql`DELETE FROM project_hourly_counts WHERE project_id = ${projectId}`)
  await tx.execute(sql`DELETE FROM pivot_counts WHERE project_id = ${projectId}`)
  await tx.execute(sql`
    INSERT INTO error_hourly_counts (project_id, error_id, hour, events)
    SELECT g.project_id, g.error_id, ${hour}, count(*) FROM events g WHERE g.project_id = ${projectId} GROUP BY 1, 2, 3`)
  await tx.execute(sql`
    INSERT INTO project_hourly_counts (project_id, hour, events)
    SELECT project_id, hour, sum(events) FROM error_hourly_counts WHERE project_id = ${projectId} GROUP BY 1, 2`)
  await tx.execute(sql`
    INSERT INTO pivot_counts (project_id, error_id, field, value, events, first_seen, last_seen, details)
    SELECT g.project_id, k.error_id, f.field, f.value, count(*), min(g.received_at), max(g.received_at),
      CASE WHEN f.field = 'user.id' THEN nullif(jsonb_strip_nulls(jsonb_build_object(
        'user.email', (array_agg(g.user_email ORDER BY g.received_at DESC) FILTER (WHERE g.user_email IS NOT NULL))[1],
        'user.name', (array_agg(g.user_name ORDER BY g.received_at DESC) FILTER (WHERE g.user_name IS NOT NULL))[1])),
        '{}'::jsonb) END
    FROM events g CROSS JOIN LATERAL ${fieldValuePairs} AS f(field, value)
    CROSS JOIN LATERAL (VALUES (g.error_id), ('')) AS k(error_id)
    WHERE g.project_id = ${projectId} AND f.value IS NOT NULL
    GROUP BY 1, 2, 3, 4`)
}
