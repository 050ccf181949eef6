// The release trigger (spec section 6: "a new release is created automatically (from an error or
// session) or through the build API"). Every place that creates a release (server/releases/
// create-release.ts) calls this in the transaction that created it, with what it created.
import { sql } from 'drizzle-orm'
import { queryRows, type Db } from '../../db/client.ts'
import { textArrayLiteral } from '../../db/text-array.ts'
import type { ReleaseBuild } from '../payload.ts'
import { queueDeliveries, type NewDelivery } from '../queue-deliveries.ts'

export interface CreatedRelease {
  projectId: string
  releaseStage: string
  appVersion: string
  releaseTime: Date
  /** The build details of a release a build report created. */
  build?: ReleaseBuild
}

/** Queues a `release` notification per created release for each enabled webhook of its project that wants one. */
export async function queueReleaseTriggers(tx: Db, created: readonly CreatedRelease[], now = new Date()): Promise<void> {
  if (created.length === 0) return
  const projectIds = [...new Set(created.map((r) => r.projectId))]
  // The release trigger takes no filters (spec section 6 lists the triggers that do).
  const hooks = await queryRows<{ id: string; project_id: string }>(
    tx,
    sql`SELECT id, project_id FROM webhooks
      WHERE enabled AND 'release' = ANY(triggers) AND project_id = ANY(${textArrayLiteral(projectIds)}::text[])
      ORDER BY id`,
  )
  const deliveries: NewDelivery[] = hooks.flatMap((hook) =>
    created
      .filter((r) => r.projectId === hook.project_id)
      .map((r) => ({
        webhookId: hook.id,
        projectId: hook.project_id,
        trigger: 'release' as const,
        details: {
          message: `New release ${r.appVersion} in ${r.releaseStage}`,
          release: { version: r.appVersion, releaseStage: r.releaseStage, releaseTime: r.releaseTime.toISOString(), ...r.build },
        },
      })),
  )
  await queueDeliveries(tx, deliveries, now)
}
