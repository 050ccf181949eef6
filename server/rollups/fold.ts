// Folding: events are added to the rollups (rollups.ts) behind a watermark, about once a second,
// rather than in each index transaction. Every event indexed gets a seq (events_seq); a
// project's rollups hold exactly its events up to its watermark (rollup_watermarks). A fold adds
// the events above it, aggregated by the database itself, and moves the watermark, in one
// transaction that holds the project's write lock (db/project-lock.ts): no index transaction of
// that project is in flight then, so no event below the new watermark can still appear.
//
// Trends, pivots and filtered lists read the rollups, so they lag the events by up to a fold
// (docs/filters.md); anything that takes events or errors out of the rollups folds first
// (rollups.ts), so it never subtracts what was not added.
import { sql, type SQL } from 'drizzle-orm'
import { queryRows, type Db } from '../db/client.ts'
import { eventColumn, ROLLUP_FIELDS, TEXT_ROLLUP_FIELDS, TEXT_ROW_CHARS } from '../filters/filter-sql.ts'

/** An event field's value on events `g` as its pivot_counts rows hold it: text fields cut (TEXT_ROW_CHARS). */
function rowValue(fieldId: string): string {
  const column = `g.${eventColumn(fieldId).name}`
  return TEXT_ROLLUP_FIELDS.includes(fieldId) ? `left(${column}, ${TEXT_ROW_CHARS})` : column
}

const ROW_FIELDS = [...ROLLUP_FIELDS, ...TEXT_ROLLUP_FIELDS]
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`

/**
 * Each event's rollup rows as (field, value) pairs, for a LATERAL VALUES list over events `g`:
 * one per pivot and text field, value '' where the event has none.
 */
export const fieldValuePairs = sql.raw(
  `(VALUES ${ROW_FIELDS.map((fieldId) => `(${literal(fieldId)}, coalesce(${rowValue(fieldId)}, ''))`).join(', ')})`,
)

/** Whether a rollup row (field, value) has a project-wide row (error_id ''): a pivot field's, with a value. */
export const hasProjectRows = (field: string, value: string) =>
  sql.raw(`(${field} IN (${ROLLUP_FIELDS.map(literal).join(', ')}) AND ${value} <> '')`)

/**
 * Whether event `g` counts in the rollup row `p` of its error (the value of p's field in g is
 * p's value, '' for none): how a row's first and last seen are recomputed after events are removed.
 */
export const eventInRow = sql.raw(`CASE p.field ${ROW_FIELDS.map(
  (fieldId) => `WHEN ${literal(fieldId)} THEN coalesce(${rowValue(fieldId)}, '') = p.value`,
).join(' ')} END`)

const HOUR = sql.raw(`date_bin('1 hour', g.received_at, timestamptz '1970-01-01 00:00:00+00')`)

/**
 * The CTEs that add the events of a CTE `g` (rows of events) to every rollup: hourly counts per
 * error and per project (by each error's status now) and pivot counts per error and per project.
 * Rows in key order, as every rollup write, so concurrent writers lock them in the same order.
 */
const rollupAdditions = sql`error_hours AS (
      INSERT INTO error_hourly_counts AS h (project_id, error_id, hour, events)
      SELECT g.project_id, g.error_id, ${HOUR}, count(*) FROM g GROUP BY 1, 2, 3 ORDER BY 2, 3
      ON CONFLICT (error_id, hour) DO UPDATE SET events = h.events + excluded.events
      RETURNING 1
    ), project_hours AS (
      -- By each error's status now: a status change moves only what was folded before it.
      INSERT INTO project_hourly_counts AS h (project_id, status, hour, events)
      SELECT g.project_id, e.status, ${HOUR}, count(*) FROM g JOIN errors e ON e.id = g.error_id GROUP BY 1, 2, 3 ORDER BY 2, 3
      ON CONFLICT (project_id, status, hour) DO UPDATE SET events = h.events + excluded.events
      RETURNING 1
    ), per_error AS MATERIALIZED (
      -- Pivot counts per error first (one pass over the events); the project's rows ('') from those
      -- (pivot fields with a value only: text rows and events without a value serve filters, which look at errors).
      SELECT g.project_id, g.error_id, f.field, f.value, count(*) AS events, min(g.received_at) AS first_seen,
        max(g.received_at) AS last_seen,
        -- user.id rows: the email and name of the newest event of that user that has either.
        (array_agg(jsonb_strip_nulls(jsonb_build_object('user.email', g.user_email, 'user.name', g.user_name))
           ORDER BY g.received_at DESC, g.id DESC)
           FILTER (WHERE f.field = 'user.id' AND (g.user_email IS NOT NULL OR g.user_name IS NOT NULL)))[1] AS details
      FROM g CROSS JOIN LATERAL ${fieldValuePairs} AS f(field, value)
      GROUP BY 1, 2, 3, 4
    ), pivots AS (
      INSERT INTO pivot_counts AS p (project_id, error_id, field, value, events, first_seen, last_seen, details)
      SELECT * FROM (
        SELECT project_id, error_id, field, value, events, first_seen, last_seen, details FROM per_error
        UNION ALL
        SELECT project_id, '', field, value, sum(events), min(first_seen), max(last_seen),
          (array_agg(details ORDER BY last_seen DESC) FILTER (WHERE details IS NOT NULL))[1]
        FROM per_error WHERE ${hasProjectRows('field', 'value')} GROUP BY project_id, field, value
      ) x ORDER BY error_id, field, value
      ON CONFLICT (project_id, error_id, field, value) DO UPDATE SET
        events = p.events + excluded.events,
        first_seen = least(p.first_seen, excluded.first_seen),
        last_seen = greatest(p.last_seen, excluded.last_seen),
        details = CASE WHEN excluded.last_seen >= p.last_seen AND excluded.details IS NOT NULL
                       THEN excluded.details ELSE p.details END
      RETURNING 1
    )`

/**
 * Adds a project's events matching `which` (a condition on events `g`) to its rollups, whatever
 * their seq: for events moved between errors (merging), taken out first with removeFromRollups.
 * The caller holds the project's write lock and has folded, so every such event is below the watermark.
 */
export async function addEventsToRollups(tx: Db, projectId: string, which: SQL): Promise<void> {
  await tx.execute(sql`
    WITH g AS MATERIALIZED (SELECT * FROM events g WHERE g.project_id = ${projectId} AND ${which}), ${rollupAdditions}
    SELECT (SELECT count(*) FROM error_hours) + (SELECT count(*) FROM project_hours) + (SELECT count(*) FROM pivots)`)
}

/**
 * Adds the project's events above its watermark to its rollups and moves the watermark; the
 * caller's transaction holds the project's write lock. Returns how many events it folded.
 */
export async function foldRollups(tx: Db, projectId: string): Promise<number> {
  const [range] = await queryRows<{ from_seq: number | string; to_seq: number | string | null }>(
    tx,
    sql`SELECT coalesce((SELECT seq FROM rollup_watermarks WHERE project_id = ${projectId}), 0) AS from_seq,
               (SELECT max(seq) FROM events WHERE project_id = ${projectId}) AS to_seq`,
  )
  const from = Number(range!.from_seq)
  const to = range!.to_seq === null ? null : Number(range!.to_seq)
  if (to === null || to <= from) return 0
  const [folded] = await queryRows<{ events: number | string }>(
    tx,
    sql`
    WITH g AS MATERIALIZED (
      SELECT * FROM events WHERE project_id = ${projectId} AND seq > ${from} AND seq <= ${to}
    ), ${rollupAdditions}, watermark AS (
      INSERT INTO rollup_watermarks AS w (project_id, seq) VALUES (${projectId}, ${to})
      ON CONFLICT (project_id) DO UPDATE SET seq = excluded.seq
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM g) AS events, (SELECT count(*) FROM error_hours) + (SELECT count(*) FROM project_hours)
      + (SELECT count(*) FROM pivots) + (SELECT count(*) FROM watermark) AS written`,
  )
  return Number(folded!.events)
}

/** The projects with events above their watermark (one probe of events_project_seq_idx each). */
export async function projectsToFold(db: Db): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`SELECT p.id FROM projects p
        WHERE EXISTS (SELECT 1 FROM events e WHERE e.project_id = p.id
                        AND e.seq > coalesce((SELECT w.seq FROM rollup_watermarks w WHERE w.project_id = p.id), 0))
        ORDER BY p.id`,
  )
  return rows.map((row) => row.id)
}
