// Indexing: a batch of accepted events into errors, events, error_users and the rollups,
// inside the caller's transaction (index-events.ts, which also writes their payloads).
import { sql, type SQL } from 'drizzle-orm'
import { queryRows, type Db } from '../../db/client.ts'
import { newId } from '../../db/ids.ts'
import { createSeenReleases, type SeenRelease } from '../../releases/create-release.ts'
import { textArrayLiteral } from '../../db/text-array.ts'
import { moveErrorsBetweenStatuses } from '../../rollups/rollups.ts'
import type { CrashedSession, IndexedEvent } from '../payload/event-row.ts'

// PostgreSQL allows 65535 parameters per statement; stay well under it.
const ROWS_PER_INSERT = 1000

interface ErrorGroupUpdate {
  key: string
  projectId: string
  groupingHash: string
  count: number
  firstSeen: Date
  lastSeen: Date
  newest: IndexedEvent
  /** The earliest event: the release the error is first seen in. */
  first: IndexedEvent
  releaseStages: Set<string>
  appVersions: Set<string>
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>()
  for (const item of items) {
    const k = key(item)
    const group = groups.get(k)
    if (group) group.push(item)
    else groups.set(k, [item])
  }
  return groups
}

/** Plain code-unit order: the same in every process, unlike localeCompare. */
const compareKeys = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/**
 * `INSERT INTO errors AS e (…) VALUES …` for groups of a batch: with the batch's own
 * counts when creating them ('full'), or with the given increments for folding into
 * existing rows ('delta').
 */
function errorRowsInsert(
  groups: readonly ErrorGroupUpdate[],
  mode: 'full' | 'delta',
  deltas?: ReadonlyArray<{ events: number; users: number }>,
): SQL {
  const values = groups.map((g, i) => {
    const c = g.newest.columns
    const events = mode === 'full' ? g.count : deltas![i]!.events
    const users = mode === 'full' ? 0 : deltas![i]!.users
    return sql`(${newId()}, ${g.projectId}, ${g.groupingHash}, ${g.newest.grouping.reason}, ${c.errorClass}, ${c.message},
      ${c.context}, ${c.severity}, ${c.unhandled}, ${g.firstSeen.toISOString()}::timestamptz,
      ${g.lastSeen.toISOString()}::timestamptz, ${events}::bigint, ${users}::bigint,
      ${textArrayLiteral(g.releaseStages)}::text[], ${textArrayLiteral(g.appVersions)}::text[], ${g.newest.id},
      ${g.first.columns.releaseStage}, ${g.first.columns.appVersion})`
  })
  return sql`INSERT INTO errors AS e (id, project_id, grouping_hash, grouping_reason, error_class, message, context,
      severity, unhandled, first_seen, last_seen, events_count, users_count, release_stages, app_versions, last_event_id,
      first_release_stage, first_app_version)
    VALUES ${sql.join(values, sql`, `)}`
}

/**
 * For each error of the batch that is fixed or snoozed: how many of its events in the batch
 * were received at or after its status was set (a jsonb object by error id). The others
 * predate the fix or the snooze: accepted before it, indexed only now (docs/ingestion.md).
 */
const afterStatus = (counts: SQL) => sql`coalesce((${counts}::jsonb ->> e.id)::bigint, excluded.events_count)`

/**
 * Whether the batch's events reopen the error row `e` (in an ON CONFLICT DO UPDATE, with
 * the batch's counts in `excluded`): an event received after the fix reopens a fixed error;
 * a snoozed one reopens when its rule (bookkeeping written by the snooze operation) is met,
 * counting only events received since the snooze. events_at_snooze also counts the events
 * received before the snooze but indexed after it (see lateEventsAtSnooze). The events of
 * this batch are already inserted, so the per-hour rule counts them.
 */
const reopens = (counts: SQL) => sql`(${afterStatus(counts)} > 0 AND (
  e.status = 'fixed'
  OR (e.status = 'snoozed' AND (
       (e.reopen_rules->>'reopen_if' = 'n_additional_occurrences'
         AND e.events_count + ${afterStatus(counts)}
             >= (e.reopen_rules->>'events_at_snooze')::bigint + (e.reopen_rules->>'additional_occurrences')::bigint)
    OR (e.reopen_rules->>'reopen_if' = 'n_additional_users'
         AND e.users_count + excluded.users_count
             >= (e.reopen_rules->>'users_at_snooze')::bigint + (e.reopen_rules->>'additional_users')::bigint)
    OR (e.reopen_rules->>'reopen_if' = 'occurs_after'
         AND excluded.last_seen >= (e.reopen_rules->>'reopen_after')::timestamptz)
    OR (e.reopen_rules->>'reopen_if' = 'n_occurrences_in_m_hours'
         AND (SELECT count(*) FROM events v WHERE v.error_id = e.id
               AND v.received_at >= greatest((e.reopen_rules->>'snoozed_at')::timestamptz,
                                             excluded.last_seen - make_interval(hours => (e.reopen_rules->>'hours')::int))
               AND v.received_at <= excluded.last_seen)
             >= (e.reopen_rules->>'occurrences')::bigint)))))`

/**
 * The reopen_rules of a snoozed error that stays snoozed: an n_additional_occurrences rule
 * counts the batch's events received before the snooze into events_at_snooze, so that only
 * those received after it count towards the rule, in this batch and the next ones.
 */
const lateEventsAtSnooze = (counts: SQL) => sql`CASE
  WHEN e.status = 'snoozed' AND e.reopen_rules->>'reopen_if' = 'n_additional_occurrences'
    AND excluded.events_count > ${afterStatus(counts)}
  THEN jsonb_set(e.reopen_rules, '{events_at_snooze}',
    to_jsonb((e.reopen_rules->>'events_at_snooze')::bigint + excluded.events_count - ${afterStatus(counts)}))
  ELSE e.reopen_rules END`

/**
 * Writes a batch inside the caller's transaction, as a handful of multi-row statements:
 * 1. create the error groups this batch starts (ON CONFLICT DO NOTHING takes no lock on
 *    existing rows) and learn every group's id;
 * 2. insert events; 3. record affected users;
 * 4. fold the batch's counts into the error rows, in (project, hash) order.
 * ON CONFLICT everywhere, never read-then-write. The caller holds the write locks of the
 * batch's projects (db/project-lock.ts), so no status change, deletion or other indexer
 * writes these rows meanwhile.
 */
export async function writeEvents(tx: Db, batch: readonly IndexedEvent[]): Promise<WriteOutcome> {
  const allGroups = errorGroupsOf(batch)
  const groups = await createErrorGroups(tx, allGroups)
  await recordReleases(tx, batch)
  // Events of discarded errors are counted on the error and go no further (docs/errors-workflow.md).
  const kept = groups.discarded.size === 0 ? batch : batch.filter((event) => !groups.discarded.has(groups.errorIdOf(event)))
  const ordered = kept === batch ? allGroups : allGroups.filter((g) => !groups.discarded.has(groups.errorIds.get(g.key)!))
  await countDiscardedEvents(tx, allGroups, groups)
  await insertEvents(tx, kept, groups.errorIdOf)
  const newUsers = await recordUsers(tx, kept, groups.errorIdOf)
  const { reopened, eventsCount } = await updateErrorCounters(tx, kept, ordered, groups, newUsers)
  await recordReopenings(tx, reopened, groups.projectOfError, newestEventOf(ordered, groups))
  if (ordered.length > 0) await addReleaseStages(tx, ordered)
  await recordCrashedSessions(tx, kept)
  // Groups created by this batch hold its events alone (those with new users are returned above too).
  for (const g of ordered) {
    const id = groups.errorIds.get(g.key)!
    if (groups.created.has(g.key) && !eventsCount.has(id)) eventsCount.set(id, g.count)
  }
  return {
    kept: kept === batch ? null : new Set(kept.map((event) => event.id)),
    errorIdOf: groups.errorIdOf,
    createdErrorIds: new Set([...groups.created].map((key) => groups.errorIds.get(key)!)),
    eventsCount,
    reopened,
  }
}

/** The events of discarded errors, counted on each (in the order errors are locked). */
async function countDiscardedEvents(tx: Db, ordered: readonly ErrorGroupUpdate[], groups: ErrorGroups): Promise<void> {
  const counts = ordered
    .filter((g) => groups.discarded.has(groups.errorIds.get(g.key)!))
    .map((g) => ({ id: groups.errorIds.get(g.key)!, n: g.count }))
  if (counts.length === 0) return
  await tx.execute(sql`
    UPDATE errors e SET discarded_events = e.discarded_events + x.n
    FROM jsonb_to_recordset(${JSON.stringify(counts)}::jsonb) AS x(id text, n bigint)
    WHERE e.id = x.id`)
}

/**
 * Releases (project, release stage, app version) the batch's events name, created on first
 * sight (docs/releases.md) with their release notifications; an existing release is left as it
 * is. Events without an app version belong to no release.
 */
async function recordReleases(tx: Db, batch: readonly IndexedEvent[]): Promise<void> {
  const first = new Map<string, SeenRelease>()
  for (const event of batch) {
    const version = event.columns.appVersion
    if (!version) continue
    const key = `${event.projectId}\u0000${event.columns.releaseStage}\u0000${version}`
    const seen = first.get(key)
    if (!seen || event.receivedAt < seen.at) {
      first.set(key, { projectId: event.projectId, releaseStage: event.columns.releaseStage, appVersion: version, at: event.receivedAt })
    }
  }
  await createSeenReleases(tx, [...first.values()], 'event')
}

/** What a batch did to its errors, for what runs after it in the index step (webhook triggers). */
export interface WriteOutcome {
  /** The events stored, when some were not (those of discarded errors, counted only); null when all were. */
  kept: Set<string> | null
  errorIdOf(event: IndexedEvent): string
  /** Errors this batch created. */
  createdErrorIds: Set<string>
  /** Each error's events_count after the batch. */
  eventsCount: Map<string, number>
  /** Errors the batch reopened, with their status and snooze rule before. */
  reopened: Reopened[]
}

export interface Reopened {
  id: string
  from: string
  rules: Record<string, unknown> | null
}

/** The batch's error groups, in (project, hash) order, with their counts, times and newest event. */
function errorGroupsOf(batch: readonly IndexedEvent[]): ErrorGroupUpdate[] {
  const groups = new Map<string, ErrorGroupUpdate>()
  for (const event of batch) {
    const key = `${event.projectId}\u0000${event.grouping.hash}`
    let group = groups.get(key)
    if (!group) {
      group = {
        key,
        projectId: event.projectId,
        groupingHash: event.grouping.hash,
        count: 0,
        firstSeen: event.receivedAt,
        lastSeen: event.receivedAt,
        newest: event,
        first: event,
        releaseStages: new Set(),
        appVersions: new Set(),
      }
      groups.set(key, group)
    }
    group.count += 1
    if (event.receivedAt < group.firstSeen) {
      group.firstSeen = event.receivedAt
      group.first = event
    }
    // Newest as the events lists order them, (received_at, id): the events of one request
    // share their received time, and their ids follow the order they were sent in.
    const time = event.receivedAt.getTime()
    if (time > group.lastSeen.getTime() || (time === group.lastSeen.getTime() && event.id > group.newest.id)) {
      group.lastSeen = event.receivedAt
      group.newest = event
    }
    group.releaseStages.add(event.columns.releaseStage)
    if (event.columns.appVersion) group.appVersions.add(event.columns.appVersion)
  }
  return [...groups.values()].sort((a, b) => compareKeys(a.key, b.key))

}

/** Each group's error id, and which groups this batch created. */
interface ErrorGroups {
  errorIds: Map<string, string>
  created: Set<string>
  /** Ids of the batch's errors that are discarded. */
  discarded: Set<string>
  errorIdOf(event: IndexedEvent): string
  projectOfError: Map<string, string>
}

async function createErrorGroups(tx: Db, ordered: readonly ErrorGroupUpdate[]): Promise<ErrorGroups> {
  // 1. Groups new to the project are created with this batch's counts; the rest exist.
  const errorIds = new Map<string, string>()
  const created = new Set<string>()
  const discarded = new Set<string>()
  for (const part of chunks(ordered, ROWS_PER_INSERT)) {
    const keys = part.map((g) => sql`(${g.projectId}, ${g.groupingHash})`)
    const rows = await queryRows<{ id: string; project_id: string; grouping_hash: string; created: boolean; discarded: boolean }>(
      tx,
      sql`
      WITH inserted AS (
        ${errorRowsInsert(part, 'full')}
        ON CONFLICT (project_id, grouping_hash) DO NOTHING
        RETURNING id, project_id, grouping_hash)
      SELECT id, project_id, grouping_hash, true AS created, false AS discarded FROM inserted
      UNION ALL
      SELECT e.id, e.project_id, e.grouping_hash, false, e.discarded_at IS NOT NULL FROM errors e
      JOIN (VALUES ${sql.join(keys, sql`, `)}) AS k(project_id, grouping_hash)
        ON e.project_id = k.project_id AND e.grouping_hash = k.grouping_hash`,
    )
    for (const row of rows) {
      const key = `${row.project_id}\u0000${row.grouping_hash}`
      errorIds.set(key, row.id)
      if (row.created) created.add(key)
      if (row.discarded) discarded.add(row.id)
    }
  }
  // A group another transaction created and committed after this statement's snapshot.
  const missing = ordered.filter((g) => !errorIds.has(g.key))
  if (missing.length > 0) {
    const keys = missing.map((g) => sql`(${g.projectId}, ${g.groupingHash})`)
    const rows = await queryRows<{ id: string; project_id: string; grouping_hash: string }>(
      tx,
      sql`SELECT e.id, e.project_id, e.grouping_hash FROM errors e
        JOIN (VALUES ${sql.join(keys, sql`, `)}) AS k(project_id, grouping_hash)
          ON e.project_id = k.project_id AND e.grouping_hash = k.grouping_hash`,
    )
    for (const row of rows) errorIds.set(`${row.project_id}\u0000${row.grouping_hash}`, row.id)
  }
  return {
    errorIds,
    created,
    discarded,
    errorIdOf: (event) => errorIds.get(`${event.projectId}\u0000${event.grouping.hash}`)!,
    projectOfError: new Map(ordered.map((g) => [errorIds.get(g.key)!, g.projectId])),
  }

}

async function insertEvents(tx: Db, batch: readonly IndexedEvent[], errorIdOf: (event: IndexedEvent) => string): Promise<void> {
  // 2. Events: each chunk travels as ONE json parameter that PostgreSQL
  // unpacks itself; far cheaper than thousands of bind parameters, above all on PGlite.
  for (const part of chunks(batch, ROWS_PER_INSERT)) {
    const rows = part.map((event) => {
      const c = event.columns
      return {
        id: event.id,
        project_id: event.projectId,
        error_id: errorIdOf(event),
        received_at: event.receivedAt.toISOString(),
        severity: c.severity,
        unhandled: c.unhandled,
        error_class: c.errorClass,
        message: c.message,
        context: c.context,
        release_stage: c.releaseStage,
        app_version: c.appVersion,
        os_name: c.osName,
        os_version: c.osVersion,
        browser_name: c.browserName,
        device_model: c.deviceModel,
        user_id: c.userId,
        user_email: c.userEmail,
        user_name: c.userName,
        request_url: c.requestUrl,
        merged_from_id: event.mergedFromId ?? null,
      }
    })
    await tx.execute(sql`
      INSERT INTO events (id, project_id, error_id, received_at, severity, unhandled, error_class, message, context,
        release_stage, app_version, os_name, os_version, browser_name, device_model, user_id, user_email, user_name, request_url,
        merged_from_id)
      SELECT id, project_id, error_id, received_at, severity, unhandled, error_class, message, context,
        release_stage, app_version, os_name, os_version, browser_name, device_model, user_id, user_email, user_name, request_url,
        merged_from_id
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(id text, project_id text, error_id text,
        received_at timestamptz, severity text, unhandled boolean, error_class text, message text, context text,
        release_stage text, app_version text, os_name text, os_version text, browser_name text, device_model text,
        user_id text, user_email text, user_name text, request_url text, merged_from_id text)`)
  }

}

/** How many users new to each error the batch brings (by error id). */
async function recordUsers(tx: Db, batch: readonly IndexedEvent[], errorIdOf: (event: IndexedEvent) => string): Promise<Map<string, number>> {
  // 3. Users affected: only keys new to an error bump its counter.
  const newUsers = new Map<string, number>()
  const userPairs = new Map<string, SQL>()
  for (const event of batch) {
    if (!event.userKey) continue
    const errorId = errorIdOf(event)
    userPairs.set(`${errorId}\u0000${event.userKey}`, sql`(${errorId}, ${event.userKey})`)
  }
  // In key order, like every other write here: concurrent indexers then wait for each other
  // on the same (error, user) keys instead of deadlocking.
  const orderedPairs = [...userPairs].sort((a, b) => compareKeys(a[0], b[0])).map(([, pair]) => pair)
  for (const part of chunks(orderedPairs, ROWS_PER_INSERT * 5)) {
    const inserted = await queryRows<{ error_id: string }>(
      tx,
      sql`INSERT INTO error_users (error_id, user_key) VALUES ${sql.join(part, sql`, `)}
        ON CONFLICT DO NOTHING RETURNING error_id`,
    )
    for (const row of inserted) newUsers.set(row.error_id, (newUsers.get(row.error_id) ?? 0) + 1)
  }
  return newUsers
}

/** Folds the batch into its errors' counters and statuses; the errors it reopened, with their status before. */
async function updateErrorCounters(
  tx: Db,
  batch: readonly IndexedEvent[],
  ordered: readonly ErrorGroupUpdate[],
  { errorIds, created, errorIdOf }: ErrorGroups,
  newUsers: Map<string, number>,
): Promise<{ reopened: Reopened[]; eventsCount: Map<string, number> }> {
  // 4. Counters, last (see above). A group created in step 1 already holds its events.
  // Errors this batch may reopen (fixed, or snoozed with a rule), to record the change.
  const existingIds = ordered.filter((g) => !created.has(g.key)).map((g) => errorIds.get(g.key)!)
  const reopenable = new Map<string, { status: string; rules: Record<string, unknown> | null }>()
  // Events per reopenable error received at or after its status was set (see afterStatus).
  const afterStatusCounts: Record<string, number> = {}
  if (existingIds.length > 0) {
    const rows = await queryRows<{ id: string; status: string; status_since_ms: number | null; reopen_rules: Record<string, unknown> | null }>(
      tx,
      // Locked (in the order step 4 locks them) so a concurrent status change cannot slip in
      // between this read and the reopen, which moves the error's rollups from this status.
      // A fix was set when its history row was written (error_status_changes_error_idx).
      sql`SELECT id, status, reopen_rules, floor(extract(epoch FROM CASE WHEN status = 'fixed'
            THEN (SELECT max(c.created_at) FROM error_status_changes c WHERE c.error_id = errors.id)
            ELSE (reopen_rules->>'snoozed_at')::timestamptz END) * 1000)::float8 AS status_since_ms
        FROM errors WHERE id = ANY(${textArrayLiteral(existingIds)}::text[])
        AND status IN ('fixed', 'snoozed') ORDER BY project_id, grouping_hash FOR NO KEY UPDATE`,
    )
    const since = new Map<string, number>()
    for (const row of rows) {
      reopenable.set(row.id, { status: row.status, rules: row.reopen_rules })
      // Unknown (a status set before its time was kept): every event counts, as it used to.
      since.set(row.id, row.status_since_ms ?? -Infinity)
      afterStatusCounts[row.id] = 0
    }
    for (const event of batch) {
      const errorId = errorIdOf(event)
      const from = since.get(errorId)
      if (from !== undefined && event.receivedAt.getTime() >= from) afterStatusCounts[errorId]! += 1
    }
  }
  const counts = sql`${JSON.stringify(afterStatusCounts)}`
  const updates = ordered
    .map((g) => ({
      group: g,
      events: created.has(g.key) ? 0 : g.count,
      users: newUsers.get(errorIds.get(g.key)!) ?? 0,
    }))
    .filter((u) => u.events > 0 || u.users > 0)
  const reopened: Reopened[] = []
  const eventsCount = new Map<string, number>()
  for (const part of chunks(updates, ROWS_PER_INSERT)) {
    // Ties on last_seen go to the higher event id, as in the events lists (an error whose
    // events were all deleted has no last_event_id, and any event is newer than none).
    const newer = sql.raw(
      `(excluded.last_seen > e.last_seen OR (excluded.last_seen = e.last_seen AND excluded.last_event_id > coalesce(e.last_event_id, '')))`,
    )
    const returned = await queryRows<{ id: string; status: string; events_count: number | string }>(tx, sql`
      ${errorRowsInsert(
        part.map((u) => u.group),
        'delta',
        part.map((u) => ({ events: u.events, users: u.users })),
      )}
      ON CONFLICT (project_id, grouping_hash) DO UPDATE SET
        first_seen = least(e.first_seen, excluded.first_seen),
        last_seen = greatest(e.last_seen, excluded.last_seen),
        events_count = e.events_count + excluded.events_count,
        users_count = e.users_count + excluded.users_count,
        message = CASE WHEN ${newer} THEN excluded.message ELSE e.message END,
        context = CASE WHEN ${newer} THEN excluded.context ELSE e.context END,
        severity = CASE WHEN ${newer} THEN excluded.severity ELSE e.severity END,
        unhandled = CASE WHEN ${newer} THEN excluded.unhandled ELSE e.unhandled END,
        last_event_id = CASE WHEN ${newer} THEN excluded.last_event_id ELSE e.last_event_id END,
        -- An event received after the fix reopens a fixed error, a snoozed one reopens when its
        -- rule is met (docs/errors-workflow.md); ignored stays ignored.
        status = CASE WHEN ${reopens(counts)} THEN 'open' ELSE e.status END,
        reopen_rules = CASE WHEN ${reopens(counts)} THEN NULL ELSE ${lateEventsAtSnooze(counts)} END,
        release_stages = e.release_stages
          || ARRAY(SELECT s FROM unnest(excluded.release_stages) s WHERE s <> ALL (e.release_stages)),
        app_versions = e.app_versions
          || ARRAY(SELECT v FROM unnest(excluded.app_versions) v WHERE v <> ALL (e.app_versions)),
        updated_at = now()
      RETURNING e.id, e.status, e.events_count`)
    for (const row of returned) {
      eventsCount.set(row.id, Number(row.events_count))
      const before = reopenable.get(row.id)
      if (before && row.status === 'open') reopened.push({ id: row.id, from: before.status, rules: before.rules })
    }
  }
  return { reopened, eventsCount }
}

/** Each error's newest event of the batch, by error id. */
function newestEventOf(ordered: readonly ErrorGroupUpdate[], groups: ErrorGroups): Map<string, IndexedEvent> {
  return new Map(ordered.map((g) => [groups.errorIds.get(g.key)!, g.newest]))
}

/**
 * The history rows of automatic reopenings, with the release of the error's newest event of
 * the batch (a fixed error reopened there is a regression of that release), and their rollups
 * moved to the new status.
 */
async function recordReopenings(
  tx: Db,
  reopened: readonly Reopened[],
  projectOfError: Map<string, string>,
  newest: Map<string, IndexedEvent>,
): Promise<void> {
  if (reopened.length > 0) {
    const changes = reopened.map((r) => ({
      id: newId(),
      error_id: r.id,
      from_status: r.from,
      reason: r.from === 'fixed' ? 'event' : 'snooze_rule',
      release_stage: newest.get(r.id)?.columns.releaseStage ?? null,
      app_version: newest.get(r.id)?.columns.appVersion ?? null,
    }))
    await tx.execute(sql`
      INSERT INTO error_status_changes (id, error_id, actor_id, from_status, to_status, reason, release_stage, app_version)
      SELECT id, error_id, NULL, from_status, 'open', reason, release_stage, app_version
      FROM jsonb_to_recordset(${JSON.stringify(changes)}::jsonb)
        AS x(id text, error_id text, from_status text, reason text, release_stage text, app_version text)`)
  }

  // Rollups (trends, pivots, filters) are folded from the events later (rollups/fold.ts). A
  // reopened error's counts folded so far move to its new status; the rest is folded under it.
  for (const [projectId, moves] of groupBy(reopened, (r) => projectOfError.get(r.id)!)) {
    await moveErrorsBetweenStatuses(tx, projectId, moves.map((r) => ({ errorId: r.id, from: r.from, to: 'open' })))
  }
}

async function addReleaseStages(tx: Db, ordered: readonly ErrorGroupUpdate[]): Promise<void> {
  // 5. Release stages new to a project (the guard keeps the common case lock-free).
  const stagesByProject = new Map<string, Set<string>>()
  for (const group of ordered) {
    const stages = stagesByProject.get(group.projectId) ?? new Set<string>()
    for (const stage of group.releaseStages) stages.add(stage)
    stagesByProject.set(group.projectId, stages)
  }
  const projectStages = [...stagesByProject].map(([id, stages]) => sql`(${id}, ${textArrayLiteral(stages)}::text[])`)
  await tx.execute(sql`
    UPDATE projects p SET release_stages = p.release_stages
      || ARRAY(SELECT s FROM unnest(v.stages) s WHERE s <> ALL (p.release_stages))
    FROM (VALUES ${sql.join(projectStages, sql`, `)}) AS v(id, stages)
    WHERE p.id = v.id AND NOT (p.release_stages @> v.stages)`)
}

async function recordCrashedSessions(tx: Db, batch: readonly IndexedEvent[]): Promise<void> {
  // 6. Sessions that crashed: one row per session among the batch's unhandled events that
  // name one (the first such event of the batch describes it), one statement, none when
  // there are none. A session crashed once stays crashed: later events change nothing.
  const crashed = new Map<string, { project_id: string } & CrashedSession>()
  for (const event of batch) {
    const session = event.crashedSession
    if (!session) continue
    const key = `${event.projectId}\u0000${session.id}`
    if (!crashed.has(key)) crashed.set(key, { project_id: event.projectId, ...session })
  }
  if (crashed.size > 0) {
    const rows = [...crashed].sort((a, b) => compareKeys(a[0], b[0])).map(([, row]) => row)
    await tx.execute(sql`
      INSERT INTO crashed_sessions (project_id, session_id, started_minute, release_stage, app_version)
      SELECT project_id, id, "startedMinute", "releaseStage", "appVersion"
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        AS x(project_id text, id text, "startedMinute" timestamptz, "releaseStage" text, "appVersion" text)
      ON CONFLICT (project_id, session_id) DO NOTHING`)
  }
}
