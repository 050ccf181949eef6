// Rollups: counts kept beside the events so trends, pivots and single-field error filters
// read hundreds of rows instead of millions. Events are added by folding (fold.ts), about once
// a second behind a watermark; deleting events or errors takes them out in the same transaction
// as the delete, after folding, so the rollups are exact for every event up to the watermark.
//   error_hourly_counts    events per error per hour
//   project_hourly_counts  events per project, current error status and hour
//   pivot_counts           events per value of each pivot field, per error and per project (error_id ''),
//                          and per error: of each text field, and of the events without a value ('')
import { sql, type SQL } from 'drizzle-orm'
import { queryRows, type Db } from '../db/client.ts'
import { textArrayLiteral } from '../db/text-array.ts'
import { eventInRow, fieldValuePairs, foldRollups, hasProjectRows } from './fold.ts'

export const HOUR_MS = 3_600_000

/** A surviving pivot row (error_id '' for the project's) that removed events may have shaped. */
export interface PivotToRecheck {
  error_id: string
  field: string
  value: string
}

/**
 * Takes a project's events out of the rollups; call it in the transaction that deletes them,
 * BEFORE the DELETE. Counts go down exactly and rows reaching zero are removed, in one
 * statement: the events' decrements are summed per row first, so a row many of them share is
 * written once. first_seen and last_seen of surviving pivot rows are left as they were
 * (docs/filters.md); the rows returned are the only ones a removed event can have shaped: one
 * was at their first or last seen, or (user.id) had an email or name for their details. Any
 * other row's first and last seen belong to events that are still there.
 */
export async function removeEventsFromRollups(tx: Db, projectId: string, eventIds: readonly string[]): Promise<PivotToRecheck[]> {
  if (eventIds.length === 0) return []
  return removeFromRollups(tx, projectId, sql`g.id = ANY(${textArrayLiteral(eventIds)}::text[])`)
}

/** removeEventsFromRollups for the project's events matching `which`, a condition on events `g`. */
export async function removeFromRollups(tx: Db, projectId: string, which: SQL): Promise<PivotToRecheck[]> {
  // Whatever is not folded yet must be, or its events would be taken out before they were added.
  await foldRollups(tx, projectId)
  const hour = sql.raw(`date_bin('1 hour', g.received_at, timestamptz '1970-01-01 00:00:00+00')`)
  // Each table: the rows the decrement empties are deleted, the others updated (disjoint rows,
  // one snapshot), so an emptied row is not first rewritten and then deleted.
  return queryRows<PivotToRecheck>(tx, sql`
    WITH g AS MATERIALIZED (
      SELECT g.*, e.status FROM events g JOIN errors e ON e.id = g.error_id
      WHERE g.project_id = ${projectId} AND ${which}
    ), error_hours AS MATERIALIZED (
      SELECT g.error_id, ${hour} AS hour, count(*) AS n FROM g GROUP BY 1, 2
    ), error_hours_left AS (
      UPDATE error_hourly_counts h SET events = h.events - d.n FROM error_hours d
      WHERE h.error_id = d.error_id AND h.hour = d.hour AND h.events > d.n RETURNING 1
    ), error_hours_emptied AS (
      DELETE FROM error_hourly_counts h USING error_hours d
      WHERE h.error_id = d.error_id AND h.hour = d.hour AND h.events <= d.n RETURNING 1
    ), project_hours AS MATERIALIZED (
      SELECT g.status, ${hour} AS hour, count(*) AS n FROM g GROUP BY 1, 2
    ), project_hours_left AS (
      UPDATE project_hourly_counts h SET events = h.events - d.n FROM project_hours d
      WHERE h.project_id = ${projectId} AND h.status = d.status AND h.hour = d.hour AND h.events > d.n RETURNING 1
    ), project_hours_emptied AS (
      DELETE FROM project_hourly_counts h USING project_hours d
      WHERE h.project_id = ${projectId} AND h.status = d.status AND h.hour = d.hour AND h.events <= d.n RETURNING 1
    ), pivots AS MATERIALIZED (
      SELECT k.error_id, f.field, f.value, count(*) AS n, min(g.received_at) AS first_at, max(g.received_at) AS last_at,
        bool_or(f.field = 'user.id' AND (g.user_email IS NOT NULL OR g.user_name IS NOT NULL)) AS had_details
      FROM g CROSS JOIN LATERAL ${fieldValuePairs} AS f(field, value)
      CROSS JOIN LATERAL (VALUES (g.error_id), ('')) AS k(error_id)
      WHERE k.error_id <> '' OR ${hasProjectRows('f.field', 'f.value')}
      GROUP BY 1, 2, 3
    ), pivots_left AS (
      UPDATE pivot_counts p SET events = p.events - d.n FROM pivots d
      WHERE p.project_id = ${projectId} AND p.error_id = d.error_id AND p.field = d.field AND p.value = d.value AND p.events > d.n
      RETURNING p.error_id, p.field, p.value, d.first_at <= p.first_seen OR d.last_at >= p.last_seen OR d.had_details AS recheck
    ), pivots_emptied AS (
      DELETE FROM pivot_counts p USING pivots d
      WHERE p.project_id = ${projectId} AND p.error_id = d.error_id AND p.field = d.field AND p.value = d.value AND p.events <= d.n
      RETURNING 1
    )
    -- The other writes run to completion whether or not they are read here.
    SELECT error_id, field, value FROM pivots_left WHERE recheck`)
}

/**
 * Recomputes the first and last seen (and a user's details) of pivot rows of errors that
 * removed events may have shaped (removeFromRollups returned them), from the errors' events: a
 * row keeps its time while an event with its value is still at that time (found by the
 * (error_id, received_at) index), and is recomputed otherwise. Rows of the project ('') are left.
 */
export async function recheckPivots(tx: Db, projectId: string, rows: readonly PivotToRecheck[]): Promise<void> {
  const ofErrors = rows.filter((row) => row.error_id !== '')
  if (ofErrors.length === 0) return
  const withValue = sql`g.error_id = p.error_id AND ${eventInRow}`
  const at = (time: SQL) => sql`EXISTS (SELECT 1 FROM events g WHERE ${withValue} AND g.received_at = ${time})`
  await tx.execute(sql`
    UPDATE pivot_counts p SET
      first_seen = CASE WHEN ${at(sql`p.first_seen`)} THEN p.first_seen
        ELSE (SELECT min(g.received_at) FROM events g WHERE ${withValue}) END,
      last_seen = CASE WHEN ${at(sql`p.last_seen`)} THEN p.last_seen
        ELSE (SELECT max(g.received_at) FROM events g WHERE ${withValue}) END,
      details = CASE WHEN p.field = 'user.id' THEN (
          SELECT jsonb_strip_nulls(jsonb_build_object('user.email', g.user_email, 'user.name', g.user_name))
          FROM events g WHERE g.error_id = p.error_id AND g.user_id = p.value AND (g.user_email IS NOT NULL OR g.user_name IS NOT NULL)
          ORDER BY g.received_at DESC, g.id DESC LIMIT 1)
        ELSE p.details END
    FROM jsonb_to_recordset(${JSON.stringify(ofErrors)}::jsonb) AS c(error_id text, field text, value text)
    WHERE p.project_id = ${projectId} AND p.error_id = c.error_id AND p.field = c.field AND p.value = c.value`)
}

/**
 * Takes whole errors out of the project-wide rollups; call it before deleting them, with
 * the error rows locked (their own error_hourly_counts go with them by foreign key; their
 * pivot rows are removed here).
 */
export async function removeErrorsFromRollups(tx: Db, projectId: string, errorIds: readonly string[]): Promise<void> {
  if (errorIds.length === 0) return
  await foldRollups(tx, projectId)
  const ids = sql`(SELECT unnest(${textArrayLiteral(errorIds)}::text[]))`
  const projectHours = await queryRows<EmptyRow>(tx, sql`
    UPDATE project_hourly_counts h SET events = h.events - e.events
    FROM (SELECT r.status, c.hour, sum(c.events) AS events
          FROM error_hourly_counts c JOIN errors r ON r.id = c.error_id
          WHERE c.error_id IN ${ids} GROUP BY 1, 2) e
    WHERE h.project_id = ${projectId} AND h.status = e.status AND h.hour = e.hour
    RETURNING h.project_id AS a, h.status AS b, h.hour::text AS c, '' AS d, h.events AS events`)
  const pivots = await queryRows<EmptyRow>(tx, sql`
    UPDATE pivot_counts p SET events = p.events - e.events
    FROM (SELECT field, value, sum(events) AS events FROM pivot_counts
          WHERE project_id = ${projectId} AND error_id IN ${ids} GROUP BY field, value) e
    WHERE p.project_id = ${projectId} AND p.error_id = '' AND p.field = e.field AND p.value = e.value
    RETURNING p.project_id AS a, p.error_id AS b, p.field AS c, p.value AS d, p.events AS events`)
  await tx.execute(sql`DELETE FROM pivot_counts WHERE project_id = ${projectId} AND error_id IN ${ids}`)
  await deleteEmptyRows(tx, { errorHours: [], projectHours, pivots })
}

/**
 * Moves errors' counts in project_hourly_counts from their old status to their new one;
 * call it in the transaction that changes their status, with the error rows locked, and
 * before adding new events for them.
 */
export async function moveErrorsBetweenStatuses(
  tx: Db,
  projectId: string,
  moves: ReadonlyArray<{ errorId: string; from: string; to: string }>,
): Promise<void> {
  const changed = moves.filter((m) => m.from !== m.to)
  if (changed.length === 0) return
  const moved = sql`(SELECT m.from_status, m.to_status, c.hour, sum(c.events) AS events
    FROM error_hourly_counts c
    JOIN jsonb_to_recordset(${JSON.stringify(changed.map((m) => ({ error_id: m.errorId, from_status: m.from, to_status: m.to })))}::jsonb)
      AS m(error_id text, from_status text, to_status text) ON m.error_id = c.error_id
    GROUP BY 1, 2, 3)`
  const projectHours = await queryRows<EmptyRow>(tx, sql`
    UPDATE project_hourly_counts h SET events = h.events - d.events
    FROM (SELECT from_status, hour, sum(events) AS events FROM ${moved} x GROUP BY 1, 2) d
    WHERE h.project_id = ${projectId} AND h.status = d.from_status AND h.hour = d.hour
    RETURNING h.project_id AS a, h.status AS b, h.hour::text AS c, '' AS d, h.events AS events`)
  await tx.execute(sql`
    INSERT INTO project_hourly_counts AS h (project_id, status, hour, events)
    SELECT ${projectId}, to_status, hour, sum(events) FROM ${moved} x GROUP BY 2, 3 ORDER BY 2, 3
    ON CONFLICT (project_id, status, hour) DO UPDATE SET events = h.events + excluded.events`)
  await deleteEmptyRows(tx, { errorHours: [], projectHours, pivots: [] })
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
      WHERE t.project_id = x.a AND t.status = x.b AND t.hour = x.c::timestamptz AND t.events <= 0`)
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
        WHERE g.project_id = ${projectId} AND (k.error_id <> '' OR ${hasProjectRows('f.field', 'f.value')})
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
    INSERT INTO project_hourly_counts (project_id, status, hour, events)
    SELECT h.project_id, e.status, h.hour, sum(h.events)
    FROM error_hourly_counts h JOIN errors e ON e.id = h.error_id
    WHERE h.project_id = ${projectId} GROUP BY 1, 2, 3`)
  // Per error first (one pass over the events), then the project rows from those.
  await tx.execute(sql`
    INSERT INTO pivot_counts (project_id, error_id, field, value, events, first_seen, last_seen, details)
    SELECT g.project_id, g.error_id, f.field, f.value, count(*), min(g.received_at), max(g.received_at), NULL
    FROM events g CROSS JOIN LATERAL ${fieldValuePairs} AS f(field, value)
    WHERE g.project_id = ${projectId}
    GROUP BY 1, 2, 3, 4`)
  // Fresh statistics for the rows just written: without them the planner may join the
  // millions of pivot rows below by nested loop (measured: over 12 minutes on PostgreSQL at 1,000,000 events).
  await tx.execute(sql`ANALYZE pivot_counts`)
  // user.id details: email and name of the newest event of each user that has either.
  await tx.execute(sql`
    UPDATE pivot_counts p SET details = d.details
    FROM (SELECT DISTINCT ON (error_id, user_id) error_id, user_id,
                 jsonb_strip_nulls(jsonb_build_object('user.email', user_email, 'user.name', user_name)) AS details
          FROM events
          WHERE project_id = ${projectId} AND user_id IS NOT NULL AND (user_email IS NOT NULL OR user_name IS NOT NULL)
          ORDER BY error_id, user_id, received_at DESC) d
    WHERE p.project_id = ${projectId} AND p.error_id = d.error_id AND p.field = 'user.id' AND p.value = d.user_id`)
  await tx.execute(sql`
    INSERT INTO pivot_counts (project_id, error_id, field, value, events, first_seen, last_seen, details)
    SELECT ${projectId}, '', field, value, sum(events), min(first_seen), max(last_seen),
           (array_agg(details ORDER BY last_seen DESC) FILTER (WHERE details IS NOT NULL))[1]
    FROM pivot_counts WHERE project_id = ${projectId} AND error_id <> '' AND ${hasProjectRows('field', 'value')}
    GROUP BY field, value`)
  // Every event is in them now: nothing to fold.
  await tx.execute(sql`
    INSERT INTO rollup_watermarks AS w (project_id, seq)
    SELECT ${projectId}, coalesce(max(seq), 0) FROM events WHERE project_id = ${projectId}
    ON CONFLICT (project_id) DO UPDATE SET seq = excluded.seq`)
}

/**
 * project_hourly_counts as they should be, recomputed from the events and their errors'
 * current statuses, next to what is stored (tests assert the two are equal).
 */
export async function projectHoursCheck(tx: Db, projectId: string) {
  const [stored, expected] = await Promise.all([
    queryRows<{ status: string; hour: string; events: number }>(
      tx,
      sql`SELECT status, hour::text AS hour, events::int AS events FROM project_hourly_counts
          WHERE project_id = ${projectId} ORDER BY 1, 2`,
    ),
    queryRows<{ status: string; hour: string; events: number }>(
      tx,
      sql`SELECT e.status, date_bin('1 hour', g.received_at, timestamptz '1970-01-01 00:00:00+00')::text AS hour,
                 count(*)::int AS events
          FROM events g JOIN errors e ON e.id = g.error_id WHERE g.project_id = ${projectId}
          GROUP BY 1, 2 ORDER BY 1, 2`,
    ),
  ])
  return { stored, expected }
}
