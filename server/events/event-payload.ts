import { gunzipSync } from 'node:zlib'
import type { ErrorEvent } from '../../contract/events.ts'

/**
 * The full normalized event as stored in event_payloads: the Events API resource
 * without the fields that come from the events row (id, project, error, time, links).
 * Ingestion writes it; event detail and exports read it.
 */
export type StoredEventPayload = Omit<ErrorEvent, 'id' | 'url' | 'html_url' | 'project_id' | 'error_id' | 'received_at'>

/**
 * Stored as UTF-8 JSON; the database compresses it (TOAST, for values over ~2 KB), in its
 * own process on PostgreSQL and on the database thread on PGlite, not on the HTTP thread.
 */
export function encodeEventPayload(payload: StoredEventPayload): Buffer {
  return Buffer.from(JSON.stringify(payload), 'utf8')
}

// Payloads written before that were gzip'd by Errata itself: still read.
const isGzip = (data: Uint8Array) => data[0] === 0x1f && data[1] === 0x8b

export function decodeEventPayload(data: Uint8Array): StoredEventPayload {
  const text = isGzip(data) ? gunzipSync(data).toString('utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')
  return JSON.parse(text) as StoredEventPayload
}
