// The one way a notification is queued: a webhook_deliveries row and its job, in the caller's
// transaction (the index step's, a status change's, a comment's), so the notification exists
// exactly when what it reports on was committed.
import { sql } from 'drizzle-orm'
import type { WebhookTrigger } from '../../contract/webhooks.ts'
import type { Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { enqueueJobs } from '../jobs/jobs.ts'
import type { DeliveryDetails } from './payload.ts'
import { WEBHOOK_DELIVER_JOB, type DeliverJobPayload } from './webhook.jobs.ts'
import { DELIVERY_MAX_ATTEMPTS } from './webhook-deps.ts'

export interface NewDelivery {
  webhookId: string
  projectId: string
  trigger: WebhookTrigger
  errorId?: string | null
  eventId?: string | null
  details: DeliveryDetails
}

/** Queues the deliveries (two statements however many); returns their ids in order. */
export async function queueDeliveries(db: Db, deliveries: readonly NewDelivery[], now: Date, manual = false): Promise<string[]> {
  if (deliveries.length === 0) return []
  const rows = deliveries.map((d) => ({
    id: newId(now.getTime()),
    webhook_id: d.webhookId,
    project_id: d.projectId,
    trigger: d.trigger,
    error_id: d.errorId ?? null,
    event_id: d.eventId ?? null,
    details: d.details,
  }))
  await db.execute(sql`INSERT INTO webhook_deliveries (id, webhook_id, project_id, trigger, error_id, event_id, details, created_at)
    SELECT id, webhook_id, project_id, trigger, error_id, event_id, details, ${now.toISOString()}::timestamptz
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      AS x(id text, webhook_id text, project_id text, trigger text, error_id text, event_id text, details jsonb)`)
  const payloads: DeliverJobPayload[] = rows.map((r) => (manual ? { deliveryId: r.id, manual } : { deliveryId: r.id }))
  await enqueueJobs(db, WEBHOOK_DELIVER_JOB, payloads as unknown as Record<string, unknown>[], now, { maxAttempts: DELIVERY_MAX_ATTEMPTS })
  return rows.map((r) => r.id)
}
