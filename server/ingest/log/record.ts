// What the accepted-event log keeps: one record per accepted POST /notify, as received.
// Acknowledging costs no more than checking the envelope and appending; normalizing,
// grouping and indexing happen later, off the HTTP thread (docs/ingestion.md).
import { newId } from '../../db/ids.ts'
import type { IndexedEvent } from '../index/write-events.ts'

/** One accepted POST /notify. */
export interface AcceptedRequest {
  projectId: string
  receivedAt: Date
  /** One id per event of the payload, made when it was accepted, so a replay makes the same events. */
  eventIds: string[]
  /** The POST's User-Agent: browser notifiers' events read their browser and OS from it. */
  userAgent: string | null
  /** The payload's JSON text as received (decompressed, validated), UTF-8. */
  body: Buffer
}

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
  return { projectId, receivedAt, eventIds, userAgent, body }
}

/**
 * One event ready for the index stage: its row data, and its normalized payload as the JSON
 * text event_payloads stores. Processing an AcceptedRequest makes these.
 */
export interface IndexableEvent extends IndexedEvent {
  payloadJson: string
}

const CR = 0x0d
const LF = 0x0a
const TAB = 0x09
const SPACE = 0x20

/**
 * The body with raw CR, LF and TAB bytes turned into spaces, so that it fits on one journal
 * line after a tab. In valid JSON those bytes only ever stand between tokens (a string may not
 * hold them raw), so the text means exactly the same; the common compact body is returned as is.
 */
export function oneLineBody(body: Buffer): Buffer {
  if (body.indexOf(LF) < 0 && body.indexOf(CR) < 0 && body.indexOf(TAB) < 0) return body
  const copy = Buffer.from(body)
  for (let i = 0; i < copy.length; i++) {
    const byte = copy[i]
    if (byte === LF || byte === CR || byte === TAB) copy[i] = SPACE
  }
  return copy
}
