import { and, eq, ne } from 'drizzle-orm'
import type { RemappedError } from '../../contract/errors.ts'
import type { ProjectScope } from '../auth/scope.ts'
import type { Config } from '../config.ts'
import type { Database } from '../db/client.ts'
import { errors, eventPayloads } from '../db/schema.ts'
import { decodeEventPayload } from '../events/event-payload.ts'
import { NotFoundError } from '../failures.ts'
import { computeGrouping } from '../ingest/process/grouping.ts'
import { JavaScriptSymbolicator, symbolicatorSettings } from '../symbolication/javascript.ts'
import type { Logger } from 'pino'

/**
 * One read-only symbolicator per database, kept across requests: a map is parsed (on the HTTP
 * thread) once, not on every view of an error page. Its cache is bounded as the pipeline's is.
 */
const symbolicators = new WeakMap<Database, JavaScriptSymbolicator>()

function readOnlySymbolicator(deps: { database: Database; logger: Logger; config: Config }): JavaScriptSymbolicator {
  let symbolicator = symbolicators.get(deps.database)
  if (!symbolicator) {
    symbolicator = new JavaScriptSymbolicator({ ...deps, ...symbolicatorSettings(deps.config), readOnly: true })
    symbolicators.set(deps.database, symbolicator)
  }
  return symbolicator
}

/**
 * Whether a source map uploaded since the error's latest event arrived would map it now, and which
 * error such an event groups as. Mapped events group by their original frames, so an error whose
 * events came before the map stops receiving new ones; this names the error they join instead.
 * Read-only: the stored event is mapped in memory (spec: stored events are not re-mapped).
 *
 * Only the latest event is looked at: one lookup, not a scan of a busy error's events. An error
 * whose newest events still miss a map (another release) says no map is available.
 */
export async function findRemappedError(
  deps: { database: Database; logger: Logger; config: Config },
  { projectId }: ProjectScope,
  errorId: string,
): Promise<RemappedError> {
  const { db } = deps.database
  const [error] = await db
    .select({ lastEventId: errors.lastEventId })
    .from(errors)
    .where(and(eq(errors.id, errorId), eq(errors.projectId, projectId)))
    .limit(1)
  if (!error) throw new NotFoundError('Error')
  if (!error.lastEventId) return { map_available: false }
  const [row] = await db
    .select({ payload: eventPayloads.payload })
    .from(eventPayloads)
    .where(eq(eventPayloads.eventId, error.lastEventId))
    .limit(1)
  if (!row) return { map_available: false }
  // A fresh copy: decoded from the stored bytes, changed only here.
  const payload = decodeEventPayload(row.payload)
  if (!payload.symbolication?.missing.length) return { map_available: false }

  // Mapped as an event arriving now would be: with every map uploaded up to now.
  await readOnlySymbolicator(deps).symbolicate([{ id: error.lastEventId, projectId, receivedAt: new Date(), event: { payload } }])
  if (!payload.symbolication?.mapped_frames) return { map_available: false }

  const grouping = computeGrouping(payload.exceptions, payload.grouping_hash, payload.grouping_discriminator ?? null)
  const [grouped] = await db
    .select({ id: errors.id, error_class: errors.errorClass, message: errors.message, events: errors.eventsCount, mergedIntoId: errors.mergedIntoId })
    .from(errors)
    .where(and(eq(errors.projectId, projectId), eq(errors.groupingHash, grouping.hash), ne(errors.id, errorId)))
    .limit(1)
  if (!grouped) return { map_available: true, mapped_error: null }
  // A group merged into another error: its events count there.
  const target = grouped.mergedIntoId
    ? (await db.select({ id: errors.id, error_class: errors.errorClass, message: errors.message, events: errors.eventsCount }).from(errors).where(eq(errors.id, grouped.mergedIntoId)).limit(1))[0]
    : grouped
  if (!target || target.id === errorId) return { map_available: true, mapped_error: null }
  return { map_available: true, mapped_error: { id: target.id, error_class: target.error_class, message: target.message, events: Number(target.events) } }
}
