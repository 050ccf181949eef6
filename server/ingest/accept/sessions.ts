import { sql } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { newId } from '../../db/ids.ts'
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
 * The release the sessions belong to, created on first sight (docs/releases.md); the guard
 * keeps the usual case, a release that exists, to one index lookup without a write.
 */
async function recordSessionRelease(db: Db, projectId: string, releaseStage: string, appVersion: string, receivedAt: Date): Promise<void> {
  await db.execute(sql`
    INSERT INTO releases (id, project_id, release_stage, app_version, release_time, release_source)
    SELECT ${newId()}, ${projectId}, ${releaseStage}, ${appVersion}, ${receivedAt.toISOString()}::timestamptz, 'session'
    WHERE NOT EXISTS (SELECT 1 FROM releases r WHERE r.project_id = ${projectId}
      AND r.release_stage = ${releaseStage} AND r.app_version = ${appVersion})
    ON CONFLICT (project_id, release_stage, app_version) DO NOTHING`)
}
