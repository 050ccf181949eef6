// Privacy requests as the API serves them: create, read, list, confirm, preview, download.
// The work itself runs as jobs (privacy.jobs.ts); docs/privacy.md describes the states.
import { and, desc, eq, sql, type SQL } from 'drizzle-orm'
import type { Filters } from '../../contract/filters.ts'
import type {
  EventDataDeletion,
  EventDataRequest,
  PrivacyActor,
  PrivacyPerson,
  PrivacyPreview,
  ReportType,
} from '../../contract/privacy.ts'
import { PRIVACY_PEOPLE_COUNTED, PRIVACY_PEOPLE_SHOWN } from '../../contract/privacy.ts'
import type { CompiledFilters } from '../filters/filter-sql.ts'
import type { AuthUser } from '../context.ts'
import { queryRows, withTransaction, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { eventDataDeletions, eventDataRequests, events, jobs } from '../db/schema.ts'
import { decodeCursor, encodeCursor } from '../http/cursor.ts'
import { ConflictError, Failure, NotFoundError } from '../failures.ts'
import type { UrlBuilder } from '../http/urls.ts'
import { enqueueJob } from '../jobs/jobs.ts'
import type { PrivacyDeps } from './privacy-deps.ts'
import { PRIVACY_JOBS } from './privacy-job-kinds.ts'
import { compileSelection, projectsInScope, selectedEventsWhere, type Scope } from './selection.ts'

/** Rows of a scope: an organization's (all of them), or one project's. */
function inScope(table: typeof eventDataRequests | typeof eventDataDeletions, scope: Scope): SQL {
  return and(
    eq(table.organizationId, scope.organizationId),
    scope.projectId ? eq(table.projectId, scope.projectId) : undefined,
  )!
}

const actor = (id: string | null, email: string, name: string): PrivacyActor => ({ id, email, name })
const iso = (date: Date | null) => (date ? date.toISOString() : null)

type RequestRow = typeof eventDataRequests.$inferSelect & { attempts: number | null; lastError: string | null }
type DeletionRow = typeof eventDataDeletions.$inferSelect & { attempts: number | null; lastError: string | null }

/** Where a retrieval's file is downloaded (the organization's path serves project requests too). */
const downloadPath = (row: { organizationId: string; id: string }) =>
  `/organizations/${row.organizationId}/event_data_requests/${row.id}/download`

/** Whether a retrieval's file can be downloaded at `now` (openRetrievalFile answers 410 otherwise). */
const downloadable = (row: RequestRow, now: Date) =>
  row.status === 'COMPLETED' && row.fileKey !== null && row.fileRemovedReason === null && row.expiresAt !== null && row.expiresAt > now

/** The wire form of a retrieval; `url` only while its file can be downloaded. */
function toEventDataRequest(urls: UrlBuilder, row: RequestRow, now: Date): EventDataRequest {
  return {
    id: row.id,
    status: row.status,
    total: row.total,
    filters: row.filters as Filters,
    report_type: row.reportType as ReportType,
    created_at: row.createdAt.toISOString(),
    completed_at: iso(row.completedAt),
    expires_at: iso(row.expiresAt),
    ...(downloadable(row, now) ? { url: urls.api(downloadPath(row)) } : {}),
    organization_id: row.organizationId,
    project_id: row.projectId,
    all_events: row.allEvents,
    created_by: actor(row.createdBy, row.createdByEmail, row.createdByName),
    file_bytes: row.fileBytes,
    file_removed: row.fileRemovedReason ?? null,
    attempts: row.attempts ?? 0,
    last_error: row.lastError,
    failure: row.failure,
  }
}

function toEventDataDeletion(row: DeletionRow): EventDataDeletion {
  return {
    id: row.id,
    status: row.status,
    total: row.total,
    filters: row.filters as Filters,
    created_at: row.createdAt.toISOString(),
    completed_at: iso(row.completedAt),
    organization_id: row.organizationId,
    project_id: row.projectId,
    all_events: row.allEvents,
    skip_confirmation: row.skipConfirmation,
    deleted_events: row.deletedEvents,
    created_by: actor(row.createdBy, row.createdByEmail, row.createdByName),
    confirmed_by: row.confirmedByEmail ? actor(row.confirmedBy, row.confirmedByEmail, row.confirmedByName ?? '') : null,
    confirmed_at: iso(row.confirmedAt),
    attempts: row.attempts ?? 0,
    last_error: row.lastError,
    failure: row.failure,
  }
}

const jobColumns = { attempts: jobs.attempts, lastError: jobs.lastError }

const selectRequests = (db: Db) =>
  db.select({ row: eventDataRequests, ...jobColumns }).from(eventDataRequests).leftJoin(jobs, eq(jobs.id, eventDataRequests.jobId))
const selectDeletions = (db: Db) =>
  db.select({ row: eventDataDeletions, ...jobColumns }).from(eventDataDeletions).leftJoin(jobs, eq(jobs.id, eventDataDeletions.jobId))

const flatten = <R>({ row, attempts, lastError }: { row: R; attempts: number | null; lastError: string | null }) => ({
  ...row,
  attempts,
  lastError,
})

interface SelectionInput {
  filters: Filters
  allEvents: boolean
}

/**
 * A new request or deletion in PREPARING, with its first job queued in the same transaction:
 * the columns both share (scope, selection, who and when), plus `fields` of its own kind.
 */
async function createPreparing(
  db: Db,
  privacy: PrivacyDeps,
  user: AuthUser,
  scope: Scope,
  input: SelectionInput,
  kind: { table: typeof eventDataRequests | typeof eventDataDeletions; job: string; payloadKey: 'requestId' | 'deletionId' },
  fields: Record<string, unknown>,
): Promise<string> {
  const now = privacy.clock()
  // A contradiction in the filters is a 400 now, not a failed job later.
  compileSelection({ filters: input.filters, userId: user.id, now })
  const id = newId(now.getTime())
  await withTransaction(db, async (tx) => {
    const jobId = await enqueueJob(tx, kind.job, { [kind.payloadKey]: id }, now)
    await tx.insert(kind.table).values({
      id,
      organizationId: scope.organizationId,
      projectId: scope.projectId,
      status: 'PREPARING',
      filters: input.filters,
      allEvents: input.allEvents,
      createdBy: user.id,
      createdByEmail: user.email,
      createdByName: user.name,
      createdAt: now,
      jobId,
      ...fields,
    } as typeof eventDataRequests.$inferInsert & typeof eventDataDeletions.$inferInsert)
  })
  privacy.wakeJobs()
  return id
}

/** POST …/event_data_requests: PREPARING, with its export queued. */
export async function createRetrieval(
  db: Db,
  privacy: PrivacyDeps,
  urls: UrlBuilder,
  user: AuthUser,
  scope: Scope,
  input: SelectionInput & { reportType: ReportType },
): Promise<EventDataRequest> {
  const retrieval = { table: eventDataRequests, job: PRIVACY_JOBS.retrieve, payloadKey: 'requestId' } as const
  const id = await createPreparing(db, privacy, user, scope, input, retrieval, { reportType: input.reportType })
  return getRetrieval(db, urls, scope, id, privacy.clock())
}

/** POST …/event_data_deletions: PREPARING, with its count queued. */
export async function createDeletion(
  db: Db,
  privacy: PrivacyDeps,
  user: AuthUser,
  scope: Scope,
  input: SelectionInput & { skipConfirmation: boolean },
): Promise<EventDataDeletion> {
  const deletion = { table: eventDataDeletions, job: PRIVACY_JOBS.countDeletion, payloadKey: 'deletionId' } as const
  const id = await createPreparing(db, privacy, user, scope, input, deletion, { skipConfirmation: input.skipConfirmation })
  return getDeletion(db, scope, id)
}

export async function getRetrieval(db: Db, urls: UrlBuilder, scope: Scope, id: string, now: Date): Promise<EventDataRequest> {
  const [found] = await selectRequests(db).where(and(eq(eventDataRequests.id, id), inScope(eventDataRequests, scope)))
  if (!found) throw new NotFoundError('Event data request')
  return toEventDataRequest(urls, flatten(found), now)
}

export async function getDeletion(db: Db, scope: Scope, id: string): Promise<EventDataDeletion> {
  const [found] = await selectDeletions(db).where(and(eq(eventDataDeletions.id, id), inScope(eventDataDeletions, scope)))
  if (!found) throw new NotFoundError('Event data deletion')
  return toEventDataDeletion(flatten(found))
}

interface PageOf<T> {
  items: T[]
  nextCursor: string | null
  totalCount: number
}

/** Keyset page of a scope's requests, newest first (created_at, id). */
async function pageOf<T, R extends { createdAt: Date; id: string }>(
  list: string,
  query: { per_page: number; cursor?: string },
  read: (after: { at: string; id: string } | null, limit: number) => Promise<R[]>,
  total: () => Promise<number>,
  toWire: (row: R) => T,
): Promise<PageOf<T>> {
  const cursor = query.cursor ? decodeCursor(query.cursor, list) : null
  const [rows, totalCount] = await Promise.all([
    read(cursor ? { at: String(cursor.v), id: cursor.id } : null, query.per_page + 1),
    total(),
  ])
  const page = rows.slice(0, query.per_page)
  const last = page[page.length - 1]
  return {
    items: page.map(toWire),
    nextCursor: rows.length > query.per_page && last ? encodeCursor({ v: last.createdAt.toISOString(), id: last.id }, list) : null,
    totalCount,
  }
}

const scopeTag = (scope: Scope) => (scope.projectId ? `project|${scope.projectId}` : `organization|${scope.organizationId}`)

const before = (table: typeof eventDataRequests | typeof eventDataDeletions, after: { at: string; id: string } | null) =>
  after ? sql`(${table.createdAt}, ${table.id}) < (${after.at}::timestamptz, ${after.id})` : undefined

/** GET …/event_data_requests: newest first. */
export function listRetrievals(db: Db, urls: UrlBuilder, scope: Scope, query: { per_page: number; cursor?: string }, now: Date) {
  return pageOf(
    `event_data_requests|${scopeTag(scope)}`,
    query,
    async (after, limit) =>
      (
        await selectRequests(db)
          .where(and(inScope(eventDataRequests, scope), before(eventDataRequests, after)))
          .orderBy(desc(eventDataRequests.createdAt), desc(eventDataRequests.id))
          .limit(limit)
      ).map(flatten),
    () => db.$count(eventDataRequests, inScope(eventDataRequests, scope)),
    (row) => toEventDataRequest(urls, row, now),
  )
}

/** GET …/event_data_deletions: newest first. */
export function listDeletions(db: Db, scope: Scope, query: { per_page: number; cursor?: string }) {
  return pageOf(
    `event_data_deletions|${scopeTag(scope)}`,
    query,
    async (after, limit) =>
      (
        await selectDeletions(db)
          .where(and(inScope(eventDataDeletions, scope), before(eventDataDeletions, after)))
          .orderBy(desc(eventDataDeletions.createdAt), desc(eventDataDeletions.id))
          .limit(limit)
      ).map(flatten),
    () => db.$count(eventDataDeletions, inScope(eventDataDeletions, scope)),
    (row) => toEventDataDeletion(row),
  )
}

const NEXT_STEP: Record<EventDataDeletion['status'], string> = {
  PREPARING: 'its events are still being counted; confirm it once it is AWAITING_CONFIRMATION',
  AWAITING_CONFIRMATION: '',
  ACCEPTED: 'it was confirmed already and is deleting',
  COMPLETED: 'it was confirmed and has completed',
  FAILED: 'it failed; make a new deletion',
}

/** POST …/event_data_deletions/{id}/confirm: AWAITING_CONFIRMATION → ACCEPTED, its deletion queued; 409 from any other state. */
export async function confirmDeletion(db: Db, privacy: PrivacyDeps, user: AuthUser, scope: Scope, id: string): Promise<EventDataDeletion> {
  const now = privacy.clock()
  const confirmed = await withTransaction(db, async (tx) => {
    const rows = await tx
      .update(eventDataDeletions)
      .set({
        status: 'ACCEPTED',
        completedAt: null,
        confirmedBy: user.id,
        confirmedByEmail: user.email,
        confirmedByName: user.name,
        confirmedAt: now,
      })
      .where(and(eq(eventDataDeletions.id, id), inScope(eventDataDeletions, scope), eq(eventDataDeletions.status, 'AWAITING_CONFIRMATION')))
      .returning({ id: eventDataDeletions.id })
    if (rows.length === 0) return false
    const queued = await enqueueJob(tx, PRIVACY_JOBS.delete, { deletionId: id }, now, { key: id })
    await tx.update(eventDataDeletions).set({ jobId: queued }).where(eq(eventDataDeletions.id, id))
    return true
  })
  if (!confirmed) {
    const current = await getDeletion(db, scope, id)
    throw new ConflictError(`deletion ${id} is ${current.status}, not AWAITING_CONFIRMATION: ${NEXT_STEP[current.status]}`)
  }
  privacy.wakeJobs()
  return getDeletion(db, scope, id)
}

/** Events a selection matches in each project of its scope, received before `before` when given. */
export async function countSelected(
  db: Db,
  scope: Scope,
  selection: { filters: Filters; userId: string; now: Date },
  before?: Date,
): Promise<number> {
  const compiled = compileSelection(selection)
  let total = 0
  for (const project of await projectsInScope(db, scope)) {
    const [row] = await db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(events).where(selectedEventsWhere(project.id, compiled, before))
    total += row?.n ?? 0
  }
  return total
}

const PREVIEW_EVENTS = 5

/** GET …/event_data_preview: how many events the selection matches now, and the newest few. */
export async function previewSelection(db: Db, privacy: PrivacyDeps, user: AuthUser, scope: Scope, filters: Filters): Promise<PrivacyPreview> {
  const selection = { filters, userId: user.id, now: privacy.clock() }
  const compiled = compileSelection(selection)
  const newest: PrivacyPreview['events'] = []
  for (const project of await projectsInScope(db, scope)) {
    const rows = await db
      .select()
      .from(events)
      .where(selectedEventsWhere(project.id, compiled))
      .orderBy(desc(events.receivedAt), desc(events.id))
      .limit(PREVIEW_EVENTS)
    for (const row of rows) {
      newest.push({
        id: row.id,
        project_id: row.projectId,
        error_id: row.errorId,
        received_at: row.receivedAt.toISOString(),
        error_class: row.errorClass,
        message: row.message,
        context: row.context,
        user: { id: row.userId, email: row.userEmail, name: row.userName },
      })
    }
  }
  newest.sort((a, b) => (a.received_at < b.received_at ? 1 : a.received_at > b.received_at ? -1 : a.id < b.id ? 1 : -1))
  return {
    total: await countSelected(db, scope, selection),
    events: newest.slice(0, PREVIEW_EVENTS),
    people: await selectedPeople(db, scope, compiled),
  }
}

/**
 * The different people a selection matches (a user id, else an email, else a name), so that a
 * substring that catches several is seen before anything is exported or deleted. One grouped
 * pass over each project's selected events (the scan the count makes anyway) with plain
 * aggregates (a person's email and name shown are one they used, not necessarily the newest),
 * at most PRIVACY_PEOPLE_COUNTED + 1 groups kept each; a person in several projects is one person.
 */
async function selectedPeople(db: Db, scope: Scope, compiled: CompiledFilters): Promise<PrivacyPreview['people']> {
  const people = new Map<string, PrivacyPerson & { last: number }>()
  let capped = false
  let withoutUser = 0
  for (const project of await projectsInScope(db, scope)) {
    const rows = await queryRows<{ kind: string | null; key: string | null; user_id: string | null; email: string | null; name: string | null; events: number | string; last: Date | string }>(
      db,
      sql`SELECT kind, key, user_id, email, name, events, last FROM (
          SELECT p.kind, p.key, count(*) AS events, max(events.received_at) AS last,
            max(events.user_id) AS user_id, max(events.user_email) AS email, max(events.user_name) AS name
          FROM events
          CROSS JOIN LATERAL (SELECT CASE WHEN events.user_id IS NOT NULL THEN 'id' WHEN events.user_email IS NOT NULL THEN 'email'
                                          WHEN events.user_name IS NOT NULL THEN 'name' END AS kind,
                                     coalesce(events.user_id, events.user_email, events.user_name) AS key) p
          WHERE ${selectedEventsWhere(project.id, compiled)}
          GROUP BY p.kind, p.key
          ORDER BY p.key IS NULL DESC, count(*) DESC, p.key
          LIMIT ${PRIVACY_PEOPLE_COUNTED + 2}) g`,
    )
    for (const row of rows) {
      if (row.key === null) {
        withoutUser += Number(row.events)
        continue
      }
      const key = `${row.kind}\u0000${row.key}`
      const last = new Date(row.last).getTime()
      const found = people.get(key)
      if (!found) {
        people.set(key, { user: { id: row.user_id, email: row.email, name: row.name }, events: Number(row.events), last })
        continue
      }
      found.events += Number(row.events)
      found.user = { id: found.user.id ?? row.user_id, email: found.user.email ?? row.email, name: found.user.name ?? row.name }
      found.last = Math.max(found.last, last)
    }
    capped ||= rows.filter((r) => r.key !== null).length > PRIVACY_PEOPLE_COUNTED
  }
  const items = [...people.values()].sort((a, b) => b.events - a.events || b.last - a.last)
  return {
    total: items.length,
    capped,
    items: items.slice(0, PRIVACY_PEOPLE_SHOWN).map(({ user, events: n }) => ({ user, events: n })),
    events_without_user: withoutUser,
  }
}

/** A retrieval's file, ready to stream; 409 before it is complete, 410 once expired or removed. */
export async function openRetrievalFile(
  db: Db,
  privacy: PrivacyDeps,
  scope: Scope,
  id: string,
): Promise<{ stream: ReadableStream<Uint8Array>; bytes: number | null }> {
  const [found] = await selectRequests(db).where(and(eq(eventDataRequests.id, id), inScope(eventDataRequests, scope)))
  if (!found) throw new NotFoundError('Event data request')
  const row = found.row
  if (row.status !== 'COMPLETED') {
    throw new ConflictError(`event data request ${id} is ${row.status}; its file can be downloaded once it is COMPLETED`)
  }
  const gone = (why: string) => new Failure('gone', [`the file of event data request ${id} ${why}; make a new request`])
  if (row.fileRemovedReason === 'deleted') throw gone('was removed when a later event data deletion in its scope completed')
  if (!row.fileKey || !row.expiresAt || row.expiresAt <= privacy.clock()) {
    throw gone(`expired at ${row.expiresAt?.toISOString() ?? 'its expiry'}`)
  }
  const stream = await privacy.files.open(row.id, row.fileKey)
  if (!stream) throw gone('is no longer stored')
  return { stream, bytes: row.fileBytes }
}
