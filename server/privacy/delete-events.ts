// Deleting selected events for good, in batches, and then bringing everything they counted in
// up to date: rollups, error counters, users affected, pivots, crashed sessions, empty errors.
//
// Each batch is one short transaction holding the project's write lock (ingestion and triage
// of that project wait for it, nothing else does): the batch's rollup counts go down exactly
// (removeEventsFromRollups), its errors' event counters too, the events and their payloads go,
// and what cannot be corrected by subtraction (first / last seen, users, pivot details) is
// written down in event_data_deletion_work. finishDeletedEvents then recomputes exactly those,
// once, from what is left. Every step reads the database as it is, so a step cut off by a crash
// is simply run again.
import { sql, type SQL } from 'drizzle-orm'
import { queryRows, type Db } from '../db/client.ts'
import { writingProject } from '../db/project-lock.ts'
import { textArrayLiteral } from '../db/text-array.ts'
import { decodeEventPayload } from '../events/event-payload.ts'
import { eventColumn, ROLLUP_FIELDS } from '../filters/filter-sql.ts'
import { removeErrorsFromRollups, removeEventsFromRollups } from '../rollups/rollups.ts'
import { afterKey, type EventKey } from './selection.ts'

interface BatchRow {
  id: string
  error_id: string
  received_at: string
  user_id: string | null
  user_email: string | null
  unhandled: boolean
  /** Only for events whose user key or crashed session is in their payload (see below). */
  payload: Uint8Array | null
  [column: string]: unknown
}

interface WorkRow {
  kind: 'error' | 'user' | 'pivot' | 'session'
  error_id: string
  field: string
  value: string
}

const nonEmpty = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null

/**
 * The user key an event counted under in error_users (as ingestion makes it: user id, else
 * email, else device id) with where it came from, and the session it crashed, if any.
 */
function tracesOf(row: BatchRow): { userKey: { field: string; value: string } | null; session: string | null } {
  let payload: ReturnType<typeof decodeEventPayload> | null = null
  if (row.payload) {
    try {
      payload = decodeEventPayload(row.payload)
    } catch {
      payload = null
    }
  }
  const device = payload?.device as Record<string, unknown> | undefined
  const session = payload?.session as Record<string, unknown> | null | undefined
  const userKey = nonEmpty(row.user_id)
    ? { field: 'user.id', value: row.user_id! }
    : nonEmpty(row.user_email)
      ? { field: 'user.email', value: row.user_email! }
      : nonEmpty(device?.id)
        ? { field: 'device.id', value: nonEmpty(device?.id)! }
        : null
  const sessionId = row.unhandled ? nonEmpty(session?.id) : null
  return { userKey, session: sessionId ? sessionId.slice(0, 255) : null }
}

const rollupColumns = sql.join(
  ROLLUP_FIELDS.map((field) => sql.raw(`events.${eventColumn(field).name} AS "${field}"`)),
  sql`, `,
)

export interface BatchResult {
  deleted: number
  /** Where the next batch starts; null when this one found nothing. */
  last: EventKey | null
}

/**
 * Deletes up to `limit` of a project's selected events after `after` (oldest first), in one
 * transaction holding the project's write lock, and records what finishDeletedEvents must
 * recompute. `where` selects the events (selection.ts).
 */
export async function deleteEventBatch(
  db: Db,
  deletionId: string,
  projectId: string,
  where: SQL,
  after: EventKey | null,
  limit: number,
): Promise<BatchResult> {
  return writingProject(db, projectId, async (tx) => {
    // Read under the lock: events another deletion (or DELETE /events) took meanwhile are gone.
    const rows = await queryRows<BatchRow>(
      tx,
      sql`SELECT events.id, events.error_id, events.received_at::text AS received_at, events.user_id, events.user_email,
          events.unhandled, ${rollupColumns},
          CASE WHEN (events.user_id IS NULL AND events.user_email IS NULL) OR events.unhandled THEN event_payloads.payload END AS payload
        FROM events LEFT JOIN event_payloads ON event_payloads.event_id = events.id
        WHERE ${where} ${after ? sql`AND ${afterKey(after)}` : sql``}
        ORDER BY events.received_at, events.id LIMIT ${limit}`,
    )
    if (rows.length === 0) return { deleted: 0, last: null }
    const ids = rows.map((r) => r.id)

    const work = new Map<string, WorkRow>()
    const note = (row: WorkRow) => work.set(`${row.kind}\u0000${row.error_id}\u0000${row.field}\u0000${row.value}`, row)
    const perError = new Map<string, number>()
    for (const row of rows) {
      perError.set(row.error_id, (perError.get(row.error_id) ?? 0) + 1)
      note({ kind: 'error', error_id: row.error_id, field: '', value: '' })
      const traces = tracesOf(row)
      if (traces.userKey) note({ kind: 'user', error_id: row.error_id, ...traces.userKey })
      if (traces.session) note({ kind: 'session', error_id: '', field: '', value: traces.session })
      for (const field of ROLLUP_FIELDS) {
        const value = row[field]
        if (typeof value === 'string') note({ kind: 'pivot', error_id: '', field, value })
      }
    }

    await removeEventsFromRollups(tx, ids)
    await tx.execute(sql`
      UPDATE errors e SET events_count = greatest(e.events_count - d.n, 0), updated_at = now()
      FROM jsonb_to_recordset(${JSON.stringify([...perError].map(([id, n]) => ({ id, n })))}::jsonb) AS d(id text, n bigint)
      WHERE e.id = d.id`)
    // Their payloads go with them (foreign key).
    await tx.execute(sql`DELETE FROM events WHERE id = ANY(${textArrayLiteral(ids)}::text[])`)
    await tx.execute(sql`
      INSERT INTO event_data_deletion_work (deletion_id, project_id, kind, error_id, field, value)
      SELECT ${deletionId}, ${projectId}, kind, error_id, field, value
      FROM jsonb_to_recordset(${JSON.stringify([...work.values()])}::jsonb) AS w(kind text, error_id text, field text, value text)
      ON CONFLICT DO NOTHING`)
    await tx.execute(sql`UPDATE event_data_deletions SET deleted_events = deleted_events + ${rows.length} WHERE id = ${deletionId}`)
    const last = rows[rows.length - 1]!
    return { deleted: rows.length, last: { at: last.received_at, id: last.id } }
  })
}

/** Errors, pivot values or sessions per finishing transaction. */
const FINISH_CHUNK = 200

/** The (field, value) pairs of the rollup fields on an events row `g`, for a LATERAL join. */
const fieldValuePairs = sql.raw(
  `(VALUES ${ROLLUP_FIELDS.map((field) => `('${field}', g.${eventColumn(field).name})`).join(', ')})`,
)

/**
 * A remaining event of error `errorId` still counts under user key `key` (noted from `field`):
 * the same rule as ingestion's (user id, else email, else device id). Device ids are only in
 * payloads, which are read for those keys alone; a payload in the old gzip'd form keeps the key.
 */
const stillCounted = (errorId: SQL, key: SQL, field: SQL) => sql`EXISTS (
  SELECT 1 FROM events g LEFT JOIN event_payloads p ON p.event_id = g.id
  WHERE g.error_id = ${errorId} AND (
    g.user_id = ${key}
    OR (g.user_id IS NULL AND g.user_email = ${key})
    OR (${field} = 'device.id' AND g.user_id IS NULL AND g.user_email IS NULL AND (
      p.payload IS NULL OR get_byte(p.payload, 0) = 31
      OR convert_from(p.payload, 'UTF8')::jsonb #>> '{device,id}' = ${key}))))`

/** Takes up to `limit` of a deletion's work rows of one kind for a project. */
const takeWork = (tx: Db, deletionId: string, projectId: string, kind: WorkRow['kind'], limit: number) =>
  queryRows<WorkRow>(
    tx,
    sql`SELECT kind, error_id, field, value FROM event_data_deletion_work
      WHERE deletion_id = ${deletionId} AND project_id = ${projectId} AND kind = ${kind}
      ORDER BY error_id, field, value LIMIT ${limit}`,
  )

/** Recomputes the errors a deletion touched, FINISH_CHUNK at a time; false when none is left. */
async function finishErrors(db: Db, deletionId: string, projectId: string): Promise<boolean> {
  return writingProject(db, projectId, async (tx) => {
    const chunk = await takeWork(tx, deletionId, projectId, 'error', FINISH_CHUNK)
    if (chunk.length === 0) return false
    const ids = textArrayLiteral(chunk.map((w) => w.error_id))
    // Errors left with no events are removed (their status history and users go with them).
    const emptied = await queryRows<{ id: string }>(
      tx,
      sql`SELECT id FROM errors WHERE id = ANY(${ids}::text[])
        AND NOT EXISTS (SELECT 1 FROM events g WHERE g.error_id = errors.id)
        ORDER BY project_id, grouping_hash FOR UPDATE`,
    )
    if (emptied.length > 0) {
      const emptiedIds = emptied.map((r) => r.id)
      await removeErrorsFromRollups(tx, projectId, emptiedIds)
      await tx.execute(sql`DELETE FROM errors WHERE id = ANY(${textArrayLiteral(emptiedIds)}::text[])`)
    }
    // Users affected: a key stays while a remaining event counts under it.
    await tx.execute(sql`
      DELETE FROM error_users eu USING event_data_deletion_work w
      WHERE w.deletion_id = ${deletionId} AND w.project_id = ${projectId} AND w.kind = 'user'
        AND w.error_id = ANY(${ids}::text[]) AND eu.error_id = w.error_id AND eu.user_key = w.value
        AND NOT ${stillCounted(sql`eu.error_id`, sql`eu.user_key`, sql`w.field`)}`)
    // Counters and the summary from what is left: first / last seen and the newest event's text
    // (the deleted event's message must not stay on show), stages and versions from the rollups.
    const valuesOf = (field: string) =>
      sql`ARRAY(SELECT p.value FROM pivot_counts p WHERE p.project_id = e.project_id AND p.error_id = e.id
        AND p.field = ${field} ORDER BY p.first_seen, p.value)`
    await tx.execute(sql`
      UPDATE errors e SET
        users_count = (SELECT count(*) FROM error_users u WHERE u.error_id = e.id),
        first_seen = (SELECT min(g.received_at) FROM events g WHERE g.error_id = e.id),
        last_seen = n.received_at, last_event_id = n.id, message = n.message, context = n.context,
        severity = n.severity, unhandled = n.unhandled,
        release_stages = ${valuesOf('app.release_stage')}, app_versions = ${valuesOf('app.version')},
        updated_at = now()
      FROM unnest(${ids}::text[]) AS t(error_id)
        CROSS JOIN LATERAL (SELECT g.id, g.received_at, g.message, g.context, g.severity, g.unhandled
          FROM events g WHERE g.error_id = t.error_id ORDER BY g.received_at DESC, g.id DESC LIMIT 1) n
      WHERE e.id = t.error_id`)
    // The errors' own pivot rows: first and last seen of each value, and the user details.
    await tx.execute(sql`
      UPDATE pivot_counts p SET first_seen = d.first_seen, last_seen = d.last_seen
      FROM (SELECT g.error_id, f.field, f.value, min(g.received_at) AS first_seen, max(g.received_at) AS last_seen
            FROM events g CROSS JOIN LATERAL ${fieldValuePairs} AS f(field, value)
            WHERE g.error_id = ANY(${ids}::text[]) AND f.value IS NOT NULL GROUP BY 1, 2, 3) d
      WHERE p.project_id = ${projectId} AND p.error_id = d.error_id AND p.field = d.field AND p.value = d.value
        AND (p.first_seen, p.last_seen) IS DISTINCT FROM (d.first_seen, d.last_seen)`)
    // user.id details: the email and name of the newest remaining event of the user that has either.
    await tx.execute(sql`
      UPDATE pivot_counts p SET details = d.details
      FROM (SELECT q.error_id, q.value, n.details FROM pivot_counts q
            LEFT JOIN (SELECT DISTINCT ON (g.error_id, g.user_id) g.error_id, g.user_id,
                         jsonb_strip_nulls(jsonb_build_object('user.email', g.user_email, 'user.name', g.user_name)) AS details
                       FROM events g
                       WHERE g.error_id = ANY(${ids}::text[]) AND g.user_id IS NOT NULL
                         AND (g.user_email IS NOT NULL OR g.user_name IS NOT NULL)
                       ORDER BY g.error_id, g.user_id, g.received_at DESC, g.id DESC) n
              ON n.error_id = q.error_id AND n.user_id = q.value
            WHERE q.project_id = ${projectId} AND q.error_id = ANY(${ids}::text[]) AND q.field = 'user.id') d
      WHERE p.project_id = ${projectId} AND p.error_id = d.error_id AND p.field = 'user.id' AND p.value = d.value
        AND p.details IS DISTINCT FROM d.details`)
    await tx.execute(sql`
      DELETE FROM event_data_deletion_work
      WHERE deletion_id = ${deletionId} AND project_id = ${projectId} AND kind IN ('error', 'user') AND error_id = ANY(${ids}::text[])`)
    return true
  })
}

/** Project-wide pivot rows of the values the deletion touched, from the errors' rows; false when none is left. */
async function finishPivots(db: Db, deletionId: string, projectId: string): Promise<boolean> {
  return writingProject(db, projectId, async (tx) => {
    const chunk = await takeWork(tx, deletionId, projectId, 'pivot', FINISH_CHUNK)
    if (chunk.length === 0) return false
    const pairs = JSON.stringify(chunk.map((w) => ({ field: w.field, value: w.value })))
    await tx.execute(sql`
      UPDATE pivot_counts p SET first_seen = d.first_seen, last_seen = d.last_seen, details = d.details
      FROM (SELECT q.field, q.value, min(q.first_seen) AS first_seen, max(q.last_seen) AS last_seen,
                   (array_agg(q.details ORDER BY q.last_seen DESC) FILTER (WHERE q.details IS NOT NULL))[1] AS details
            FROM pivot_counts q JOIN jsonb_to_recordset(${pairs}::jsonb) AS c(field text, value text)
              ON q.field = c.field AND q.value = c.value
            WHERE q.project_id = ${projectId} AND q.error_id <> ''
            GROUP BY q.field, q.value) d
      WHERE p.project_id = ${projectId} AND p.error_id = '' AND p.field = d.field AND p.value = d.value`)
    await tx.execute(sql`
      DELETE FROM event_data_deletion_work w USING jsonb_to_recordset(${pairs}::jsonb) AS c(field text, value text)
      WHERE w.deletion_id = ${deletionId} AND w.project_id = ${projectId} AND w.kind = 'pivot'
        AND w.field = c.field AND w.value = c.value`)
    return true
  })
}

/**
 * Crashed sessions named only by deleted events: gone too (the stability score then counts as if
 * those events had never arrived). A session another remaining unhandled event names stays.
 */
async function finishSessions(db: Db, deletionId: string, projectId: string): Promise<boolean> {
  return writingProject(db, projectId, async (tx) => {
    const chunk = await takeWork(tx, deletionId, projectId, 'session', FINISH_CHUNK)
    if (chunk.length === 0) return false
    const sessions = textArrayLiteral(chunk.map((w) => w.value))
    await tx.execute(sql`
      DELETE FROM crashed_sessions cs
      WHERE cs.project_id = ${projectId} AND cs.session_id = ANY(${sessions}::text[])
        AND NOT EXISTS (
          SELECT 1 FROM events g JOIN event_payloads p ON p.event_id = g.id
          WHERE g.project_id = ${projectId} AND g.unhandled
            AND g.received_at >= cs.started_minute - interval '1 day'
            AND (get_byte(p.payload, 0) = 31
              OR left(convert_from(p.payload, 'UTF8')::jsonb #>> '{session,id}', 255) = cs.session_id))`)
    await tx.execute(sql`
      DELETE FROM event_data_deletion_work
      WHERE deletion_id = ${deletionId} AND project_id = ${projectId} AND kind = 'session' AND value = ANY(${sessions}::text[])`)
    return true
  })
}

/**
 * Recomputes what a deletion's batches left to recompute in a project (see the top of this
 * file), in short transactions; `checkpoint` runs between them (to stop when asked).
 */
export async function finishDeletedEvents(
  db: Db,
  deletionId: string,
  projectId: string,
  checkpoint: () => Promise<void>,
): Promise<void> {
  for (const step of [finishErrors, finishPivots, finishSessions]) {
    while (await step(db, deletionId, projectId)) await checkpoint()
  }
}
