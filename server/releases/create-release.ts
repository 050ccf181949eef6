// Creating releases, the one way: first sight of an app version and release stage in events (the
// index step) or sessions, or a build report. Each creation queues the release webhook trigger in
// the same transaction (server/webhooks/triggers/release-triggers.ts).
import { sql } from 'drizzle-orm'
import { queryRows, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { queueReleaseTriggers, type CreatedRelease } from '../webhooks/triggers/release-triggers.ts'

export interface SeenRelease {
  projectId: string
  releaseStage: string
  appVersion: string
  /** When it was first seen: its release time if this creates it. */
  at: Date
}

/**
 * Creates the releases not there yet (an existing one is left as it is), in the caller's
 * transaction, in (project, stage, version) order so concurrent writers lock rows alike, and
 * queues their release notifications. The guard keeps the usual case, releases that exist, to
 * index lookups without a write.
 */
export async function createSeenReleases(tx: Db, seen: readonly SeenRelease[], source: 'event' | 'session'): Promise<CreatedRelease[]> {
  if (seen.length === 0) return []
  const rows = [...seen]
    .sort((a, b) => compare(a.projectId, b.projectId) || compare(a.releaseStage, b.releaseStage) || compare(a.appVersion, b.appVersion))
    .map((r) => ({ id: newId(), project_id: r.projectId, release_stage: r.releaseStage, app_version: r.appVersion, at: r.at.toISOString() }))
  const inserted = await queryRows<{ project_id: string; release_stage: string; app_version: string; release_time: string | Date }>(
    tx,
    sql`INSERT INTO releases (id, project_id, release_stage, app_version, release_time, release_source)
      SELECT x.id, x.project_id, x.release_stage, x.app_version, x.at, ${source}
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(id text, project_id text, release_stage text, app_version text, at timestamptz)
      WHERE NOT EXISTS (SELECT 1 FROM releases r WHERE r.project_id = x.project_id
        AND r.release_stage = x.release_stage AND r.app_version = x.app_version)
      ON CONFLICT (project_id, release_stage, app_version) DO NOTHING
      RETURNING project_id, release_stage, app_version, release_time`,
  )
  const created = inserted.map((r) => ({ projectId: r.project_id, releaseStage: r.release_stage, appVersion: r.app_version, releaseTime: new Date(r.release_time) }))
  await queueReleaseTriggers(tx, created)
  return created
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
