import { DEFAULT_RELEASE_STAGE, type SessionCount } from '../payload/event-row.ts'
import { parseNotifierTime } from '../payload/notifier-time.ts'
import type { SessionsPayload } from '../payload/payload-schema.ts'

const MINUTE_MS = 60_000

/**
 * A session payload as per-minute counts of its release stage and app version: Node's
 * `sessionCounts` (already per minute) and browsers' `sessions` (one entry per session) alike.
 */
export function sessionCountsOf(projectId: string, receivedAt: Date, payload: SessionsPayload): SessionCount[] {
  const releaseStage = payload.app?.releaseStage || DEFAULT_RELEASE_STAGE
  const appVersion = payload.app?.version ?? ''
  const perMinute = new Map<number, number>()
  const add = (startedAt: string, count: number) => {
    if (count <= 0) return
    const minute = Math.floor(parseNotifierTime(startedAt) / MINUTE_MS) * MINUTE_MS
    perMinute.set(minute, (perMinute.get(minute) ?? 0) + count)
  }
  for (const entry of payload.sessionCounts ?? []) add(entry.startedAt, entry.sessionsStarted)
  for (const session of payload.sessions ?? []) add(session.startedAt, 1)
  return [...perMinute].map(([minute, sessions]) => ({ projectId, minute: new Date(minute).toISOString(), releaseStage, appVersion, sessions, receivedAt }))
}
