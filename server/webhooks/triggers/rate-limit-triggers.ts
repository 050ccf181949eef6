// The rate-limit triggers (spec section 6): projectSamplingStarted and
// projectApproachingRateLimit. Their notices come from the index step's rate limiter
// (server/rate-limits/rate-limit-step.ts), which decides and deduplicates them in the batch's
// transaction; this queues one notification per notice for each enabled webhook of the project
// that wants it, in that same transaction. They carry no error member and take no filters.
import { sql } from 'drizzle-orm'
import { queryRows, type Db } from '../../db/client.ts'
import { textArrayLiteral } from '../../db/text-array.ts'
import type { RateLimitNotice } from '../../rate-limits/rate-limit-step.ts'
import { queueDeliveries, type NewDelivery } from '../queue-deliveries.ts'

export async function queueRateLimitTriggers(tx: Db, notices: readonly RateLimitNotice[], now = new Date()): Promise<void> {
  if (notices.length === 0) return
  const projectIds = [...new Set(notices.map((n) => n.projectId))]
  const hooks = await queryRows<{ id: string; project_id: string; triggers: string[] }>(
    tx,
    sql`SELECT id, project_id, triggers FROM webhooks
      WHERE enabled AND project_id = ANY(${textArrayLiteral(projectIds)}::text[])
        AND triggers && ARRAY['projectSamplingStarted', 'projectApproachingRateLimit']::text[]
      ORDER BY id`,
  )
  const deliveries: NewDelivery[] = hooks.flatMap((hook) =>
    notices
      .filter((n) => n.projectId === hook.project_id && hook.triggers.includes(n.trigger))
      .map((n) => ({ webhookId: hook.id, projectId: hook.project_id, trigger: n.trigger, details: { message: n.message } })),
  )
  await queueDeliveries(tx, deliveries, now)
}
