import { sql } from 'drizzle-orm'
import type { Db } from '../../db/client.ts'
import { createSeenReleases } from '../../releases/create-release.ts'
import type { SessionCount } from '../payload/event-row.ts'

/**
 * Adds a batch's session counts to session_counts, in the caller's transaction: one upsert
 * (so concurrent processes only ever add), its rows summed per key first (one statement may
 * not update a row twice) and sent as one JSON parameter (a payload may span more minutes than
 * PostgreSQL's 65,535 parameters allow). Then the releases they name, created on first sight
 * with their release notifications (docs/releases.md).
 */
export async function indexSessions(tx: Db, counts: readonly SessionCount[]): Promise<void> {
  if (counts.length === 0) return
  const summed = new Map<string, SessionCount>()
  for (const count of counts) {
    const key = JSON.stringify([count.projectId, count.minute, count.releaseStage, count.appVersion])
    const same = summed.get(key)
    if (same) same.sessions += count.sessions
    else summed.set(key, { ...count })
  }
  // In key order, so that concurrent batches lock rows alike.
  const rows = [...summed]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, c]) => ({ project_id: c.projectId, minute: c.minute, release_stage: c.releaseStage, app_version: c.appVersion, sessions: c.sessions }))
  await tx.execute(sql`
    INSERT INTO session_counts (project_id, minute, release_stage, app_version, sessions)
    SELECT r.project_id, r.minute, r.release_stage, r.app_version, r.sessions
    FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(project_id text, minute timestamptz, release_stage text, app_version text, sessions bigint)
    ON CONFLICT (project_id, minute, release_stage, app_version)
    DO UPDATE SET sessions = session_counts.sessions + excluded.sessions`)
  const releases = new Map<string, SessionCount>()
  for (const count of counts) {
    if (count.appVersion === '') continue
    const key = JSON.stringify([count.projectId, count.releaseStage, count.appVersion])
    if (!releases.has(key)) releases.set(key, count)
  }
  await createSeenReleases(
    tx,
    [...releases.values()].map((c) => ({ projectId: c.projectId, releaseStage: c.releaseStage, appVersion: c.appVersion, at: c.receivedAt })),
    'session',
  )
}
