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

export function decodeEventPayload(data: Uint8Array): StoredEventPayload {
  return JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8')) as StoredEventPayload
}
