import { createHash } from 'node:crypto'
import { withTransaction, type Database } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { errors, events } from '../db/schema.ts'
import { foldRollups } from '../rollups/fold.ts'

/** One event to seed at a chosen time; unset fields are absent (NULL). */
export interface SeedEvent {
  /** Key of the error it belongs to (errors are created per distinct key). */
  error: string
  at: string
  userId?: string
  userEmail?: string
  userName?: string
  releaseStage?: string
  appVersion?: string
  context?: string
  osName?: string
  osVersion?: string
  browserName?: string
  deviceModel?: string
  requestUrl?: string
}

/**
 * Inserts errors and events with the given received times, and adds them to the rollups
 * through the same function ingestion uses, so rollups and events agree as in production.
 * Returns error key → error id.
 */
export async function seedEvents(
  database: Database,
  projectId: string,
  list: readonly SeedEvent[],
): Promise<Record<string, string>> {
  const byKey = new Map<string, SeedEvent[]>()
  for (const event of list) byKey.set(event.error, [...(byKey.get(event.error) ?? []), event])
  const ids: Record<string, string> = {}
  const errorRows: (typeof errors.$inferInsert)[] = []
  const eventRows: (typeof events.$inferInsert)[] = []
  for (const [key, group] of byKey) {
    const id = newId()
    ids[key] = id
    const times = group.map((e) => new Date(e.at).getTime())
    errorRows.push({
      id,
      projectId,
      groupingHash: createHash('sha1').update(id).digest('hex'),
      groupingReason: 'grouping_hash',
      errorClass: `Seeded${key}`,
      message: `seeded ${key}`,
      severity: 'error',
      firstSeen: new Date(Math.min(...times)),
      lastSeen: new Date(Math.max(...times)),
      eventsCount: group.length,
    })
    for (const e of group) {
      eventRows.push({
        id: newId(new Date(e.at).getTime()),
        projectId,
        errorId: id,
        receivedAt: new Date(e.at),
        severity: 'error',
        errorClass: `Seeded${key}`,
        message: `seeded ${key}`,
        context: e.context ?? null,
        releaseStage: e.releaseStage ?? null,
        appVersion: e.appVersion ?? null,
        osName: e.osName ?? null,
        osVersion: e.osVersion ?? null,
        browserName: e.browserName ?? null,
        deviceModel: e.deviceModel ?? null,
        userId: e.userId ?? null,
        userEmail: e.userEmail ?? null,
        userName: e.userName ?? null,
        requestUrl: e.requestUrl ?? null,
      })
    }
  }
  await withTransaction(database.db, async (tx) => {
    await tx.insert(errors).values(errorRows)
    await tx.insert(events).values(eventRows)
    // Into the rollups as ingestion puts them there: folded behind the watermark.
    await foldRollups(tx, projectId)
  })
  return ids
}
