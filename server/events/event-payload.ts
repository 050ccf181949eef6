import { gunzipSync, gzipSync } from 'node:zlib'
import type { ErrorEvent } from '../../contract/events.ts'

/**
 * The full normalized event as stored in event_payloads: the Events API resource
 * without the fields that come from the events row (id, project, error, time, links).
 * Ingestion writes it; event detail and exports read it.
 */
export type StoredEventPayload = Omit<ErrorEvent, 'id' | 'url' | 'html_url' | 'project_id' | 'error_id' | 'received_at'>

// Level 1: most of gzip's saving on JSON at a fraction of the CPU on the ingest path.
export function encodeEventPayload(payload: StoredEventPayload): Buffer {
  return gzipSync(JSON.stringify(payload), { level: 1 })
}

export function decodeEventPayload(data: Uint8Array): StoredEventPayload {
  return JSON.parse(gunzipSync(data).toString('utf8')) as StoredEventPayload
}
