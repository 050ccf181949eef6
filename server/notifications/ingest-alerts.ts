// The alerts an index batch raises: its new errors and the errors it reopened, queued in the
// batch's transaction (server/ingest/index/index-events.ts) as one alerts.send job.
import type { Db } from '../db/client.ts'
import type { IndexedEvent } from '../ingest/payload/event-row.ts'
import type { WriteOutcome } from '../ingest/index/write-events.ts'
import { queueAlerts, type Alert } from './alerts.jobs.ts'

/**
 * Alerts one batch may raise. A batch past it is a flood nobody reads one by one (each person
 * gets Config.alerts.perHour anyway); the day's new errors are in the digest all the same.
 */
const MAX_ALERTS_PER_BATCH = 50

export async function queueIngestAlerts(tx: Db, stored: readonly IndexedEvent[], outcome: WriteOutcome, now: Date): Promise<void> {
  if (outcome.createdErrorIds.size === 0 && outcome.reopened.length === 0) return
  const projectOf = new Map<string, string>()
  for (const e of stored) projectOf.set(outcome.errorIdOf(e), e.projectId)
  const alerts: Alert[] = []
  for (const errorId of outcome.createdErrorIds) {
    const projectId = projectOf.get(errorId)
    if (projectId) alerts.push({ kind: 'new_error', projectId, errorId })
  }
  for (const { id, from } of outcome.reopened) {
    const projectId = projectOf.get(id)
    if (projectId) alerts.push({ kind: 'reopened', projectId, errorId: id, reopenedFrom: from })
  }
  await queueAlerts(tx, alerts.slice(0, MAX_ALERTS_PER_BATCH), now)
}
