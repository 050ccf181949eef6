// The error status workflow: PATCH operations on one error or many, and their history.
// docs/errors-workflow.md describes the status machine and the snooze bookkeeping.
import { and, desc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm'
import { changesStatus, isStatusOperation, statusAfter, type StatusOperation } from '../../contract/error-status.ts'
import {
  MAX_STATUS_CHANGES,
  type BulkErrorResult,
  type ErrorGroup,
  type ErrorOperation,
  type ErrorStatus,
  type ErrorStatusChange,
  type ReopenRules,
  type StoredReopenRules,
} from '../../contract/errors.ts'
import { collaboratorSeesProject } from '../auth/access.ts'
import type { ProjectScope } from '../auth/scope.ts'
import type { Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { collaborators, errors, errorStatusChanges, projects, users } from '../db/schema.ts'
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../failures.ts'
import type { UrlBuilder } from '../http/urls.ts'
import { moveErrorsBetweenStatuses, removeErrorsFromRollups } from '../rollups/rollups.ts'
import { listMergedErrors, mergeErrors, mergeHistory, unmergeError } from './error-merges.service.ts'
import { toErrorGroup } from './errors.service.ts'
import { writingProject } from '../db/project-lock.ts'
import { queueAlerts } from '../notifications/alerts.jobs.ts'
import { queueStatusChangeTriggers } from '../webhooks/triggers/collaborator-triggers.ts'
import { snoozeRuleOf } from '../webhooks/triggers/ingest-triggers.ts'

type ErrorRow = typeof errors.$inferSelect
/** The database clock as an ISO 8601 string, so every process stamps rules with one clock. */
const isoNow = sql`to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/**
 * The reopen_rules a snooze stores (contract storedReopenRulesSchema): the rule as given plus the
 * bookkeeping the ingest writer reads to decide when it is met. Evaluated per row inside the UPDATE, so events_at_snooze is
 * each error's own counter at the moment its row is locked.
 */
function snoozeRules(rules: ReopenRules): SQL {
  switch (rules.reopen_if) {
    case 'n_additional_occurrences':
      return sql`jsonb_build_object(
        'reopen_if', ${rules.reopen_if}::text,
        'additional_occurrences', ${rules.additional_occurrences}::bigint,
        'snoozed_at', ${isoNow},
        'events_at_snooze', ${errors.eventsCount})`
    case 'n_additional_users':
      return sql`jsonb_build_object(
        'reopen_if', ${rules.reopen_if}::text,
        'additional_users', ${rules.additional_users}::bigint,
        'snoozed_at', ${isoNow},
        'users_at_snooze', ${errors.usersCount})`
    case 'n_occurrences_in_m_hours':
      return sql`jsonb_build_object(
        'reopen_if', ${rules.reopen_if}::text,
        'occurrences', ${rules.occurrences}::bigint,
        'hours', ${rules.hours}::int,
        'snoozed_at', ${isoNow})`
    case 'occurs_after':
      return sql`jsonb_build_object(
        'reopen_if', ${rules.reopen_if}::text,
        'seconds', ${rules.seconds}::bigint,
        'snoozed_at', ${isoNow},
        'reopen_after', to_char((now() + make_interval(secs => ${rules.seconds}::double precision))
          AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`
  }
}

const inProject = (projectId: string, errorIds: readonly string[]) =>
  and(eq(errors.projectId, projectId), inArray(errors.id, [...errorIds]))

/**
 * Changes the status of the listed errors of a project in one UPDATE … RETURNING, reading
 * each row's old status under FOR UPDATE, and records every real change in one multi-row
 * INSERT. Re-snoozing a snoozed error replaces its rule and is recorded too (the rule and its
 * bookkeeping changed); any other no-op (fix on fixed) records nothing.
 */
async function changeStatus(
  tx: Db,
  actorId: string,
  projectId: string,
  errorIds: readonly string[],
  operation: StatusOperation,
): Promise<ErrorRow[]> {
  const to = statusAfter(operation.operation)
  const old = tx
    .select({
      id: errors.id,
      fromStatus: sql<string>`${errors.status}`.as('from_status'),
      fromReopenRules: sql<unknown>`${errors.reopenRules}`.as('from_reopen_rules'),
    })
    .from(errors)
    .where(inProject(projectId, errorIds))
    // The order ingestion locks error rows in, so the two cannot deadlock on PostgreSQL.
    .orderBy(errors.projectId, errors.groupingHash)
    .for('update')
    .as('old')
  const rows = await tx
    .update(errors)
    .set({
      status: to,
      reopenRules: operation.operation === 'snooze' ? snoozeRules(operation.reopen_rules) : null,
      updatedAt: sql`now()`,
    })
    .from(old)
    .where(eq(errors.id, old.id))
    .returning({ ...getTableColumns(errors), fromStatus: old.fromStatus, fromReopenRules: old.fromReopenRules })

  // The project trend's rollup is kept by status: the errors' counts follow them.
  await moveErrorsBetweenStatuses(
    tx,
    projectId,
    rows.map((row) => ({ errorId: row.id, from: row.fromStatus, to })),
  )
  const changed = rows.filter((row) => changesStatus(row.fromStatus as ErrorStatus, operation.operation))
  if (changed.length > 0) {
    await tx.insert(errorStatusChanges).values(
      changed.map((row) => ({
        id: newId(),
        errorId: row.id,
        actorId,
        fromStatus: row.fromStatus,
        toStatus: to,
        reason: 'operation',
        reopenRules: row.reopenRules,
        fromReopenRules: row.fromReopenRules,
      })),
    )
    // errorStateManualChange webhooks, queued with the change.
    await queueStatusChangeTriggers(
      tx,
      projectId,
      actorId,
      changed.map((row) => ({ errorId: row.id, from: row.fromStatus, to })),
      operation.operation === 'snooze' ? snoozeRuleOf(operation.reopen_rules as Record<string, unknown>) : undefined,
    )
  }
  return rows.map(({ fromStatus: _, fromReopenRules: __, ...row }) => row)
}

/**
 * revert_status: each error's newest status change, taken back when the caller made it with an
 * operation and the error still has the status it set. The status and reopen_rules go back to
 * what the change recorded as before (a snooze keeps its original snoozed_at and counters), and
 * the revert is itself recorded, so the history stays complete. Errors whose newest change
 * cannot be reverted are refused, each with why.
 */
async function revertStatus(
  tx: Db,
  actorId: string,
  projectId: string,
  errorIds: readonly string[],
): Promise<{ rows: ErrorRow[]; refused: Map<string, string> }> {
  const current = await tx
    .select({ id: errors.id, status: errors.status, reopenRules: errors.reopenRules })
    .from(errors)
    .where(inProject(projectId, errorIds))
    // The order ingestion locks error rows in, so the two cannot deadlock on PostgreSQL.
    .orderBy(errors.projectId, errors.groupingHash)
    .for('update')
  if (current.length === 0) return { rows: [], refused: new Map() }
  const newest = await tx
    .selectDistinctOn([errorStatusChanges.errorId])
    .from(errorStatusChanges)
    .where(inArray(errorStatusChanges.errorId, current.map((row) => row.id)))
    .orderBy(errorStatusChanges.errorId, desc(errorStatusChanges.createdAt), desc(errorStatusChanges.id))
  const changeOf = new Map(newest.map((change) => [change.errorId, change]))
  const refused = new Map<string, string>()
  const reverts: { id: string; from: string; to: string; rules: unknown; rulesBefore: unknown }[] = []
  for (const row of current) {
    const change = changeOf.get(row.id)
    if (!change) refused.set(row.id, 'the error has no status change to revert')
    else if (change.reason !== 'operation' || change.actorId !== actorId) {
      refused.set(row.id, 'its newest status change was not made by you, so it is not reverted')
    } else if (change.toStatus !== row.status) refused.set(row.id, `its status changed since (it is ${row.status} now)`)
    else {
      const rules = change.fromStatus === 'snoozed' ? change.fromReopenRules : null
      reverts.push({ id: row.id, from: row.status, to: change.fromStatus, rules, rulesBefore: row.reopenRules })
    }
  }
  const rows: ErrorRow[] = []
  for (const revert of reverts) {
    const [row] = await tx
      .update(errors)
      .set({ status: revert.to, reopenRules: revert.rules, updatedAt: sql`now()` })
      .where(eq(errors.id, revert.id))
      .returning()
    if (row) rows.push(row)
  }
  if (reverts.length > 0) {
    await moveErrorsBetweenStatuses(tx, projectId, reverts.map((r) => ({ errorId: r.id, from: r.from, to: r.to })))
    await tx.insert(errorStatusChanges).values(
      reverts.map((r) => ({
        id: newId(),
        errorId: r.id,
        actorId,
        fromStatus: r.from,
        toStatus: r.to,
        reason: 'operation',
        reopenRules: r.rules,
        fromReopenRules: r.rulesBefore,
      })),
    )
    // A revert is a manual change like any other: errorStateManualChange webhooks (each with its own snooze rule).
    for (const r of reverts) {
      await queueStatusChangeTriggers(
        tx,
        projectId,
        actorId,
        [{ errorId: r.id, from: r.from, to: r.to }],
        r.to === 'snoozed' ? snoozeRuleOf(r.rules as Record<string, unknown>) : undefined,
      )
    }
  }
  return { rows, refused }
}

/**
 * The user id an assign operation stores, or null to unassign. It must be a collaborator of the
 * project's organization who can see the project; checked once, so a bulk assign is all or none.
 */
async function assigneeFor(db: Db, projectId: string, collaboratorId: string | null): Promise<string | null> {
  if (collaboratorId === null || collaboratorId === '') return null
  const rows = await db
    .select({ userId: collaborators.userId })
    .from(collaborators)
    .innerJoin(projects, eq(projects.organizationId, collaborators.organizationId))
    .where(
      and(
        eq(projects.id, projectId),
        eq(collaborators.userId, collaboratorId),
        collaboratorSeesProject(collaborators, projects.id),
      ),
    )
    .limit(1)
  if (!rows[0]) {
    throw new ValidationError(`assigned_collaborator_id: ${collaboratorId} is not a collaborator of this project`)
  }
  return rows[0].userId
}

/** Deletes the listed errors of a project (their events and counters go by foreign key); returns the ids deleted. */
async function deleteErrors(tx: Db, projectId: string, errorIds: readonly string[]): Promise<Set<string>> {
  // Lock first so no event can land on an error between its rollup correction and its DELETE.
  const found = await tx
    .select({ id: errors.id })
    .from(errors)
    .where(inProject(projectId, errorIds))
    // The order ingestion locks error rows in, so the two cannot deadlock on PostgreSQL.
    .orderBy(errors.projectId, errors.groupingHash)
    .for('update')
  if (found.length === 0) return new Set()
  await removeErrorsFromRollups(tx, projectId, found.map((row) => row.id))
  const deleted = await tx
    .delete(errors)
    .where(inProject(projectId, found.map((row) => row.id)))
    .returning({ id: errors.id })
  return new Set(deleted.map((row) => row.id))
}

/**
 * What an operation did: rows updated (and, for revert_status, errors refused with why), ids
 * deleted, or, for a merge, every listed error in order (the first one merged into).
 */
type Outcome =
  | { kind: 'updated'; rows: ErrorRow[]; refused?: Map<string, string> }
  | { kind: 'deleted'; ids: Set<string> }
  | { kind: 'merged'; rows: ErrorRow[] }

/** Runs one operation on the listed errors of a project, all in one transaction. */
async function runOperation(db: Db, scope: ProjectScope, errorIds: readonly string[], operation: ErrorOperation): Promise<Outcome> {
  const { userId, projectId, isAdmin } = scope
  if (operation.operation === 'delete') {
    if (!isAdmin) throw new ForbiddenError('only organization admins may do this')
    return { kind: 'deleted', ids: await writingProject(db, projectId, (tx) => deleteErrors(tx, projectId, errorIds)) }
  }
  if (isStatusOperation(operation)) {
    return {
      kind: 'updated',
      rows: await writingProject(db, projectId, (tx) => changeStatus(tx, userId, projectId, errorIds, operation)),
    }
  }
  switch (operation.operation) {
    case 'merge':
      if (errorIds.length < 2) {
        throw new ValidationError('operation: merge takes several errors: PATCH /projects/{project_id}/errors?error_ids=…, the one that stays first')
      }
      return { kind: 'merged', rows: await mergeErrors(db, scope, errorIds) }
    case 'unmerge':
      if (errorIds.length !== 1) {
        throw new ValidationError('operation: unmerge is made on one error: PATCH /projects/{project_id}/errors/{error_id}')
      }
      return { kind: 'updated', rows: [await unmergeError(db, scope, errorIds[0]!)] }
    case 'revert_status':
      return { kind: 'updated', ...(await writingProject(db, projectId, (tx) => revertStatus(tx, userId, projectId, errorIds))) }
    case 'assign': {
      const assignee = await assigneeFor(db, projectId, operation.assigned_collaborator_id)
      const rows = await writingProject(db, projectId, async (tx) => {
        const before = await tx
          .select({ id: errors.id, assignee: errors.assignedCollaboratorId })
          .from(errors)
          .where(inProject(projectId, errorIds))
        const updated = await tx
          .update(errors)
          .set({ assignedCollaboratorId: assignee, updatedAt: sql`now()` })
          .where(inProject(projectId, errorIds))
          .returning()
        // The assignee hears of errors newly theirs, unless they assigned them to themselves.
        if (assignee && assignee !== userId) {
          const newlyTheirs = before.filter((e) => e.assignee !== assignee)
          await queueAlerts(tx, newlyTheirs.map((e) => ({ kind: 'assigned' as const, projectId, errorId: e.id, actorId: userId, assigneeId: assignee })), new Date())
        }
        return updated
      })
      return { kind: 'updated', rows }
    }
    case 'override_severity':
      return { kind: 'updated', rows: await updateErrors(db, projectId, errorIds, { severityOverride: operation.severity }) }
    case 'discard':
      // An error discarded already keeps the time it was first discarded.
      return {
        kind: 'updated',
        rows: await updateErrors(db, projectId, errorIds, { discardedAt: sql`coalesce(${errors.discardedAt}, now())` }),
      }
    case 'undiscard':
      return { kind: 'updated', rows: await updateErrors(db, projectId, errorIds, { discardedAt: null }) }
    case 'link_issue':
      return { kind: 'updated', rows: await updateErrors(db, projectId, errorIds, { linkedIssueUrl: operation.issue_url }) }
    case 'unlink_issue':
      return { kind: 'updated', rows: await updateErrors(db, projectId, errorIds, { linkedIssueUrl: null }) }
  }
}

/**
 * Sets columns of the listed errors of a project under the project's write lock, so the
 * indexer sees a discard before its next batch of the project, never half-way through one.
 */
function updateErrors(
  db: Db,
  projectId: string,
  errorIds: readonly string[],
  values: { severityOverride?: string; discardedAt?: SQL | null; linkedIssueUrl?: string | null },
): Promise<ErrorRow[]> {
  return writingProject(db, projectId, (tx) =>
    tx
      .update(errors)
      .set({ ...values, updatedAt: sql`now()` })
      .where(inProject(projectId, errorIds))
      .returning(),
  )
}

/**
 * PATCH /projects/{id}/errors/{error_id}: the updated error, or null once deleted.
 * Any collaborator who can see the project may operate; only admins may delete.
 */
export async function operateOnError(
  db: Db,
  urls: UrlBuilder,
  scope: ProjectScope,
  errorId: string,
  operation: ErrorOperation,
): Promise<ErrorGroup | null> {
  const outcome = await runOperation(db, scope, [errorId], operation)
  if (outcome.kind === 'merged') throw new Error('unreachable: a merge names several errors')
  if (outcome.kind === 'deleted') {
    if (!outcome.ids.has(errorId)) throw new NotFoundError('Error')
    return null
  }
  const refusal = outcome.refused?.get(errorId)
  if (refusal) throw new ConflictError(`Cannot revert the status: ${refusal}`)
  const row = outcome.rows[0]
  if (!row) throw new NotFoundError('Error')
  // The same resource GET answers.
  return { ...toErrorGroup(urls, row), merged_errors: await listMergedErrors(db, row.id) }
}

/**
 * PATCH /projects/{id}/errors?error_ids=…: one result per distinct id, in the order given.
 * Ids that are not errors of this project answer not_found; the others change together.
 */
export async function operateOnErrors(
  db: Db,
  urls: UrlBuilder,
  scope: ProjectScope,
  errorIds: readonly string[],
  operation: ErrorOperation,
): Promise<BulkErrorResult[]> {
  const outcome = await runOperation(db, scope, errorIds, operation)
  if (outcome.kind === 'merged') {
    return outcome.rows.map((row, i) => ({
      id: row.id,
      status: i === 0 ? 'updated' : 'merged',
      error: toErrorGroup(urls, row),
      errors: [],
    }))
  }
  if (outcome.kind === 'deleted') {
    return errorIds.map((id) => ({
      id,
      status: outcome.ids.has(id) ? 'deleted' : 'not_found',
      error: null,
      errors: outcome.ids.has(id) ? [] : ['Error not found'],
    }))
  }
  const byId = new Map(outcome.rows.map((row) => [row.id, row]))
  return errorIds.map((id) => {
    const row = byId.get(id)
    const refusal = outcome.refused?.get(id)
    if (refusal) return { id, status: 'failed', error: null, errors: [`Cannot revert the status: ${refusal}`] }
    return row
      ? { id, status: 'updated', error: toErrorGroup(urls, row), errors: [] }
      : { id, status: 'not_found', error: null, errors: ['Error not found'] }
  })
}

/**
 * GET /projects/{id}/errors/{error_id}/status_changes: the newest MAX_STATUS_CHANGES, newest
 * first; the error's merges and unmerges (error_merges) among them.
 */
export async function listStatusChanges(db: Db, { projectId }: ProjectScope, errorId: string): Promise<ErrorStatusChange[]> {
  const found = await db
    .select({ id: errors.id })
    .from(errors)
    .where(and(eq(errors.id, errorId), eq(errors.projectId, projectId)))
    .limit(1)
  if (!found[0]) throw new NotFoundError('Error')
  // Served by error_status_changes_error_idx (error_id, created_at).
  const rows = await db
    .select({
      change: errorStatusChanges,
      actorName: users.name,
      actorEmail: users.email,
    })
    .from(errorStatusChanges)
    .leftJoin(users, eq(users.id, errorStatusChanges.actorId))
    .where(eq(errorStatusChanges.errorId, errorId))
    .orderBy(desc(errorStatusChanges.createdAt), desc(errorStatusChanges.id))
    .limit(MAX_STATUS_CHANGES)
  const merges = await mergeHistory(db, errorId, MAX_STATUS_CHANGES)
  const actors = await actorsOf(db, merges.map((m) => m.actorId))
  const history: ErrorStatusChange[] = rows.map(({ change, actorName, actorEmail }) => ({
    id: change.id,
    error_id: change.errorId,
    from_status: change.fromStatus as ErrorStatus,
    to_status: change.toStatus as ErrorStatus,
    reason: change.reason as ErrorStatusChange['reason'],
    actor:
      change.actorId !== null && actorName !== null && actorEmail !== null
        ? { id: change.actorId, name: actorName, email: actorEmail }
        : null,
    reopen_rules: (change.reopenRules as StoredReopenRules | null) ?? null,
    created_at: change.createdAt.toISOString(),
  }))
  for (const m of merges) {
    history.push({
      id: m.id,
      error_id: errorId,
      from_status: null,
      to_status: null,
      reason: m.kind as 'merge' | 'unmerge',
      merge: {
        into: { id: m.into.id, error_class: m.into.errorClass, message: m.into.message },
        merged: { id: m.merged.id, error_class: m.merged.errorClass, message: m.merged.message },
      },
      actor: (m.actorId && actors.get(m.actorId)) || null,
      reopen_rules: null,
      created_at: m.createdAt.toISOString(),
    })
  }
  // Newest first (ISO 8601 UTC strings sort as times), ids breaking ties as the queries do.
  history.sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1))
  return history.slice(0, MAX_STATUS_CHANGES)
}

/** The named users, by id (deleted ones are missing). */
async function actorsOf(db: Db, ids: readonly (string | null)[]): Promise<Map<string, ErrorStatusChange['actor'] & object>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))]
  if (wanted.length === 0) return new Map()
  const rows = await db.select({ id: users.id, name: users.name, email: users.email }).from(users).where(inArray(users.id, wanted))
  return new Map(rows.map((row) => [row.id, row]))
}
