// Webhook configuration (GET|POST /projects/{id}/webhooks, GET|PATCH|DELETE /webhooks/{id}),
// the delivery log, redelivery and test notifications. Members read, admins change.
import { and, desc, eq, inArray, lt, or, sql } from 'drizzle-orm'
import type { Filters } from '../../contract/filters.ts'
import {
  FILTERED_TRIGGERS,
  type CreateWebhook,
  type UpdateWebhook,
  type Webhook,
  type WebhookDelivery,
  type WebhookFormat,
  type WebhookSettings,
  type WebhookTrigger,
} from '../../contract/webhooks.ts'
import type { ProjectScope } from '../auth/scope.ts'
import { withTransaction, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { webhookAttempts, webhookDeliveries, webhooks } from '../db/schema.ts'
import { NotFoundError, ValidationError } from '../failures.ts'
import { TEST_MESSAGE, type DeliveryDetails } from './payload.ts'
import { queueDeliveries } from './queue-deliveries.ts'
import { newWebhookSecret } from './signature.ts'
import { checkTargetUrl } from './target-url.ts'
import { DELIVERY_MAX_ATTEMPTS, type WebhookDeps } from './webhook-deps.ts'
import { WEBHOOK_DELIVER_JOB } from './webhook-job-kinds.ts'
import { enqueueJob } from '../jobs/jobs.ts'
import { checkWebhookFilters } from './webhook-filters.ts'

type WebhookRow = typeof webhooks.$inferSelect

/** Webhooks per project. */
export const MAX_WEBHOOKS_PER_PROJECT = 50
/** Deliveries per page of the log. */
export const DELIVERIES_PER_PAGE = 30

export function toWebhook(row: WebhookRow, secret?: string): Webhook {
  return {
    id: row.id,
    project_id: row.projectId,
    url: row.url,
    format: row.format as WebhookFormat,
    triggers: row.triggers as WebhookTrigger[],
    settings: row.settings as WebhookSettings,
    filters: row.filters as Filters,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    failing_since: row.failingSince?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    ...(secret !== undefined && { secret }),
  }
}

/** Settings the chosen triggers need, with their defaults; 400 when one is missing. */
function settingsFor(triggers: readonly WebhookTrigger[], settings: WebhookSettings): WebhookSettings {
  const out: WebhookSettings = {}
  if (triggers.includes('errorEventFrequency')) {
    if (!settings.errorEventFrequency) {
      throw new ValidationError('settings.errorEventFrequency: required with the errorEventFrequency trigger ({threshold, unit, hours})')
    }
    out.errorEventFrequency = settings.errorEventFrequency
  }
  if (triggers.includes('projectSpiking')) out.projectSpiking = settings.projectSpiking ?? { sensitivity: 'medium' }
  return out
}

function checkFilters(triggers: readonly WebhookTrigger[], filters: Filters, userId: string): void {
  if (Object.keys(filters).length === 0) return
  if (!triggers.some((t) => FILTERED_TRIGGERS.includes(t))) {
    throw new ValidationError(`filters: none of the chosen triggers takes filters (those that do: ${FILTERED_TRIGGERS.join(', ')})`)
  }
  checkWebhookFilters(filters, userId)
}

export async function listWebhooks(db: Db, { projectId }: ProjectScope): Promise<Webhook[]> {
  const rows = await db.select().from(webhooks).where(eq(webhooks.projectId, projectId)).orderBy(webhooks.createdAt, webhooks.id)
  return rows.map((row) => toWebhook(row))
}

/** For admins (the route says so). */
export async function createWebhook(db: Db, deps: WebhookDeps, { userId, projectId }: ProjectScope, input: CreateWebhook): Promise<Webhook> {
  const triggers = [...new Set(input.triggers)]
  const settings = settingsFor(triggers, input.settings)
  checkFilters(triggers, input.filters, userId)
  const url = await checkTargetUrl(input.url, deps.allow)
  const [{ n }] = (await db.select({ n: sql<number>`count(*)::int` }).from(webhooks).where(eq(webhooks.projectId, projectId))) as [{ n: number }]
  if (n >= MAX_WEBHOOKS_PER_PROJECT) throw new ValidationError(`a project has at most ${MAX_WEBHOOKS_PER_PROJECT} webhooks`)
  const secret = newWebhookSecret()
  const now = deps.clock()
  const [row] = await db
    .insert(webhooks)
    .values({ id: newId(), projectId, url, format: input.format, triggers, settings, filters: input.filters, enabled: input.enabled, secret, createdBy: userId, createdAt: now, updatedAt: now })
    .returning()
  return toWebhook(row!, secret)
}

/** The webhook, of the scope's project (the edge resolved the project through it); 404 otherwise. */
async function webhookFor(db: Db, { projectId }: ProjectScope, webhookId: string): Promise<{ row: WebhookRow }> {
  const [row] = await db.select().from(webhooks).where(and(eq(webhooks.id, webhookId), eq(webhooks.projectId, projectId))).limit(1)
  if (!row) throw new NotFoundError('Webhook')
  return { row }
}

export async function getWebhook(db: Db, scope: ProjectScope, webhookId: string): Promise<Webhook> {
  return toWebhook((await webhookFor(db, scope, webhookId)).row)
}

/** For admins, as the other changes below (the routes say so). */
export async function updateWebhook(db: Db, deps: WebhookDeps, scope: ProjectScope, webhookId: string, input: UpdateWebhook): Promise<Webhook> {
  const { userId } = scope
  const { row } = await webhookFor(db, scope, webhookId)
  const triggers = input.triggers ? [...new Set(input.triggers)] : (row.triggers as WebhookTrigger[])
  const settings = settingsFor(triggers, { ...(row.settings as WebhookSettings), ...input.settings })
  const filters = input.filters ?? (row.filters as Filters)
  checkFilters(triggers, filters, userId)
  const url = input.url !== undefined ? await checkTargetUrl(input.url, deps.allow) : row.url
  const enabling = input.enabled === true && !row.enabled
  const [updated] = await db
    .update(webhooks)
    .set({
      url,
      ...(input.format !== undefined && { format: input.format }),
      triggers,
      settings,
      filters,
      ...(input.enabled !== undefined && { enabled: input.enabled }),
      // Enabled again by a person: Errata's reason for disabling it no longer holds.
      ...((enabling || input.enabled === false) && { disabledReason: null }),
      ...(enabling && { failingSince: null }),
      updatedAt: deps.clock(),
    })
    .where(eq(webhooks.id, webhookId))
    .returning()
  return toWebhook(updated!)
}

export async function deleteWebhook(db: Db, scope: ProjectScope, webhookId: string): Promise<void> {
  await webhookFor(db, scope, webhookId)
  await db.delete(webhooks).where(eq(webhooks.id, webhookId))
}

/** Queues a test notification (no error member) and answers with its delivery. */
export async function testWebhook(db: Db, deps: WebhookDeps, scope: ProjectScope, webhookId: string): Promise<WebhookDelivery> {
  const { userId } = scope
  const { row } = await webhookFor(db, scope, webhookId)
  const trigger = (row.triggers[0] ?? 'exception') as WebhookTrigger
  const [id] = await withTransaction(db, async (tx) =>
    queueDeliveries(tx, [{ webhookId, projectId: row.projectId, trigger, details: { message: TEST_MESSAGE, userId, test: true } }], deps.clock(), true),
  )
  deps.wakeJobs()
  return (await deliveriesById(db, [id!]))[0]!
}

/** Sends a delivery again, under the same id (receivers that already took it drop it). */
export async function redeliver(db: Db, deps: WebhookDeps, scope: ProjectScope, webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
  await webhookFor(db, scope, webhookId)
  const now = deps.clock()
  await withTransaction(db, async (tx) => {
    const [row] = await tx
      .select({ id: webhookDeliveries.id, state: webhookDeliveries.state })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhookId, webhookId)))
      .for('update')
    if (!row) throw new NotFoundError('Delivery')
    await tx.update(webhookDeliveries).set({ state: 'pending', finishedAt: null }).where(eq(webhookDeliveries.id, deliveryId))
    // Keyed by delivery: asking twice while one attempt is queued queues one.
    await enqueueJob(tx, WEBHOOK_DELIVER_JOB, { deliveryId, manual: true }, now, { key: deliveryId, maxAttempts: DELIVERY_MAX_ATTEMPTS })
  })
  deps.wakeJobs()
  return (await deliveriesById(db, [deliveryId]))[0]!
}

async function deliveriesById(db: Db, ids: readonly string[]): Promise<WebhookDelivery[]> {
  if (ids.length === 0) return []
  const rows = await db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.id, [...ids])).orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
  const attempts = await db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, [...ids])).orderBy(webhookAttempts.attemptedAt, webhookAttempts.id)
  return rows.map((row) => ({
    id: row.id,
    webhook_id: row.webhookId,
    trigger: row.trigger as WebhookTrigger,
    test: (row.details as DeliveryDetails | null)?.test === true,
    state: row.state,
    attempts: row.attempts,
    last_status: row.lastStatus,
    last_error: row.lastError,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
    error_id: row.errorId,
    payload: row.body === null ? null : (JSON.parse(row.body) as unknown),
    attempt_log: attempts
      .filter((a) => a.deliveryId === row.id)
      .map((a) => ({
        attempted_at: a.attemptedAt.toISOString(),
        status: a.status,
        duration_ms: a.durationMs,
        error: a.error,
        response_excerpt: a.responseExcerpt,
      })),
  }))
}

/** The newest deliveries first, a page at a time (`before`: the last id of the previous page). */
export async function listDeliveries(db: Db, scope: ProjectScope, webhookId: string, before?: string): Promise<WebhookDelivery[]> {
  await webhookFor(db, scope, webhookId)
  let cursor: { createdAt: Date; id: string } | undefined
  if (before) {
    const [row] = await db.select({ createdAt: webhookDeliveries.createdAt, id: webhookDeliveries.id }).from(webhookDeliveries).where(and(eq(webhookDeliveries.id, before), eq(webhookDeliveries.webhookId, webhookId)))
    if (!row) throw new ValidationError('before: not a delivery of this webhook')
    cursor = row
  }
  const ids = await db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhookId, webhookId),
        cursor
          ? or(lt(webhookDeliveries.createdAt, cursor.createdAt), and(eq(webhookDeliveries.createdAt, cursor.createdAt), lt(webhookDeliveries.id, cursor.id)))
          : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(DELIVERIES_PER_PAGE)
  return deliveriesById(db, ids.map((r) => r.id))
}
