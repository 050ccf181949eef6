// Merging errors (docs/errors-workflow.md#merging): the merge operation moves the events, users
// and rollups of some errors into another, which keeps its status; the merged errors' rows stay,
// with their comments and history, marked merged_into_id and left out of every list, and the
// indexer sends their later events to the error they are merged into (ingest/index/merged-groups.ts).
// unmerge takes every error merged into one back out, as its events make it now.
import { and, desc, eq, inArray, or, sql } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import type { MergedError } from '../../contract/errors.ts'
import type { ProjectScope } from '../auth/scope.ts'
import { queryRows, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { writingProject } from '../db/project-lock.ts'
import { errorMerges, errors } from '../db/schema.ts'
import { textArrayLiteral } from '../db/text-array.ts'
import { ConflictError, NotFoundError } from '../failures.ts'
import { addEventsToRollups } from '../rollups/fold.ts'
import { recheckPivots, removeFromRollups } from '../rollups/rollups.ts'

type ErrorRow = typeof errors.$inferSelect

const ids = (list: readonly string[]) => sql`${textArrayLiteral(list)}::text[]`

/**
 * Locks the rows of a merge or unmerge in the order ingestion locks error rows (so the two cannot
 * deadlock on PostgreSQL): the listed errors of the project and those merged into them.
 */
function lockWithMerged(tx: Db, projectId: string, errorIds: readonly string[]): Promise<ErrorRow[]> {
  return tx
    .select()
    .from(errors)
    .where(and(eq(errors.projectId, projectId), or(inArray(errors.id, [...errorIds]), inArray(errors.mergedIntoId, [...errorIds]))))
    .orderBy(errors.projectId, errors.groupingHash)
    .for('update')
}

/**
 * The users affected of the errors, recomputed from their events: the key ingestion counts an
 * event under (user id, else email, else the device id, which only its payload holds).
 */
async function recountUsers(tx: Db, errorIds: readonly string[]): Promise<void> {
  await tx.execute(sql`DELETE FROM error_users WHERE error_id = ANY(${ids(errorIds)})`)
  await tx.execute(sql`
    INSERT INTO error_users (error_id, user_key)
    SELECT DISTINCT g.error_id, coalesce(g.user_id, g.user_email,
      nullif(convert_from(p.payload, 'UTF8')::jsonb #>> '{device,id}', ''))
    FROM events g LEFT JOIN event_payloads p ON p.event_id = g.id AND g.user_id IS NULL AND g.user_email IS NULL
    WHERE g.error_id = ANY(${ids(errorIds)})
      AND coalesce(g.user_id, g.user_email, nullif(convert_from(p.payload, 'UTF8')::jsonb #>> '{device,id}', '')) IS NOT NULL
    ORDER BY 1, 2`)
}

/**
 * Each error's counters and summary from its events and rollups (which hold them all: the caller
 * folded): events by the given change, users from error_users, first and last seen and the text
 * from the oldest and newest event (by index), release stages and versions from the pivot rows.
 * An error left with no events keeps its times and text.
 */
async function resummarize(tx: Db, eventDeltas: ReadonlyMap<string, number>): Promise<void> {
  const valuesOf = (field: string) =>
    sql`ARRAY(SELECT p.value FROM pivot_counts p WHERE p.project_id = e.project_id AND p.error_id = e.id
      AND p.field = ${field} AND p.value <> '' ORDER BY p.first_seen, p.value)`
  const deltas = JSON.stringify([...eventDeltas].map(([id, n]) => ({ id, n })))
  await tx.execute(sql`
    UPDATE errors e SET
      events_count = e.events_count + d.n,
      users_count = (SELECT count(*) FROM error_users u WHERE u.error_id = e.id),
      first_seen = coalesce(f.received_at, e.first_seen), first_release_stage = coalesce(f.release_stage, e.first_release_stage),
      first_app_version = CASE WHEN f.received_at IS NULL THEN e.first_app_version ELSE f.app_version END,
      last_seen = coalesce(n.received_at, e.last_seen), last_event_id = n.id,
      message = coalesce(n.message, e.message), context = CASE WHEN n.id IS NULL THEN e.context ELSE n.context END,
      severity = coalesce(n.severity, e.severity), unhandled = coalesce(n.unhandled, e.unhandled),
      release_stages = ${valuesOf('app.release_stage')}, app_versions = ${valuesOf('app.version')},
      updated_at = now()
    FROM jsonb_to_recordset(${deltas}::jsonb) AS d(id text, n bigint)
      LEFT JOIN LATERAL (SELECT g.id, g.received_at, g.message, g.context, g.severity, g.unhandled
        FROM events g WHERE g.error_id = d.id ORDER BY g.received_at DESC, g.id DESC LIMIT 1) n ON true
      LEFT JOIN LATERAL (SELECT g.received_at, g.release_stage, g.app_version
        FROM events g WHERE g.error_id = d.id ORDER BY g.received_at, g.id LIMIT 1) f ON true
    WHERE e.id = d.id`)
}

/** Records merges or unmerges for both errors' histories. */
async function recordMerges(tx: Db, kind: 'merge' | 'unmerge', scope: ProjectScope, into: string, merged: readonly string[]) {
  if (merged.length === 0) return
  await tx.insert(errorMerges).values(
    merged.map((id) => ({ id: newId(), projectId: scope.projectId, kind, errorId: into, mergedErrorId: id, actorId: scope.userId })),
  )
}

/**
 * Merges the errors `errorIds[1..]` of the scope's project into `errorIds[0]`, in one transaction
 * holding the project's write lock: their events (and those of errors merged into them) move to
 * it, with its rollups and users; its status stays. Returns every listed error after the merge.
 * 404 when one is not an error of the project; 409 when one is already merged into another.
 */
export function mergeErrors(db: Db, scope: ProjectScope, errorIds: readonly string[]): Promise<ErrorRow[]> {
  const [intoId, ...sourceIds] = errorIds as [string, ...string[]]
  return writingProject(db, scope.projectId, async (tx) => {
    const locked = await lockWithMerged(tx, scope.projectId, errorIds)
    const byId = new Map(locked.map((row) => [row.id, row]))
    const missing = errorIds.find((id) => !byId.has(id))
    if (missing) throw new NotFoundError('Error')
    for (const id of errorIds) {
      const into = byId.get(id)!.mergedIntoId
      if (into) throw new ConflictError(`error_ids: error ${id} is already merged into error ${into}; unmerge it from there first`)
    }
    // The errors merged into those merged now go along: everything merges into the first.
    const groups = locked.filter((row) => row.id !== intoId && (sourceIds.includes(row.id) || sourceIds.includes(row.mergedIntoId ?? '')))
    const groupIds = groups.map((row) => row.id)

    await removeFromRollups(tx, scope.projectId, sql`g.error_id = ANY(${ids(sourceIds)})`)
    const [moved] = await queryRows<{ n: number | string }>(
      tx,
      sql`WITH moved AS (
          UPDATE events SET error_id = ${intoId}, merged_from_id = coalesce(merged_from_id, error_id)
          WHERE project_id = ${scope.projectId} AND error_id = ANY(${ids(sourceIds)}) RETURNING 1)
        SELECT count(*) AS n FROM moved`,
    )
    await addEventsToRollups(tx, scope.projectId, sql`g.error_id = ${intoId} AND g.merged_from_id = ANY(${ids(groupIds)})`)
    await tx.execute(sql`
      INSERT INTO error_users (error_id, user_key)
      SELECT ${intoId}, user_key FROM error_users WHERE error_id = ANY(${ids(sourceIds)}) ORDER BY 2
      ON CONFLICT DO NOTHING`)
    await tx.update(errors).set({ mergedIntoId: intoId, updatedAt: sql`now()` }).where(inArray(errors.id, groupIds))
    await resummarize(tx, new Map([[intoId, Number(moved!.n)]]))
    await recordMerges(tx, 'merge', scope, intoId, groupIds)
    const rows = await tx.select().from(errors).where(inArray(errors.id, [...errorIds]))
    const after = new Map(rows.map((row) => [row.id, row]))
    return errorIds.map((id) => after.get(id)!)
  })
}

/**
 * Takes every error merged into `errorId` back out, in one transaction holding the project's
 * write lock: each gets back the events of its own grouping (those it had, and those that came
 * since), and every counter, user and rollup of both sides follows. 404 when it is not an error
 * of the project; 409 when it is itself merged into another, or nothing is merged into it.
 */
export function unmergeError(db: Db, scope: ProjectScope, errorId: string): Promise<ErrorRow> {
  return writingProject(db, scope.projectId, async (tx) => {
    const locked = await lockWithMerged(tx, scope.projectId, [errorId])
    const target = locked.find((row) => row.id === errorId)
    if (!target) throw new NotFoundError('Error')
    if (target.mergedIntoId) throw new ConflictError(`operation: this error is merged into error ${target.mergedIntoId}; unmerge that one`)
    const groupIds = locked.filter((row) => row.mergedIntoId === errorId).map((row) => row.id)
    if (groupIds.length === 0) throw new ConflictError('operation: no error is merged into this one, so there is nothing to unmerge')

    const merged = sql`g.error_id = ${errorId} AND g.merged_from_id IS NOT NULL`
    const recheck = await removeFromRollups(tx, scope.projectId, merged)
    const moved = await queryRows<{ error_id: string; n: number | string }>(
      tx,
      sql`WITH moved AS (
          UPDATE events SET error_id = merged_from_id, merged_from_id = NULL
          WHERE error_id = ${errorId} AND merged_from_id IS NOT NULL RETURNING error_id)
        SELECT error_id, count(*) AS n FROM moved GROUP BY 1`,
    )
    await addEventsToRollups(tx, scope.projectId, sql`g.error_id = ANY(${ids(groupIds)})`)
    await recheckPivots(tx, scope.projectId, recheck)
    await tx.update(errors).set({ mergedIntoId: null, updatedAt: sql`now()` }).where(inArray(errors.id, groupIds))
    await recountUsers(tx, [errorId, ...groupIds])
    const deltas = new Map<string, number>([[errorId, 0]])
    for (const row of moved) {
      deltas.set(errorId, deltas.get(errorId)! - Number(row.n))
      deltas.set(row.error_id, Number(row.n))
    }
    // Each merged error's own count is its events now: what it had before the merge is not kept.
    await tx.execute(sql`UPDATE errors SET events_count = 0 WHERE id = ANY(${ids(groupIds)})`)
    for (const id of groupIds) if (!deltas.has(id)) deltas.set(id, 0)
    await resummarize(tx, deltas)
    await recordMerges(tx, 'unmerge', scope, errorId, groupIds)
    const [row] = await tx.select().from(errors).where(eq(errors.id, errorId))
    return row!
  })
}

/** The errors merged into `errorId`, newest merge first, with their events counted where they are now. */
export async function listMergedErrors(db: Db, errorId: string): Promise<MergedError[]> {
  const rows = await queryRows<{ id: string; error_class: string; message: string; events: number | string; merged_at: Date | string }>(
    db,
    sql`SELECT e.id, e.error_class, e.message,
        (SELECT count(*) FROM events g WHERE g.error_id = ${errorId} AND g.merged_from_id = e.id) AS events,
        (SELECT max(m.created_at) FROM error_merges m WHERE m.merged_error_id = e.id AND m.error_id = ${errorId} AND m.kind = 'merge') AS merged_at
      FROM errors e WHERE e.merged_into_id = ${errorId}
      ORDER BY merged_at DESC, e.id`,
  )
  return rows.map((row) => ({
    id: row.id,
    error_class: row.error_class,
    message: row.message,
    events: Number(row.events),
    merged_at: new Date(row.merged_at).toISOString(),
  }))
}

/** The merges and unmerges of an error, as history rows (docs/errors-workflow.md#history). */
export async function mergeHistory(db: Db, errorId: string, limit: number) {
  const into = alias(errors, 'into_error')
  const merged = alias(errors, 'merged_error')
  return db
    .select({
      id: errorMerges.id,
      kind: errorMerges.kind,
      actorId: errorMerges.actorId,
      createdAt: errorMerges.createdAt,
      into: { id: into.id, errorClass: into.errorClass, message: into.message },
      merged: { id: merged.id, errorClass: merged.errorClass, message: merged.message },
    })
    .from(errorMerges)
    .innerJoin(into, eq(into.id, errorMerges.errorId))
    .innerJoin(merged, eq(merged.id, errorMerges.mergedErrorId))
    .where(or(eq(errorMerges.errorId, errorId), eq(errorMerges.mergedErrorId, errorId)))
    .orderBy(desc(errorMerges.createdAt), desc(errorMerges.id))
    .limit(limit)
}

