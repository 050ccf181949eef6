// The two ways a notification is queued, both durable with what it reports on:
// - queueDeliveries: a webhook_deliveries row and its job, in the caller's transaction (a status
//   change's, a comment's, a release's, a test's, the rate-limit triggers': a few rows at a time);
// Both record, in the details, the state of each delivery's error as the firing transaction sees
// it (withErrorSnapshots), so the document describes the error when the trigger fired, however
// late it is built and sent.
// - deferDeliveries: what the ingest triggers use, where an `exception` webhook fires once per event.
//   The index transaction writes ONE job (kind webhook.expand) naming the batch's notifications;
//   the job runner then expands it into the same rows and jobs (expandDeliveries), so the
//   pipeline thread pays one row per batch instead of two rows, five index entries and three
//   foreign-key checks per event. The delivery ids are drawn when the batch fires, so expanding
//   twice (a run cut off after its commit) adds nothing, and the deliveries keep the order and
//   time of the batch that fired them.
import { sql, type SQL } from 'drizzle-orm'
import type { WebhookTrigger } from '../../contract/webhooks.ts'
import { queryRows, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { textArrayLiteral } from '../db/text-array.ts'
import { enqueueJob, insertJobsFrom } from '../jobs/jobs.ts'
import type { DeliveryDetails, ErrorSnapshot } from './payload.ts'
import { DELIVERY_MAX_ATTEMPTS } from './webhook-deps.ts'
import { WEBHOOK_DELIVER_JOB, WEBHOOK_EXPAND_JOB } from './webhook-job-kinds.ts'

export interface NewDelivery {
  webhookId: string
  projectId: string
  trigger: WebhookTrigger
  errorId?: string | null
  eventId?: string | null
  details: DeliveryDetails
}

/** A notification fired by an index batch, waiting in a webhook.expand job: its delivery id is already drawn. */
export interface DeferredDelivery extends NewDelivery {
  id: string
}

export interface ExpandJobPayload {
  /** When the batch fired: the deliveries' created_at, and when their jobs fall due. */
  firedAt: string
  deliveries: DeferredDelivery[]
}

/**
 * Queues the deliveries and their jobs in one statement however many (one parameter, parsed once);
 * returns their ids in order.
 */
export async function queueDeliveries(db: Db, queued: readonly NewDelivery[], now: Date, manual = false): Promise<string[]> {
  if (queued.length === 0) return []
  const deliveries = await withErrorSnapshots(db, queued)
  const rows = deliveries.map((d) => ({
    id: newId(now.getTime()),
    webhook_id: d.webhookId,
    project_id: d.projectId,
    trigger: d.trigger,
    error_id: d.errorId ?? null,
    event_id: d.eventId ?? null,
    details: d.details,
  }))
  await db.execute(sql`WITH x AS MATERIALIZED (
      SELECT x.*, ${now.toISOString()}::timestamptz AS created_at FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        AS x(id text, webhook_id text, project_id text, trigger text, error_id text, event_id text, details jsonb)
    ), ${deliveriesAndJobs({ manual, onlyWhatExists: false })}
    SELECT 1`)
  return rows.map((r) => r.id)
}

/**
 * Queues the notifications an index batch fired as one webhook.expand job, in the index
 * transaction (the job is what makes them durable; the runner expands it after the commit).
 */
export async function deferDeliveries(db: Db, fired: readonly NewDelivery[], now: Date): Promise<void> {
  if (fired.length === 0) return
  const deliveries = await withErrorSnapshots(db, fired)
  const payload: ExpandJobPayload = { firedAt: now.toISOString(), deliveries: deliveries.map((d) => ({ ...d, id: newId(now.getTime()) })) }
  await enqueueJob(db, WEBHOOK_EXPAND_JOB, payload as unknown as Record<string, unknown>, now)
}

/** The deliveries with their errors' current state in their details (one query for all of them). */
async function withErrorSnapshots(db: Db, deliveries: readonly NewDelivery[]): Promise<NewDelivery[]> {
  const ids = [...new Set(deliveries.flatMap((d) => (d.errorId ? [d.errorId] : [])))]
  if (ids.length === 0) return [...deliveries]
  // Plain SQL through queryRows: the index step's transaction may be driven from another thread.
  const rows = await queryRows<{ id: string; status: string; assigned_collaborator_id: string | null; severity_override: string | null; linked_issue_url: string | null }>(
    db,
    sql`SELECT id, status, assigned_collaborator_id, severity_override, linked_issue_url FROM errors WHERE id = ANY(${textArrayLiteral(ids)}::text[])`,
  )
  const snapshots = new Map<string, ErrorSnapshot>(
    rows.map((r) => [r.id, { status: r.status, assignedCollaboratorId: r.assigned_collaborator_id, severityOverride: r.severity_override, linkedIssueUrl: r.linked_issue_url }]),
  )
  return deliveries.map((d) => {
    const error = d.errorId ? snapshots.get(d.errorId) : undefined
    return error ? { ...d, details: { ...d.details, error } } : d
  })
}

/**
 * A webhook.expand job's deliveries and their jobs, in one statement straight from the stored
 * job: `job` is a query yielding the jobs row (`payload`, an ExpandJobPayload), for the runner
 * the claim's JobContext.heldRow (which fences it), so the notifications are never read back
 * into JavaScript. Idempotent: a delivery already written is skipped. What was deleted since the
 * batch fired is skipped too: a webhook, and an event or error (a privacy deletion among them),
 * whose data must not be sent later. Answers whether `job` yielded its row, and how many
 * deliveries were written.
 */
export async function expandDeliveries(db: Db, job: SQL): Promise<{ held: boolean; written: number }> {
  const [result] = await queryRows<{ held: number; written: number }>(
    db,
    // The payload is read once, in `job` (a large one is stored compressed: each access unpacks it).
    sql`WITH job AS MATERIALIZED (
        SELECT j.payload->'deliveries' AS deliveries, (j.payload->>'firedAt')::timestamptz AS fired_at FROM (${job}) j
      ), x AS MATERIALIZED (
        SELECT d.id, d."webhookId" AS webhook_id, d."projectId" AS project_id, d.trigger, d."errorId" AS error_id,
          d."eventId" AS event_id, d.details, job.fired_at AS created_at
        FROM job, jsonb_to_recordset(job.deliveries)
          AS d(id text, "webhookId" text, "projectId" text, trigger text, "errorId" text, "eventId" text, details jsonb)
      ), ${deliveriesAndJobs({ manual: false, onlyWhatExists: true })}
      SELECT (SELECT count(*) FROM job)::int AS held, (SELECT count(*) FROM queued)::int AS written`,
  )
  return { held: result!.held > 0, written: result!.written }
}

/**
 * What both ways share, as the CTEs to follow a CTE `x` of deliveries (id, webhook_id, project_id,
 * trigger, error_id, event_id, details, created_at): `delivery` writes them (ON CONFLICT (id):
 * none twice), `queued` a webhook.deliver job for each one written, due at its created_at and
 * with the delivery's id (a delivery's first job; a redelivery's has its own).
 */
function deliveriesAndJobs(options: { manual: boolean; onlyWhatExists: boolean }): SQL {
  const stillThere = options.onlyWhatExists
    ? sql`WHERE EXISTS (SELECT 1 FROM webhooks w WHERE w.id = x.webhook_id)
        AND (x.event_id IS NULL OR EXISTS (SELECT 1 FROM events e WHERE e.id = x.event_id))
        AND (x.error_id IS NULL OR EXISTS (SELECT 1 FROM errors r WHERE r.id = x.error_id))`
    : sql``
  // The job's payload is a DeliverJobPayload, built here from the delivery's id.
  const payload = options.manual ? sql`jsonb_build_object('deliveryId', x.id, 'manual', true)` : sql`jsonb_build_object('deliveryId', x.id)`
  return sql`delivery AS (
      INSERT INTO webhook_deliveries (id, webhook_id, project_id, trigger, error_id, event_id, details, created_at)
      SELECT id, webhook_id, project_id, trigger, error_id, event_id, details, created_at FROM x
      ${stillThere}
      ON CONFLICT (id) DO NOTHING
      RETURNING id
    ), queued AS (
      ${insertJobsFrom(sql`SELECT x.id, ${payload}, x.created_at FROM delivery JOIN x USING (id)`, WEBHOOK_DELIVER_JOB, { maxAttempts: DELIVERY_MAX_ATTEMPTS })}
      RETURNING 1
    )`
}
