// What the accepted-event log keeps: one record per accepted POST /notify or /sessions, as
// received. Acknowledging costs no more than checking the envelope and appending; normalizing,
// grouping and indexing happen later, off the HTTP thread (docs/ingestion.md).
import { newId } from '../../db/ids.ts'

/** One accepted POST /notify (its events) or POST /sessions (session counts). */
export interface AcceptedRequest {
  kind: 'notify' | 'sessions'
  projectId: string
  receivedAt: Date
  /** One id per event of the payload, made when it was accepted, so a replay makes the same events; none for sessions. */
  eventIds: string[]
  /** The POST's User-Agent: browser notifiers' events read their browser and OS from it. */
  userAgent: string | null
  /** The payload's JSON text as received (decompressed, validated), UTF-8. */
  body: Buffer
}

/** How much a request weighs in a batch: its events, or one for a sessions request. */
export const requestWeight = (request: AcceptedRequest) => Math.max(1, request.eventIds.length)

/** The record of a POST /notify whose body (validated) holds `eventCount` events, received now. */
export function acceptedRequest(
  projectId: string,
  receivedAt: Date,
  body: Buffer,
  eventCount: number,
  userAgent: string | null,
): AcceptedRequest {
  const eventIds = new Array<string>(eventCount)
  for (let i = 0; i < eventCount; i++) eventIds[i] = newId(receivedAt.getTime())
  return { kind: 'notify', projectId, receivedAt, eventIds, userAgent, body }
}

/** The record of a POST /sessions whose body (validated) is `body`, received now. */
export function acceptedSessions(projectId: string, receivedAt: Date, body: Buffer): AcceptedRequest {
  return { kind: 'sessions', projectId, receivedAt, eventIds: [], userAgent: null, body }
}
