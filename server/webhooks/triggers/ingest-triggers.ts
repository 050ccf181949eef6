// The triggers that received events fire (spec section 6): firstException, exception,
// powerTen, errorEventFrequency, reopened and projectSpiking (release: release-triggers.ts, where
// releases are created). Evaluated in the
// ingestion index step, inside the batch's transaction (server/ingest/index/index-events.ts), so
// a notification is queued exactly when its events are committed, and once (as one job per batch,
// which the job runner expands into the deliveries: queue-deliveries.ts); never on the HTTP
// thread. A batch whose projects have no enabled webhook costs one indexed query; the rest is a handful of statements per batch however
// many events it holds.
import { and, sql } from 'drizzle-orm'
import type { Filters } from '../../../contract/filters.ts'
import type { WebhookSettings, WebhookTrigger } from '../../../contract/webhooks.ts'
import { queryRows, type Db } from '../../db/client.ts'
import { events, webhooks } from '../../db/schema.ts'
import { textArrayLiteral } from '../../db/text-array.ts'
import type { IndexedEvent } from '../../ingest/payload/event-row.ts'
import type { Reopened, WriteOutcome } from '../../ingest/index/write-events.ts'
import type { DeliveryDetails } from '../payload.ts'
import { deferDeliveries, type NewDelivery } from '../queue-deliveries.ts'
import { eventsMatching, hasFilters } from '../webhook-filters.ts'
import { frequencyDeliveries } from './frequency.ts'
import { spikeDeliveries } from './spike.ts'

type WebhookRow = Pick<typeof webhooks.$inferSelect, 'id' | 'projectId' | 'triggers' | 'settings' | 'filters' | 'createdBy'>

/** powerTen fires when an error's count reaches 10, 100, 1000, then every further 1000. */
export function powerTenThresholds(before: number, after: number): number[] {
  const out: number[] = []
  for (const t of [10, 100, 1000]) if (before < t && after >= t) out.push(t)
  for (let t = Math.max(2000, (Math.floor(before / 1000) + 1) * 1000); t <= after; t += 1000) out.push(t)
  return out
}

/** The snooze rule of a reopened error, as trigger.snoozeRule names it. */
export function snoozeRuleOf(rules: Record<string, unknown> | null): DeliveryDetails['snoozeRule'] {
  if (!rules) return undefined
  switch (rules.reopen_if) {
    case 'n_additional_occurrences':
      return { type: 'occurrences', ruleValue: Number(rules.additional_occurrences) }
    case 'n_occurrences_in_m_hours':
      // ruleValue occurrences within `hours`: the rule as set, not a rate per hour.
      return { type: 'occurrence_per_hour', ruleValue: Number(rules.occurrences), hours: Number(rules.hours) }
    case 'occurs_after':
      return { type: 'occurs_after', ruleValue: Math.round(Number(rules.seconds) / 60) }
    default:
      return undefined
  }
}

const wants = (w: WebhookRow, trigger: WebhookTrigger) => w.triggers.includes(trigger)

/** Run before writeEvents: the batch's webhooks, and what the triggers must know from before it. */
export async function prepareIngestTriggers(tx: Db, batch: readonly IndexedEvent[]): Promise<IngestTriggers> {
  const projectIds = [...new Set(batch.map((e) => e.projectId))]
  // Plain SQL through queryRows, as every statement of the index step: the batch's transaction may be
  // driven from another thread (server/db/pglite-thread.ts), where only statements travel.
  const hooks = (
    await queryRows<{ id: string; project_id: string; triggers: string[]; settings: unknown; filters: unknown; created_by: string | null }>(
      tx,
      sql`SELECT id, project_id, triggers, settings, filters, created_by FROM webhooks
        WHERE enabled AND project_id = ANY(${textArrayLiteral(projectIds)}::text[])`,
    )
  ).map((r) => ({ id: r.id, projectId: r.project_id, triggers: r.triggers, settings: r.settings, filters: r.filters, createdBy: r.created_by }))
  if (hooks.length === 0) return { hooks, stagesBefore: new Map() }
  // firstException is per release stage: the stages each existing error had before this batch.
  const stagesBefore = new Map<string, Set<string>>()
  const withFirst = new Set(hooks.filter((w) => wants(w, 'firstException')).map((w) => w.projectId))
  const keys = [...new Map(batch.filter((e) => withFirst.has(e.projectId)).map((e) => [`${e.projectId}\u0000${e.grouping.hash}`, e])).values()]
  if (keys.length > 0) {
    const rows = await queryRows<{ project_id: string; grouping_hash: string; release_stages: string[] }>(
      tx,
      sql`SELECT e.project_id, e.grouping_hash, e.release_stages FROM errors e
        JOIN (VALUES ${sql.join(keys.map((k) => sql`(${k.projectId}, ${k.grouping.hash})`), sql`, `)}) AS k(project_id, grouping_hash)
          ON e.project_id = k.project_id AND e.grouping_hash = k.grouping_hash`,
    )
    for (const row of rows) stagesBefore.set(`${row.project_id}\u0000${row.grouping_hash}`, new Set(row.release_stages))
  }
  return { hooks, stagesBefore }
}

export interface IngestTriggers {
  hooks: WebhookRow[]
  stagesBefore: Map<string, Set<string>>
}

/**
 * Run after writeEvents, in the same transaction: queues every notification the batch fires, as
 * one job the runner expands into the deliveries after the commit (queue-deliveries.ts).
 */
export async function queueIngestTriggers(tx: Db, batch: readonly IndexedEvent[], outcome: WriteOutcome, triggers: IngestTriggers): Promise<void> {
  if (triggers.hooks.length === 0) return
  const now = new Date()
  const ordered = [...batch].sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const byProject = new Map<string, IndexedEvent[]>()
  for (const e of ordered) {
    const list = byProject.get(e.projectId)
    if (list) list.push(e)
    else byProject.set(e.projectId, [e])
  }
  const reopenedById = new Map<string, Reopened>(outcome.reopened.map((r) => [r.id, r]))
  const deliveries: NewDelivery[] = []
  for (const hook of triggers.hooks) {
    const projectEvents = byProject.get(hook.projectId)
    if (!projectEvents) continue
    const filters = hook.filters as Filters
    // Events of this batch the webhook's filters let through (all when it has none).
    let matching: Set<string> | null = null
    if (hasFilters(filters) && hook.triggers.some((t) => t !== 'powerTen' && t !== 'release')) {
      const ids = projectEvents.map((e) => e.id)
      const rows = await queryRows<{ id: string }>(
        tx,
        sql`SELECT ${events.id} AS id FROM ${events}
          WHERE ${and(sql`${events.id} = ANY(${textArrayLiteral(ids)}::text[])`, eventsMatching(hook.projectId, filters, hook.createdBy, now))}`,
      )
      matching = new Set(rows.map((r) => r.id))
    }
    const matches = (e: IndexedEvent) => matching === null || matching.has(e.id)
    const add = (trigger: WebhookTrigger, details: DeliveryDetails, e?: IndexedEvent, errorId?: string) =>
      deliveries.push({ webhookId: hook.id, projectId: hook.projectId, trigger, errorId: errorId ?? (e ? outcome.errorIdOf(e) : null), eventId: e?.id ?? null, details })

    if (wants(hook, 'exception')) {
      for (const e of projectEvents) if (matches(e)) add('exception', { message: `${e.columns.errorClass || 'Error'} occurred` }, e)
    }
    if (wants(hook, 'firstException')) {
      const fired = new Set<string>()
      for (const e of projectEvents) {
        const groupKey = `${e.projectId}\u0000${e.grouping.hash}`
        const key = `${groupKey}\u0000${e.columns.releaseStage}`
        if (fired.has(key)) continue
        fired.add(key)
        const isNewError = outcome.createdErrorIds.has(outcome.errorIdOf(e))
        const stageSeen = !isNewError && (triggers.stagesBefore.get(groupKey)?.has(e.columns.releaseStage) ?? true)
        if (!stageSeen && matches(e)) {
          add('firstException', { message: isNewError ? 'New error' : `First occurrence in ${e.columns.releaseStage}` }, e)
        }
      }
    }
    if (wants(hook, 'powerTen')) {
      const seenInBatch = new Map<string, number>()
      for (const e of projectEvents) {
        const errorId = outcome.errorIdOf(e)
        seenInBatch.set(errorId, (seenInBatch.get(errorId) ?? 0) + 1)
      }
      const position = new Map<string, number>()
      for (const e of projectEvents) {
        const errorId = outcome.errorIdOf(e)
        const after = outcome.eventsCount.get(errorId) ?? 0
        const before = after - seenInBatch.get(errorId)!
        const n = before + (position.get(errorId) ?? 0) + 1
        position.set(errorId, n - before)
        // The event that brought the count to the threshold carries the notification.
        if (powerTenThresholds(n - 1, n).length > 0) add('powerTen', { message: `Error has occurred ${n.toLocaleString('en-US')} times` }, e)
      }
    }
    if (wants(hook, 'reopened')) {
      const fired = new Set<string>()
      for (const e of projectEvents) {
        const errorId = outcome.errorIdOf(e)
        const reopened = reopenedById.get(errorId)
        if (!reopened || fired.has(errorId) || !matches(e)) continue
        fired.add(errorId)
        add('reopened', { message: `Error reopened (it was ${reopened.from})`, ...(reopened.from === 'snoozed' && { snoozeRule: snoozeRuleOf(reopened.rules) }) }, e)
      }
    }
    if (wants(hook, 'errorEventFrequency')) {
      const settings = (hook.settings as WebhookSettings).errorEventFrequency
      if (settings) {
        for (const d of await frequencyDeliveries(tx, hook.id, settings, projectEvents.filter(matches), outcome.errorIdOf)) add('errorEventFrequency', d.details, d.event)
      }
    }
    if (wants(hook, 'projectSpiking')) {
      const settings = (hook.settings as WebhookSettings).projectSpiking ?? { sensitivity: 'medium' as const }
      for (const d of await spikeDeliveries(tx, hook.id, hook.projectId, settings, projectEvents.filter(matches))) add('projectSpiking', d.details, d.event)
    }
  }
  await deferDeliveries(tx, deliveries, now)
}
