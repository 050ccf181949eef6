// The shapes an event takes between the stages: normalized by process/, written by index/.
import type { Severity } from '../../../contract/errors.ts'
import type { StoredEventPayload } from '../../events/event-payload.ts'
import type { CodeLines } from '../../events/stored-frames.ts'

export const DEFAULT_RELEASE_STAGE = 'production'

/** Why an event landed in its error; docs/grouping.md explains each rule. */
export type GroupingReason = 'grouping_hash' | 'in_project_frame' | 'top_frame' | 'error_class_and_message'

export interface Grouping {
  /** Stored in errors.grouping_hash: 40 hex characters, unique per project. */
  hash: string
  reason: GroupingReason
}

/** The indexed columns of one events row (see the baseline migration), minus ids and time. */
export interface EventColumns {
  severity: Severity
  unhandled: boolean
  errorClass: string
  message: string
  context: string | null
  releaseStage: string
  appVersion: string | null
  osName: string | null
  osVersion: string | null
  browserName: string | null
  deviceModel: string | null
  userId: string | null
  userEmail: string | null
  userName: string | null
  requestUrl: string | null
}

export interface NormalizedEvent {
  columns: EventColumns
  payload: StoredEventPayload
  grouping: Grouping
  /** Who counts as one affected user: user id, else email, else device id. */
  userKey: string | null
}

/** What the ingest writer stores for one event: its row, its full payload, its group. */
export interface PreparedEvent {
  id: string
  projectId: string
  receivedAt: Date
  columns: EventColumns
  grouping: Grouping
  userKey: string | null
  payload: StoredEventPayload
  /** Set on an unhandled event that names its session: that session crashed (crashed_sessions). */
  crashedSession?: CrashedSession | null
  /**
   * Set by the index step when the event's own group is merged into another error: that group's
   * error id (events.merged_from_id); `grouping` then names the error it is merged into.
   */
  mergedFromId?: string
}

/**
 * The session an unhandled event ended, as crashed_sessions keeps it: attributed to the minute
 * the session started (the event's received minute when `session.startedAt` is missing or
 * unreadable) and to the event's release stage and app version, written as session_counts
 * writes the session payload's (at most 255 characters; no version is '').
 */
export interface CrashedSession {
  id: string
  /** ISO 8601, a whole minute. */
  startedMinute: string
  releaseStage: string
  appVersion: string
}

/** An accepted event as the indexer writes it: everything but its payload. */
export type IndexedEvent = Omit<PreparedEvent, 'payload'>

/**
 * One event ready for the index stage: its row data, and its normalized payload as the JSON
 * text event_payloads stores. Processing an AcceptedRequest makes these.
 */
export interface IndexableEvent extends IndexedEvent {
  payloadJson: string
  /** The code context its mapped frames refer to (`code_ref`), written with it; absent when none. */
  codeSnippets?: ReadonlyMap<string, CodeLines>
}

/** Sessions of one minute, project, release stage and app version, from a POST /sessions. */
export interface SessionCount {
  projectId: string
  /** ISO 8601, a whole minute. */
  minute: string
  releaseStage: string
  /** '' when the payload names none. */
  appVersion: string
  sessions: number
  /** When the request was received: the release's time if these sessions create it. */
  receivedAt: Date
}
