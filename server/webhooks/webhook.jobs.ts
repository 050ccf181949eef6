// Delivering webhooks as jobs (server/jobs). A webhook.expand job turns the notifications an index
// batch fired into their deliveries and delivery jobs, in one statement that fences it (so a
// lost lease writes nothing; expanding again skips what is written). Then one job per delivery, retried by the runner with
// the webhook schedule (webhook-deps.ts) on timeouts, network errors and 5xx. Each attempt is
// recorded, in the transaction that fences the job, beside the delivery's state; a job cut off by
// a crash runs again and sends the same body under the same delivery id (at-least-once; receivers
// drop duplicates by X-Errata-Delivery).
import { eq, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { WebhookFormat, WebhookTrigger } from '../../contract/webhooks.ts'
import { queryRows, withTransaction, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { errors, webhookAttempts, webhookDeliveries, webhooks } from '../db/schema.ts'
import { formatBody } from './formats/format-body.ts'
import type { ErrorCounts } from './formats/message.ts'
import { LeaseLostError, type JobHandler } from '../jobs/jobs.ts'
import { buildPayload, type DeliveryDetails } from './payload.ts'
import { expandDeliveries } from './queue-deliveries.ts'
import { sendDelivery, type AttemptOutcome } from './send.ts'
import { FAILING_DISABLE_DAYS, type WebhookDeps } from './webhook-deps.ts'
import { WEBHOOK_DELIVER_JOB, WEBHOOK_EXPAND_JOB } from './webhook-job-kinds.ts'

export interface DeliverJobPayload {
  deliveryId: string
  /** A test or a redelivery someone asked for: sent even while the webhook is disabled. */
  manual?: boolean
}

const DAY_MS = 86_400_000

/**
 * The delivery's body, in the webhook's format: built on its first attempt and kept, so every
 * attempt sends the same bytes (a format changed later applies to later deliveries).
 */
async function bodyOf(db: Db, deps: WebhookDeps, delivery: typeof webhookDeliveries.$inferSelect, format: WebhookFormat): Promise<string> {
  if (delivery.body !== null) return delivery.body
  const details = delivery.details as DeliveryDetails
  const document = await buildPayload(db, deps.urls, {
    projectId: delivery.projectId,
    trigger: delivery.trigger as WebhookTrigger,
    errorId: delivery.errorId,
    eventId: delivery.eventId,
    details,
  })
  let counts: ErrorCounts | null = null
  if (format !== 'errata' && delivery.errorId) {
    const [error] = await db.select({ events: errors.eventsCount, users: errors.usersCount }).from(errors).where(eq(errors.id, delivery.errorId)).limit(1)
    if (error) counts = { events: Number(error.events), users: Number(error.users) }
  }
  const body = formatBody(format, document, { test: details.test === true, counts, now: deps.clock() })
  const [row] = await queryRows<{ body: string }>(
    db,
    sql`UPDATE webhook_deliveries SET body = coalesce(body, ${JSON.stringify(body)}) WHERE id = ${delivery.id} RETURNING body`,
  )
  return row!.body
}

async function finishFailed(tx: Db, deliveryId: string, reason: string, now: Date): Promise<void> {
  await tx
    .update(webhookDeliveries)
    .set({ state: 'failed', lastError: reason, finishedAt: now })
    .where(sql`${webhookDeliveries.id} = ${deliveryId} AND ${webhookDeliveries.state} = 'pending'`)
}

export function webhookJobHandlers(db: Db, deps: WebhookDeps, logger: Logger): JobHandler<never>[] {
  const deliver: JobHandler<DeliverJobPayload> = {
    kind: WEBHOOK_DELIVER_JOB,
    retryDelayMs: (attempt) => deps.retryDelayMs(attempt),
    async run(job) {
      const [found] = await db
        .select({ delivery: webhookDeliveries, webhook: webhooks })
        .from(webhookDeliveries)
        .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
        .where(eq(webhookDeliveries.id, job.payload.deliveryId))
        .limit(1)
      // The webhook was deleted, or this delivery already ended (a run cut off after recording it).
      if (!found || found.delivery.state !== 'pending') return
      const { delivery, webhook } = found
      if (!webhook.enabled && !job.payload.manual) {
        await withTransaction(db, async (tx) => {
          await job.fence(tx)
          await finishFailed(tx, delivery.id, 'not sent: the webhook is disabled', deps.clock())
        })
        return
      }
      const body = await bodyOf(db, deps, delivery, webhook.format as WebhookFormat)
      job.signal.throwIfAborted()
      const attemptedAt = deps.clock()
      // A stop or a lost lease aborts the request at once and the attempt is not recorded (the
      // runner hands the job back, or the claim that took it over sends it).
      const outcome = await sendDelivery(webhook.url, { id: delivery.id, body, secret: webhook.secret, trigger: delivery.trigger }, attemptedAt, {
        allow: deps.allow,
        timeoutMs: deps.timeoutMs,
        maxResponseBytes: deps.maxResponseBytes,
        signal: job.signal,
      })
      const delivered = outcome.error === null
      const retry = !delivered && outcome.retryable && job.attempt < job.maxAttempts
      await withTransaction(db, async (tx) => {
        await job.fence(tx)
        await recordAttempt(tx, delivery.id, webhook.id, attemptedAt, outcome, delivered ? 'delivered' : retry ? 'pending' : 'failed')
      })
      if (retry) throw new Error(outcome.error ?? 'delivery failed')
      if (!delivered) logger.warn({ delivery: delivery.id, webhook: webhook.id, error: outcome.error }, 'webhook delivery failed; giving up')
    },
    async failed(tx, job) {
      await finishFailed(tx, job.payload.deliveryId, job.error, deps.clock())
    },
  }
  const expand: JobHandler<Record<string, never>> = {
    kind: WEBHOOK_EXPAND_JOB,
    // The notifications are expanded in SQL from the stored job (expandDeliveries): a batch's
    // worth, never read back into JavaScript.
    readsPayload: false,
    async run(job) {
      // One statement, fenced by the job's held row: a lost lease writes nothing. The runner
      // looks for due jobs again when this one ends: the deliveries start at once.
      const { held } = await expandDeliveries(db, job.heldRow)
      if (!held) throw new LeaseLostError(job.id)
    },
  }
  return [deliver as unknown as JobHandler<never>, expand as unknown as JobHandler<never>]

  async function recordAttempt(
    tx: Db,
    deliveryId: string,
    webhookId: string,
    at: Date,
    outcome: AttemptOutcome,
    state: 'pending' | 'delivered' | 'failed',
  ): Promise<void> {
    await tx.insert(webhookAttempts).values({
      id: newId(),
      deliveryId,
      attemptedAt: at,
      status: outcome.status,
      durationMs: outcome.durationMs,
      error: outcome.error,
      responseExcerpt: outcome.responseExcerpt,
    })
    await tx
      .update(webhookDeliveries)
      .set({
        state,
        attempts: sql`${webhookDeliveries.attempts} + 1`,
        lastStatus: outcome.status,
        lastError: outcome.error,
        finishedAt: state === 'pending' ? null : at,
      })
      .where(eq(webhookDeliveries.id, deliveryId))
    if (state === 'delivered') {
      await tx.update(webhooks).set({ failingSince: null }).where(eq(webhooks.id, webhookId))
      return
    }
    // Failing since the first failure after the last success; for long enough, disabled.
    const disableBefore = new Date(at.getTime() - FAILING_DISABLE_DAYS * DAY_MS).toISOString()
    await tx.execute(sql`UPDATE webhooks SET failing_since = coalesce(failing_since, ${at.toISOString()}::timestamptz),
        enabled = CASE WHEN failing_since < ${disableBefore}::timestamptz THEN false ELSE enabled END,
        disabled_reason = CASE WHEN enabled AND failing_since < ${disableBefore}::timestamptz THEN 'failing' ELSE disabled_reason END
      WHERE id = ${webhookId}`)
  }
}
