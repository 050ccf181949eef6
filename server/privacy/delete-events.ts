// Deleting selected events for good, in batches, and then bringing everything they counted in
// up to date: rollups, error counters, users affected, pivots, crashed sessions, empty errors,
// code snippets no remaining event uses.
//
// Each batch is one short transaction holding the project's write lock (ingestion and triage
// of that project wait for it, nothing else does): the batch's rollup counts go down exactly
// (removeEventsFromRollups, one statement), its errors' event counters too, the events and their
// payloads go, and what cannot be corrected by subtraction (first / last seen, the first release, users, the pivot
// rows a deleted event can have shaped) is written down in event_data_deletion_work (one more). finishDeletedEvents then recomputes exactly those,
// once, from what is left. Every step reads the database as it is, so a step cut off by a crash
// is simply run again.
import { sql, type SQL } from 'drizzle-orm'
import { queryRows, type Db } from '../db/client.ts'
import { writingProject } from '../db/project-lock.ts'
import { textArrayLiteral } from '../db/text-array.ts'
import { decodeEventPayload } from '../events/event-payload.ts'
import { removeUnusedCodeSnippets } from '../events/stored-frames.ts'
import { eventInRow } from '../rollups/fold.ts'
import { removeErrorsFromRollups, removeEventsFromRollups } from '../rollups/rollups.ts'
import type { Filters } from '../../contract/filters.ts'
import { nextBatchSize } from './batch-size.ts'
import { afterKey, compileSelection, selectedEventsWhere, type DeletionProgress, type EventKey } from './selection.ts'

interface BatchRow {
  id: string
  error_id: string
  received_at: string
  user_id: string | null
  user_email: string | null
  unhandled: boolean
  /** Only for events whose user key or crashed session is in their payload (see below). */
  payload: Uint8Array | null
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

export interface BatchResult {
  deleted: number
  /** Where the next batch starts; null when this one found nothing. */
  last: EventKey | null
}

/**
 * Deletes up to `limit` of a project's selected events after `after` (oldest first), in one
 * transaction holding the project's write lock, and records what finishDeletedEvents must
 * recompute and where pass `pass` now stands. `where` selects the events (selection.ts).
 */
async function deleteEventBatch(
  db: Db,
  deletionId: string,
  projectId: string,
  where: SQL,
  after: EventKey | null,
  limit: number,
  pass: 1 | 2,
): Promise<BatchResult> {
  return writingProject(db, projectId, async (tx) => {
    // Read under the lock: events another deletion (or DELETE /events) took meanwhile are gone.
    const rows = await queryRows<BatchRow>(
      tx,
      sql`SELECT events.id, events.error_id, events.received_at::text AS received_at, events.user_id, events.user_email,
          events.unhandled,
          CASE WHEN (events.user_id IS NULL AND events.user_email IS NULL) OR events.unhandled THEN event_payloads.payload END AS payload
        FROM events LEFT JOIN event_payloads ON event_payloads.event_id = events.id
        WHERE ${where} ${after ? sql`AND ${afterKey(after)}` : sql``}
        ORDER BY events.received_at, events.id LIMIT ${limit}`,
    )
    if (rows.length === 0) return { deleted: 0, last: null }
    const ids = rows.map((r) => r.id)
    const last = rows[rows.length - 1]!
    const progress: DeletionProgress = { pass, projectId, after: { at: last.received_at, id: last.id } }

    const work = new Map<string, WorkRow>()
    const note = (row: WorkRow) => work.set(`${row.kind}\u0000${row.error_id}\u0000${row.field}\u0000${row.value}`, row)
    for (const row of rows) {
      note({ kind: 'error', error_id: row.error_id, field: '', value: '' })
      const traces = tracesOf(row)
      if (traces.userKey) note({ kind: 'user', error_id: row.error_id, ...traces.userKey })
      if (traces.session) note({ kind: 'session', error_id: '', field: '', value: traces.session })
    }
    // Pivot rows, the errors' and the project's, only where a deleted event may have set their
    // first / last seen or details; the rest are exact once the counts go down.
    for (const pivot of await removeEventsFromRollups(tx, projectId, ids)) note({ kind: 'pivot', ...pivot })

    // The errors' counters, the events (their payloads go with them: foreign key), the work list
    // and the progress (the count and the position), in one statement.
    await tx.execute(sql`
      WITH gone AS (
        DELETE FROM events WHERE project_id = ${projectId} AND id = ANY(${textArrayLiteral(ids)}::text[]) RETURNING error_id
      ), counters AS (
        UPDATE errors e SET events_count = greatest(e.events_count - d.n, 0), updated_at = now()
        FROM (SELECT error_id, count(*) AS n FROM gone GROUP BY 1) d WHERE e.id = d.error_id
        RETURNING 1
      ), noted AS (
        INSERT INTO event_data_deletion_work (deletion_id, project_id, kind, error_id, field, value)
        SELECT ${deletionId}, ${projectId}, kind, error_id, field, value
        FROM jsonb_to_recordset(${JSON.stringify([...work.values()])}::jsonb) AS w(kind text, error_id text, field text, value text)
        ON CONFLICT DO NOTHING
        RETURNING 1
      )
      UPDATE event_data_deletions SET deleted_events = deleted_events + (SELECT count(*) FROM gone),
        progress = ${JSON.stringify(progress)}::jsonb
      WHERE id = ${deletionId}`)
    return { deleted: rows.length, last: progress.after! }
  })
}

/**
 * At most this many errors, pivot values or sessions per finishing transaction; fewer when they
 * take longer than BATCH_TARGET_MS (a transaction holds the embedded database's only connection,
 * so it must stay short, and a value such as a common release stage spans every error).
 */
const FINISH_CHUNK = 200
const FIRST_FINISH_CHUNK = 10
/**
 * Errors per finishing transaction are taken until their events add up to this much per error
 * of the chunk: the users affected are checked with one pass over those events.
 */
const FINISH_EVENTS_PER_ERROR = 25

/**
 * A remaining event of error `errorId` still counts under the device id `key` (events without
 * a user id or email count under their device id, which only payloads hold).
 */
const deviceStillCounted = (errorId: SQL, key: SQL) => sql`EXISTS (
  SELECT 1 FROM events g LEFT JOIN event_payloads p ON p.event_id = g.id
  WHERE g.error_id = ${errorId} AND g.user_id IS NULL AND g.user_email IS NULL AND (
    p.payload IS NULL OR convert_from(p.payload, 'UTF8')::jsonb #>> '{device,id}' = ${key}))`

/** Takes up to `limit` of a deletion's work rows of one kind for a project. */
const takeWork = (tx: Db, deletionId: string, projectId: string, kind: WorkRow['kind'], limit: number, where: SQL = sql``) =>
  queryRows<WorkRow>(
    tx,
    sql`SELECT kind, error_id, field, value FROM event_data_deletion_work
      WHERE deletion_id = ${deletionId} AND project_id = ${projectId} AND kind = ${kind} ${where}
      ORDER BY error_id, field, value LIMIT ${limit}`,
  )

/**
 * One finishing step: recomputes up to `limit` items of its kind; how many it did (0: none left).
 * `keepDecided`: errors left with no events are kept when a person decided something about them
 * (retention); otherwise every such error is removed (privacy deletions).
 */
type FinishStep = (db: Db, deletionId: string, projectId: string, limit: number, keepDecided: boolean) => Promise<number>

/**
 * A decision people made about an error (over `errors`): a status other than open, discarded, an
 * assignee, a severity of their own, a linked issue, comments, or a merge either way. Retention
 * keeps such an error when its events expire, so that a recurrence finds it (its grouping hash).
 */
const decidedError = sql`(errors.status <> 'open' OR errors.discarded_at IS NOT NULL OR errors.assigned_collaborator_id IS NOT NULL
  OR errors.severity_override IS NOT NULL OR errors.linked_issue_url IS NOT NULL OR errors.merged_into_id IS NOT NULL
  OR EXISTS (SELECT 1 FROM comments c WHERE c.error_id = errors.id)
  OR EXISTS (SELECT 1 FROM errors m WHERE m.merged_into_id = errors.id))`

/** Recomputes the errors a deletion touched, a few at a time. */
const finishErrors: FinishStep = (db, deletionId, projectId, limit, keepDecided) =>
  writingProject(db, projectId, async (tx) => {
    // Errors in id order while their events add up to the budget (the first one whatever its
    // size), and whether any event is left to each.
    const chunk = await queryRows<{ error_id: string; emptied: boolean }>(
      tx,
      sql`SELECT c.error_id, NOT EXISTS (SELECT 1 FROM events g WHERE g.error_id = c.error_id) AS emptied
        FROM (SELECT w.error_id, row_number() OVER (ORDER BY w.error_id) AS n,
                     sum(coalesce(e.events_count, 0)) OVER (ORDER BY w.error_id) AS events
              FROM (SELECT error_id FROM event_data_deletion_work
                    WHERE deletion_id = ${deletionId} AND project_id = ${projectId} AND kind = 'error'
                    ORDER BY error_id LIMIT ${limit}) w
              LEFT JOIN errors e ON e.id = w.error_id) c
        WHERE c.n = 1 OR c.events <= ${FINISH_EVENTS_PER_ERROR * limit}
        ORDER BY c.error_id`,
    )
    if (chunk.length === 0) return 0
    const ids = textArrayLiteral(chunk.map((c) => c.error_id))
    // Errors left with no events are removed (their status history and users go with them),
    // unless kept for a decision: those keep their text and times, and count no users.
    const emptiedIds = chunk.filter((c) => c.emptied).map((c) => c.error_id)
    if (emptiedIds.length > 0) {
      const emptied = await queryRows<{ id: string; kept: boolean }>(
        tx,
        sql`SELECT id, ${keepDecided ? decidedError : sql`false`} AS kept FROM errors WHERE id = ANY(${textArrayLiteral(emptiedIds)}::text[])
          AND NOT EXISTS (SELECT 1 FROM events g WHERE g.error_id = errors.id)
          ORDER BY project_id, grouping_hash FOR UPDATE`,
      )
      const gone = emptied.filter((r) => !r.kept).map((r) => r.id)
      if (gone.length > 0) {
        await removeErrorsFromRollups(tx, projectId, gone)
        await tx.execute(sql`DELETE FROM errors WHERE id = ANY(${textArrayLiteral(gone)}::text[])`)
      }
      const keptIds = emptied.filter((r) => r.kept).map((r) => r.id)
      if (keptIds.length > 0) {
        const kept = textArrayLiteral(keptIds)
        await tx.execute(sql`
          WITH users AS (DELETE FROM error_users WHERE error_id = ANY(${kept}::text[]) RETURNING 1)
          UPDATE errors SET users_count = 0, last_event_id = NULL, release_stages = '{}', app_versions = '{}', updated_at = now()
          WHERE id = ANY(${kept}::text[])`)
      }
    }
    // Then, in one statement (its parts see the database as it was before it): users affected,
    // the counters and summary, and the work done.
    // Users affected: a key stays while a remaining event counts under it (user id, else email,
    // else device id, as ingestion counts them). The keys to remove are the work list's keys
    // less those of these errors' remaining events (EXCEPT: one pass over the events, hashed),
    // and only then error_users is joined, by primary key. (A NOT IN on error_users itself put the
    // subquery's cost on each of its index lookups in the planner's sums, so it read all of
    // error_users instead: 0.33 s a chunk at 200,000 events, growing with the project.)
    const keys = (field: string) => sql`SELECT w.error_id, w.value FROM event_data_deletion_work w
      WHERE w.deletion_id = ${deletionId} AND w.project_id = ${projectId} AND w.kind = 'user' AND w.field = ${field}
        AND w.error_id = ANY(${ids}::text[])`
    // Counters and the summary from what is left, read by index: first seen and the first
    // release from the oldest event, last seen and the text from the newest (a deleted event's
    // message or app version must not stay on show); stages and versions from the rollups.
    const valuesOf = (field: string) =>
      sql`ARRAY(SELECT p.value FROM pivot_counts p WHERE p.project_id = e.project_id AND p.error_id = e.id
        AND p.field = ${field} AND p.value <> '' ORDER BY p.first_seen, p.value)`
    await tx.execute(sql`
      WITH by_id AS (
        DELETE FROM error_users eu USING (${keys('user.id')}
            EXCEPT SELECT g.error_id, g.user_id FROM events g
            WHERE g.error_id = ANY(${ids}::text[]) AND g.user_id IS NOT NULL) k
        WHERE eu.error_id = k.error_id AND eu.user_key = k.value
        RETURNING eu.error_id, eu.user_key
      ), by_email AS (
        DELETE FROM error_users eu USING (${keys('user.email')}
            EXCEPT SELECT g.error_id, g.user_email FROM events g
            WHERE g.error_id = ANY(${ids}::text[]) AND g.user_id IS NULL AND g.user_email IS NOT NULL) k
        WHERE eu.error_id = k.error_id AND eu.user_key = k.value
        RETURNING eu.error_id, eu.user_key
      ), by_device AS (
        DELETE FROM error_users eu USING (${keys('device.id')}) k
        WHERE eu.error_id = k.error_id AND eu.user_key = k.value
          AND NOT ${deviceStillCounted(sql`eu.error_id`, sql`eu.user_key`)}
        RETURNING eu.error_id, eu.user_key
      ), users_gone AS (
        -- A key two of them took (a user id that was also another event's email) counts once.
        SELECT error_id, count(*) AS n FROM (SELECT * FROM by_id UNION SELECT * FROM by_email UNION SELECT * FROM by_device) u
        GROUP BY error_id
      ), summary AS (
        UPDATE errors e SET
          users_count = (SELECT count(*) FROM error_users u WHERE u.error_id = e.id)
            - coalesce((SELECT n FROM users_gone WHERE users_gone.error_id = e.id), 0),
          first_seen = f.received_at, first_release_stage = f.release_stage, first_app_version = f.app_version,
          last_seen = n.received_at, last_event_id = n.id, message = n.message, context = n.context,
          severity = n.severity, unhandled = n.unhandled,
          release_stages = ${valuesOf('app.release_stage')}, app_versions = ${valuesOf('app.version')},
          updated_at = now()
        FROM unnest(${ids}::text[]) AS t(error_id)
          CROSS JOIN LATERAL (SELECT g.id, g.received_at, g.message, g.context, g.severity, g.unhandled
            FROM events g WHERE g.error_id = t.error_id ORDER BY g.received_at DESC, g.id DESC LIMIT 1) n
          CROSS JOIN LATERAL (SELECT g.received_at, g.release_stage, g.app_version
            FROM events g WHERE g.error_id = t.error_id ORDER BY g.received_at, g.id LIMIT 1) f
        WHERE e.id = t.error_id
        RETURNING 1
      )
      DELETE FROM event_data_deletion_work
      WHERE deletion_id = ${deletionId} AND project_id = ${projectId} AND kind IN ('error', 'user') AND error_id = ANY(${ids}::text[])`)
    return chunk.length
  })

/**
 * The errors' pivot rows a deleted event can have shaped (removeEventsFromRollups), in one
 * statement whatever their fields: a row keeps its first or last seen while an event with that
 * value is still at that time (looked up by index), and is recomputed from the error's events
 * otherwise; a user's details from their newest remaining event. 0 when none is left.
 */
const finishPivots: FinishStep = (db, deletionId, projectId, limit) =>
  writingProject(db, projectId, async (tx) => {
    const withValue = sql`g.error_id = p.error_id AND ${eventInRow}`
    const at = (time: SQL) => sql`EXISTS (SELECT 1 FROM events g WHERE ${withValue} AND g.received_at = ${time})`
    // The email and name of the user's newest remaining event that has either.
    const newestDetails = sql`(SELECT jsonb_strip_nulls(jsonb_build_object('user.email', g.user_email, 'user.name', g.user_name))
      FROM events g WHERE g.error_id = p.error_id AND g.user_id = p.value AND (g.user_email IS NOT NULL OR g.user_name IS NOT NULL)
      ORDER BY g.received_at DESC, g.id DESC LIMIT 1)`
    // The chunk taken off the work list and its rows recomputed, every field at once.
    const [done] = await queryRows<{ n: number | string }>(
      tx,
      sql`
      WITH chunk AS (
        -- By row address: the work list is never analyzed (rows come and go within minutes), and
        -- joined to a chunk of itself it was scanned whole for every row of the chunk (23 s for
        -- 10 of 10,000 rows on PGlite).
        DELETE FROM event_data_deletion_work w
        WHERE w.ctid = ANY (ARRAY(
          SELECT ctid FROM event_data_deletion_work
          WHERE deletion_id = ${deletionId} AND project_id = ${projectId} AND kind = 'pivot' AND error_id <> ''
          ORDER BY error_id, field, value LIMIT ${limit}))
        RETURNING w.error_id, w.field, w.value
      ), recomputed AS (
        UPDATE pivot_counts p SET
          first_seen = CASE WHEN ${at(sql`p.first_seen`)} THEN p.first_seen
            ELSE (SELECT min(g.received_at) FROM events g WHERE ${withValue}) END,
          last_seen = CASE WHEN ${at(sql`p.last_seen`)} THEN p.last_seen
            ELSE (SELECT max(g.received_at) FROM events g WHERE ${withValue}) END,
          details = CASE WHEN p.field = 'user.id' THEN ${newestDetails} ELSE p.details END
        FROM chunk c
        -- Joined by primary key (an IN over a row constructor would scan the table).
        WHERE p.project_id = ${projectId} AND p.error_id = c.error_id AND p.field = c.field AND p.value = c.value
        RETURNING 1
      )
      SELECT count(*) AS n FROM chunk`,
    )
    return Number(done!.n)
  })

/**
 * The project-wide pivot rows a deleted event can have shaped, from the errors' rows (one
 * aggregate per value; after finishPivots, which brings those up to date); 0 when none is left.
 */
const finishProjectPivots: FinishStep = (db, deletionId, projectId, limit) =>
  writingProject(db, projectId, async (tx) => {
    const chunk = await takeWork(tx, deletionId, projectId, 'pivot', limit, sql`AND error_id = ''`)
    if (chunk.length === 0) return 0
    const pairs = JSON.stringify(chunk.map((w) => ({ field: w.field, value: w.value })))
    await tx.execute(sql`
      UPDATE pivot_counts p SET first_seen = d.first_seen, last_seen = d.last_seen, details = d.details
      FROM (SELECT q.field, q.value, min(q.first_seen) AS first_seen, max(q.last_seen) AS last_seen,
                   (array_agg(q.details ORDER BY q.last_seen DESC) FILTER (WHERE q.details IS NOT NULL))[1] AS details
            FROM pivot_counts q JOIN jsonb_to_recordset(${pairs}::jsonb) AS c(field text, value text)
              ON q.field = c.field AND q.value = c.value
            WHERE q.project_id = ${projectId} AND q.error_id <> ''
            GROUP BY q.field, q.value) d
      WHERE p.project_id = ${projectId} AND p.error_id = '' AND p.field = d.field AND p.value = d.value
        AND (p.first_seen, p.last_seen, p.details) IS DISTINCT FROM (d.first_seen, d.last_seen, d.details)`)
    await tx.execute(sql`
      DELETE FROM event_data_deletion_work w USING jsonb_to_recordset(${pairs}::jsonb) AS c(field text, value text)
      WHERE w.deletion_id = ${deletionId} AND w.project_id = ${projectId} AND w.kind = 'pivot'
        AND w.error_id = '' AND w.field = c.field AND w.value = c.value`)
    return chunk.length
  })

/**
 * Crashed sessions named only by deleted events: gone too (the stability score then counts as if
 * those events had never arrived). A session another remaining unhandled event names stays.
 */
const finishSessions: FinishStep = (db, deletionId, projectId, limit) =>
  writingProject(db, projectId, async (tx) => {
    const chunk = await takeWork(tx, deletionId, projectId, 'session', limit)
    if (chunk.length === 0) return 0
    const sessions = textArrayLiteral(chunk.map((w) => w.value))
    await tx.execute(sql`
      DELETE FROM crashed_sessions cs
      WHERE cs.project_id = ${projectId} AND cs.session_id = ANY(${sessions}::text[])
        AND NOT EXISTS (
          SELECT 1 FROM events g JOIN event_payloads p ON p.event_id = g.id
          WHERE g.project_id = ${projectId} AND g.unhandled
            AND g.received_at >= cs.started_minute - interval '1 day'
            AND left(convert_from(p.payload, 'UTF8')::jsonb #>> '{session,id}', 255) = cs.session_id)`)
    await tx.execute(sql`
      DELETE FROM event_data_deletion_work
      WHERE deletion_id = ${deletionId} AND project_id = ${projectId} AND kind = 'session' AND value = ANY(${sessions}::text[])`)
    return chunk.length
  })

/**
 * The project's code snippets no remaining event uses (stored-frames.ts, removeUnusedCodeSnippets),
 * last: every deletion of the project's events ends with it, whatever its work list holds.
 */
const finishSnippets: FinishStep = (db, _deletionId, projectId, limit) =>
  writingProject(db, projectId, (tx) => removeUnusedCodeSnippets(tx, projectId, limit * SNIPPETS_PER_ITEM))

/** Snippets removed per item of a finishing chunk: a row is one index entry and a small value. */
const SNIPPETS_PER_ITEM = 10

const FINISH_STEPS = { errors: finishErrors, pivots: finishPivots, projectPivots: finishProjectPivots, sessions: finishSessions, snippets: finishSnippets }
type FinishKind = keyof typeof FINISH_STEPS

/**
 * One step of a deletion as plain data, so that it can run where the database is: on PGlite,
 * on the engine's thread (deletion-thread.ts), where its transaction does not wait for the main
 * thread between statements and so holds the only connection no longer than its own work.
 */
export type DeletionStep =
  | {
      kind: 'batch'
      deletionId: string
      projectId: string
      /** The request's filters, its creator (error.assigned_to=me) and creation time (relative times), as stored. */
      selection: { filters: Filters; userId: string; now: string }
      /** Only events received before this (ISO 8601). */
      before: string
      after: EventKey | null
      limit: number
      pass: 1 | 2
    }
  | { kind: FinishKind; deletionId: string; projectId: string; limit: number; keepDecided?: boolean }

type DeletionStepResult<S extends DeletionStep> = S extends { kind: 'batch' } ? BatchResult : number

/** Runs a step (deleteEventBatch or one finishing step) on `db`. */
export function runDeletionStep<S extends DeletionStep>(db: Db, step: S): Promise<DeletionStepResult<S>>
export function runDeletionStep(db: Db, step: DeletionStep): Promise<BatchResult | number> {
  if (step.kind !== 'batch') return FINISH_STEPS[step.kind](db, step.deletionId, step.projectId, step.limit, step.keepDecided ?? false)
  const { filters, userId, now } = step.selection
  const compiled = compileSelection({ filters, userId, now: new Date(now) })
  const where = selectedEventsWhere(step.projectId, compiled, new Date(step.before))
  return deleteEventBatch(db, step.deletionId, step.projectId, where, step.after, step.limit, step.pass)
}

/** Where a deletion's steps run: runDeletionStep on the main thread's connections, or on PGlite's thread. */
export type DeletionStepRunner = <S extends DeletionStep>(step: S) => Promise<DeletionStepResult<S>>

/**
 * Recomputes what a deletion's batches left to recompute in a project (see the top of this
 * file), in short transactions; `checkpoint` runs between them (to stop when asked, and to let
 * other work in).
 */
export async function finishDeletedEvents(
  run: DeletionStepRunner,
  deletionId: string,
  projectId: string,
  targetMs: number,
  checkpoint: (lastStepMs: number) => Promise<void>,
  { keepDecided = false }: { keepDecided?: boolean } = {},
): Promise<void> {
  for (const kind of Object.keys(FINISH_STEPS) as FinishKind[]) {
    // Small first, then sized by time (200 errors at once held PGlite for seconds).
    let limit = FIRST_FINISH_CHUNK
    for (;;) {
      const started = performance.now()
      const done = await run({ kind, deletionId, projectId, limit, keepDecided })
      if (done === 0) break
      const tookMs = performance.now() - started
      limit = nextBatchSize(limit, done, tookMs, FINISH_CHUNK, 1, targetMs)
      await checkpoint(tookMs)
    }
  }
}
