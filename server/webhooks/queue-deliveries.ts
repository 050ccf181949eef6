// The one way a notification is queued: a webhook_deliveries row and its job, in the caller's
// transaction (the index step's, a status change's, a comment's), so the notification exists
// exactly when what it reports on was committed.
import { sql } from 'drizzle-orm'
import type { WebhookTrigger } from '../../contract/webhooks.ts'
import type { Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { insertJobsFrom } from '../jobs/jobs.ts'
import type { DeliveryDetails } from './payload.ts'
import { WEBHOOK_DELIVER_JOB } from './webhook.jobs.ts'
import { DELIVERY_MAX_ATTEMPTS } from './webhook-deps.ts'

export interface NewDelivery {
  webhookId: string
  projectId: string
  trigger: WebhookTrigger
  errorId?: string | null
  eventId?: string | null
  details: DeliveryDetails
}

/**
 * Queues the deliveries and their jobs in one statement however many (one parameter, parsed once:
 * the index step pays this per event of an `exception` webhook); returns their ids in order.
 */
export async function queueDeliveries(db: Db, deliveries: readonly NewDelivery[], now: Date, manual = false): Promise<string[]> {
  if (deliveries.length === 0) return []
  const rows = deliveries.map((d) => ({
    id: newId(now.getTime()),
    job_id: newId(),
    webhook_id: d.webhookId,
    project_id: d.projectId,
    trigger: d.trigger,
    error_id: d.errorId ?? null,
    event_id: d.eventId ?? null,
    details: d.details,
  }))
  // The job's payload is a DeliverJobPayload, built here from the delivery's id.
  const payload = manual ? sql`jsonb_build_object('deliveryId', x.id, 'manual', true)` : sql`jsonb_build_object('deliveryId', x.id)`
  await db.execute(sql`WITH x AS MATERIALIZED (
      SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        AS x(id text, job_id text, webhook_id text, project_id text, trigger text, error_id text, event_id text, details jsonb)
    ), delivery AS (
      INSERT INTO webhook_deliveries (id, webhook_id, project_id, trigger, error_id, event_id, details, created_at)
      SELECT id, webhook_id, project_id, trigger, error_id, event_id, details, ${now.toISOString()}::timestamptz FROM x
    )
    ${insertJobsFrom(sql`SELECT x.job_id, ${payload} FROM x`, WEBHOOK_DELIVER_JOB, now, { maxAttempts: DELIVERY_MAX_ATTEMPTS })}`)
  return rows.map((r) => r.id)
}
