import { sql } from 'drizzle-orm'
import { queryRows, type Db } from '../../db/client.ts'
import { createSeenReleases } from '../../releases/create-release.ts'
import { DEFAULT_RELEASE_STAGE } from '../process/normalize.ts'
import { parseNotifierTime } from '../process/notifier-time.ts'
import type { SessionsPayload } from './payload-schema.ts'

const MINUTE_MS = 60_000

/**
 * Adds a session payload to the per-minute counts of its project, release stage and app
 * version: Node's `sessionCounts` (already per minute) and browsers' `sessions` (one entry
 * per session) both become one upsert, so concurrent processes only ever add.
 */
export async function recordSessions(db: Db, projectId: string, payload: SessionsPayload): Promise<number> {
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
  if (perMinute.size === 0) return 0

  // One JSON parameter, not five bind parameters per minute: a payload may span more minutes
  // than PostgreSQL's 65,535 parameters allow.
  const rows = [...perMinute].sort(([a], [b]) => a - b).map(([minute, sessions]) => ({ minute: new Date(minute).toISOString(), sessions }))
  await db.execute(sql`
    INSERT INTO session_counts (project_id, minute, release_stage, app_version, sessions)
    SELECT ${projectId}, r.minute, ${releaseStage}, ${appVersion}, r.sessions
    FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(minute timestamptz, sessions bigint)
    ON CONFLICT (project_id, minute, release_stage, app_version)
    DO UPDATE SET sessions = session_counts.sessions + excluded.sessions`)
  if (appVersion !== '') await recordSessionRelease(db, projectId, releaseStage, appVersion, new Date())
  return [...perMinute.values()].reduce((sum, n) => sum + n, 0)
}

/**
 * The release the sessions belong to, created on first sight (docs/releases.md) with its release
 * notifications, in one transaction so neither goes without the other.
 */
async function recordSessionRelease(db: Db, projectId: string, releaseStage: string, appVersion: string, receivedAt: Date): Promise<void> {
  // The usual case, a release that exists, stays one index lookup and no transaction.
  const [known] = await queryRows<{ one: number }>(
    db,
    sql`SELECT 1 AS one FROM releases WHERE project_id = ${projectId} AND release_stage = ${releaseStage} AND app_version = ${appVersion}`,
  )
  if (known) return
  await db.transaction(async (tx) => {
    await createSeenReleases(tx as unknown as Db, [{ projectId, releaseStage, appVersion, at: receivedAt }], 'session')
  })
}
