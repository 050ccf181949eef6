import { minidumpSize } from '../native/native-symbols.service.ts'
import { and, asc, count, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm'
import type { ErrorEvent, ListEventsQuery } from '../../contract/events.ts'
import type { Filters } from '../../contract/filters.ts'
import type { ProjectScope } from '../auth/scope.ts'
import type { Db } from '../db/client.ts'
import { errors, eventPayloads, events } from '../db/schema.ts'
import { decodeCursor, encodeCursor, NOT_ISSUED_CURSOR } from '../http/cursor.ts'
import { NotFoundError, ValidationError } from '../failures.ts'
import type { UrlBuilder } from '../http/urls.ts'
import { compileFilters, projectEventsWhere } from '../filters/filter-sql.ts'
import { removeEventsFromRollups } from '../rollups/rollups.ts'
import { decodeEventPayload, type StoredEventPayload } from './event-payload.ts'
import { resolveStoredFrames } from './stored-frames.ts'
import { writingProject } from '../db/project-lock.ts'

type EventRow = typeof events.$inferSelect

/** A time PostgreSQL's timestamptz takes and JS prints as ISO 8601: years 1 to 9999. */
function inStorableRange(time: Date): boolean {
  const year = time.getUTCFullYear()
  return !Number.isNaN(time.getTime()) && year >= 1 && year <= 9999
}

/** The time window of a list: each bound storable, and start before end (naming both). */
function timeWindow(query: ListEventsQuery): { start?: Date; end?: Date } {
  const start = query.start_time
  const end = query.end_time
  if (start && end && start > end) {
    throw new ValidationError(['start_time: must be before end_time', 'end_time: must be after start_time'])
  }
  return { start, end }
}

/** An events cursor: exactly the ISO time and event id this server put in a Link header. */
function eventsCursor(text: string, list: string): { at: Date; id: string } {
  const cursor = decodeCursor(text, list)
  const at = typeof cursor.v === 'string' ? new Date(cursor.v) : null
  // The round trip refuses other endpoints' cursors, other date forms and out-of-range years.
  if (!at || !inStorableRange(at) || at.toISOString() !== cursor.v) {
    throw new ValidationError(NOT_ISSUED_CURSOR)
  }
  return { at, id: cursor.id }
}

// The row and its payload in one query: event detail and lists never fetch payloads one by one.
const eventWithPayload = { event: events, payload: eventPayloads.payload }

/** The payload of an event whose payload row is missing: what the slim row knows. */
function payloadFromRow(row: EventRow): StoredEventPayload {
  return {
    severity: row.severity as StoredEventPayload['severity'],
    unhandled: row.unhandled,
    severity_reason: null,
    context: row.context,
    grouping_hash: null,
    app_version: row.appVersion,
    release_stage: row.releaseStage,
    os_version: row.osVersion,
    user_id: row.userId,
    exceptions: [{ class: row.errorClass, message: row.message, type: null, stacktrace: [] }],
    meta_data: {},
    user: { id: row.userId, email: row.userEmail, name: row.userName },
    app: {},
    device: {},
    request: row.requestUrl ? { url: row.requestUrl } : {},
    breadcrumbs: [],
    feature_flags: [],
    threads: [],
    session: null,
    notifier: null,
  }
}

/** The Events API resource: the row's identity and time, then the stored payload. */
function toEvent(urls: UrlBuilder, row: EventRow, payload: Uint8Array | null): ErrorEvent {
  return {
    id: row.id,
    url: urls.api(`/projects/${row.projectId}/events/${row.id}`),
    html_url: urls.web(`/projects/${row.projectId}/errors/${row.errorId}/events/${row.id}`),
    project_id: row.projectId,
    error_id: row.errorId,
    received_at: row.receivedAt.toISOString(),
    ...(payload ? decodeEventPayload(payload) : payloadFromRow(row)),
  }
}

/** One event by id, without an authorization check (callers check access first). */
export async function loadEvent(db: Db, urls: UrlBuilder, eventId: string): Promise<ErrorEvent | null> {
  const rows = await db
    .select(eventWithPayload)
    .from(events)
    .leftJoin(eventPayloads, eq(eventPayloads.eventId, events.id))
    .where(eq(events.id, eventId))
    .limit(1)
  const row = rows[0]
  if (!row) return null
  const event = toEvent(urls, row.event, row.payload)
  await resolveStoredFrames(db, row.event.projectId, [event])
  return event
}

/** An event of the scope's project (for /events/{id}, the edge resolved the project through it); 404 otherwise. */
export async function getEvent(db: Db, urls: UrlBuilder, { projectId }: ProjectScope, eventId: string): Promise<ErrorEvent> {
  const rows = await db
    .select(eventWithPayload)
    .from(events)
    .leftJoin(eventPayloads, eq(eventPayloads.eventId, events.id))
    .where(and(eq(events.id, eventId), eq(events.projectId, projectId)))
    .limit(1)
  const row = rows[0]
  if (!row) throw new NotFoundError('Event')
  const event = toEvent(urls, row.event, row.payload)
  await resolveStoredFrames(db, projectId, [event])
  const dumpSize = await minidumpSize(db, eventId)
  return dumpSize === null ? event : { ...event, minidump: { size: dumpSize } }
}

/** A project's events, or one error's (of that project). */
export type EventScope = ProjectScope & { errorId?: string }

export interface EventPage {
  events: ErrorEvent[]
  nextCursor: string | null
  totalCount: number
}

/** The error whose events are listed, when it is the scope's project's; 404 otherwise. */
async function errorOfScope(db: Db, errorId: string, projectId: string) {
  const rows = await db
    .select({ projectId: errors.projectId, eventsCount: errors.eventsCount })
    .from(errors)
    .where(and(eq(errors.id, errorId), eq(errors.projectId, projectId)))
    .limit(1)
  if (!rows[0]) throw new NotFoundError('Error')
  return rows[0]
}

/**
 * A page of a project's or an error's events, newest first by default. Keyset paging on
 * (received_at, id): the next page starts strictly after the last row returned, so events
 * arriving meanwhile never shift or repeat rows. One query for the page (payloads joined),
 * one for the total.
 */
export async function listEvents(
  db: Db,
  urls: UrlBuilder,
  scope: EventScope,
  query: ListEventsQuery,
  filters: Filters = {},
): Promise<EventPage> {
  // Parameters first: a bad one is a 400 before any database work.
  const window = timeWindow(query)
  // One list per project or error and direction (filters and the time window narrow it).
  const list = `events|${scope.errorId !== undefined ? `error|${scope.errorId}` : `project|${scope.projectId}`}|${query.direction}`
  if (query.cursor && query.after_event) throw new ValidationError('after_event: cannot be combined with cursor; give one of them')
  let cursor = query.cursor ? eventsCursor(query.cursor, list) : null
  const compiled = compileFilters(filters, { userId: scope.userId, now: new Date() })
  const unfiltered = Object.keys(filters).length === 0 && !query.start_time && !query.end_time
  let knownTotal: number | null = null
  let scopeCondition: SQL
  if (scope.errorId !== undefined) {
    const error = await errorOfScope(db, scope.errorId, scope.projectId)
    scopeCondition = projectEventsWhere(error.projectId, compiled, scope.errorId)
    // The error's counter is kept current at ingest and on delete: no count(*) needed.
    if (unfiltered) knownTotal = error.eventsCount
  } else {
    scopeCondition = projectEventsWhere(scope.projectId, compiled)
  }

  if (query.after_event) {
    // The keyset of an event of this list: its own (received_at, id).
    const [anchor] = await db
      .select({ at: events.receivedAt, id: events.id })
      .from(events)
      .where(and(eq(events.id, query.after_event), scopeCondition))
      .limit(1)
    if (!anchor) throw new ValidationError(`after_event: ${query.after_event} is not an event of this list`)
    cursor = { at: anchor.at, id: anchor.id }
  }
  const conditions = and(
    scopeCondition,
    window.start ? gte(events.receivedAt, window.start) : undefined,
    window.end ? lt(events.receivedAt, window.end) : undefined,
  )
  const descending = query.direction === 'desc'
  let after: SQL | undefined
  if (cursor) {
    after = descending
      ? sql`(${events.receivedAt}, ${events.id}) < (${cursor.at.toISOString()}::timestamptz, ${cursor.id})`
      : sql`(${events.receivedAt}, ${events.id}) > (${cursor.at.toISOString()}::timestamptz, ${cursor.id})`
  }
  const order = descending ? [desc(events.receivedAt), desc(events.id)] : [asc(events.receivedAt), asc(events.id)]

  // Without a time window the project's total is the sum of its errors' counters (kept
  // exact in the same transactions as the events): thousands of rows, not millions.
  const projectTotal =
    scope.errorId === undefined && unfiltered
      ? db
          .select({ n: sql<number>`coalesce(sum(${errors.eventsCount}), 0)`.mapWith(Number) })
          .from(errors)
          .where(eq(errors.projectId, scope.projectId))
          .then((r) => r[0]?.n ?? 0)
      : null
  const [rows, total] = await Promise.all([
    db
      .select(eventWithPayload)
      .from(events)
      .leftJoin(eventPayloads, eq(eventPayloads.eventId, events.id))
      .where(and(conditions, after))
      .orderBy(...order)
      .limit(query.per_page + 1),
    knownTotal !== null
      ? Promise.resolve(knownTotal)
      : (projectTotal ?? db.select({ n: count() }).from(events).where(conditions).then((r) => Number(r[0]?.n ?? 0))),
  ])

  const page = rows.slice(0, query.per_page)
  const last = page[page.length - 1]
  const pageEvents = page.map((row) => toEvent(urls, row.event, row.payload))
  await resolveStoredFrames(db, scope.projectId, pageEvents)
  return {
    events: pageEvents,
    nextCursor: rows.length > query.per_page && last ? encodeCursor({ v: last.event.receivedAt.toISOString(), id: last.event.id }, list) : null,
    totalCount: total,
  }
}

/**
 * Deletes one event of the scope's project (deleting evidence is for admins, as deleting an error
 * is: the routes say so; docs/events-api.md), and in the same transaction brings its error's
 * summary up to date (summarizeAfterDelete).
 */
export async function deleteEvent(db: Db, { projectId }: ProjectScope, eventId: string): Promise<void> {
  const visible = await db
    .select({ id: events.id, projectId: events.projectId })
    .from(events)
    .where(and(eq(events.id, eventId), eq(events.projectId, projectId)))
    .limit(1)
  const event = visible[0]
  if (!event) throw new NotFoundError('Event')
  await writingProject(db, event.projectId, async (tx) => {
    // Deleted by a concurrent request meanwhile: that one took its counts off.
    const [current] = await tx.select({ id: events.id }).from(events).where(eq(events.id, eventId))
    if (!current) throw new NotFoundError('Event')
    await removeEventsFromRollups(tx, event.projectId, [eventId])
    const [deleted] = await tx
      .delete(events)
      .where(eq(events.id, eventId))
      .returning({ errorId: events.errorId, receivedAt: events.receivedAt })
    if (!deleted) return
    await summarizeAfterDelete(tx, deleted.errorId, eventId, deleted.receivedAt)
  })
}

/**
 * The error's summary once one of its events is gone: one event fewer; when it was the latest,
 * the newest remaining event's id, message, context, severity and time (the deleted event's
 * message must not stay on show); when it was the first, the oldest remaining event's time and
 * release (first_release); release stages and app versions from the rollups the delete has just updated. Users affected stay
 * as they were (docs/events-api.md). An error left without events keeps its message and times.
 */
async function summarizeAfterDelete(tx: Db, errorId: string, eventId: string, receivedAt: Date): Promise<void> {
  const [error] = await tx
    .select({ projectId: errors.projectId, lastEventId: errors.lastEventId, firstSeen: errors.firstSeen })
    .from(errors)
    .where(eq(errors.id, errorId))
  if (!error) return
  const remaining = (direction: 'newest' | 'oldest') =>
    tx
      .select({
        id: events.id,
        receivedAt: events.receivedAt,
        message: events.message,
        context: events.context,
        severity: events.severity,
        unhandled: events.unhandled,
        releaseStage: events.releaseStage,
        appVersion: events.appVersion,
      })
      .from(events)
      .where(eq(events.errorId, errorId))
      .orderBy(...(direction === 'newest' ? [desc(events.receivedAt), desc(events.id)] : [asc(events.receivedAt), asc(events.id)]))
      .limit(1)
      .then((rows) => rows[0])
  const newest = error.lastEventId === eventId ? await remaining('newest') : undefined
  const oldest = receivedAt.getTime() <= error.firstSeen.getTime() ? await remaining('oldest') : undefined
  const valuesOf = (field: string) =>
    sql`ARRAY(SELECT p.value FROM pivot_counts p WHERE p.project_id = ${error.projectId} AND p.error_id = ${errorId}
      AND p.field = ${field} AND p.value <> '' ORDER BY p.first_seen, p.value)`
  await tx
    .update(errors)
    .set({
      eventsCount: sql`greatest(${errors.eventsCount} - 1, 0)`,
      ...(error.lastEventId === eventId ? { lastEventId: newest?.id ?? null } : {}),
      ...(newest
        ? { message: newest.message, context: newest.context, severity: newest.severity, unhandled: newest.unhandled, lastSeen: newest.receivedAt }
        : {}),
      ...(oldest ? { firstSeen: oldest.receivedAt, firstReleaseStage: oldest.releaseStage, firstAppVersion: oldest.appVersion } : {}),
      releaseStages: valuesOf('app.release_stage'),
      appVersions: valuesOf('app.version'),
      updatedAt: sql`now()`,
    })
    .where(eq(errors.id, errorId))
}
