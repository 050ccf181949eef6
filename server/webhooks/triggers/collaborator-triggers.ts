// The triggers collaborators fire: errorStateManualChange (a status operation on errors) and
// comment. Queued in the transaction of the change itself, so a notification exists exactly when
// the change was committed.
import { and, eq, sql } from 'drizzle-orm'
import type { Filters } from '../../../contract/filters.ts'
import type { StateChange, WebhookTrigger } from '../../../contract/webhooks.ts'
import type { Db } from '../../db/client.ts'
import { errors, webhooks } from '../../db/schema.ts'
import { textArrayLiteral } from '../../db/text-array.ts'
import type { DeliveryDetails } from '../payload.ts'
import { queueDeliveries, type NewDelivery } from '../queue-deliveries.ts'
import { errorsMatching, hasFilters } from '../webhook-filters.ts'

/** The stateChange of a manual status change; null for a change the spec has no name for. */
export function stateChangeOf(from: string, to: string): StateChange | null {
  if (to === 'fixed') return 'fixed'
  if (to === 'snoozed') return 'snoozed'
  if (to === 'ignored') return 'ignored'
  if (to === 'open') return from === 'ignored' ? 'unignored' : from === 'snoozed' ? 'snoozeCancelled' : from === 'fixed' ? 'reopened' : null
  return null
}

const STATE_MESSAGES: Record<StateChange, string> = {
  fixed: 'Error marked as fixed',
  reopened: 'Error reopened',
  snoozed: 'Error snoozed',
  snoozeCancelled: 'Snooze cancelled',
  ignored: 'Error ignored',
  unignored: 'Error no longer ignored',
}

/** Webhooks of the project with `trigger`, each with the given errors its filters let through. */
async function hooksFor(tx: Db, projectId: string, trigger: WebhookTrigger, errorIds: readonly string[]) {
  const hooks = await tx
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.projectId, projectId), sql`${webhooks.enabled}`, sql`${trigger} = ANY(${webhooks.triggers})`))
  const out: Array<{ id: string; errorIds: Set<string> }> = []
  for (const hook of hooks) {
    const filters = hook.filters as Filters
    if (!hasFilters(filters)) {
      out.push({ id: hook.id, errorIds: new Set(errorIds) })
      continue
    }
    const rows = await tx
      .select({ id: errors.id })
      .from(errors)
      .where(and(sql`${errors.id} = ANY(${textArrayLiteral(errorIds)}::text[])`, errorsMatching(projectId, filters, hook.createdBy, new Date())))
    out.push({ id: hook.id, errorIds: new Set(rows.map((r) => r.id)) })
  }
  return out
}

export interface ManualChange {
  errorId: string
  from: string
  to: string
  /** The snooze rule set by a snooze (reopen_rules). */
  rules?: Record<string, unknown> | null
}

export async function queueStatusChangeTriggers(tx: Db, projectId: string, actorId: string, changes: readonly ManualChange[], snoozeRule?: DeliveryDetails['snoozeRule']): Promise<void> {
  const named = changes.map((c) => ({ ...c, stateChange: stateChangeOf(c.from, c.to) })).filter((c) => c.stateChange !== null)
  if (named.length === 0) return
  const hooks = await hooksFor(tx, projectId, 'errorStateManualChange', named.map((c) => c.errorId))
  const deliveries: NewDelivery[] = []
  for (const hook of hooks) {
    for (const change of named) {
      if (!hook.errorIds.has(change.errorId)) continue
      deliveries.push({
        webhookId: hook.id,
        projectId,
        trigger: 'errorStateManualChange',
        errorId: change.errorId,
        details: {
          message: STATE_MESSAGES[change.stateChange!],
          stateChange: change.stateChange!,
          userId: actorId,
          ...(change.stateChange === 'snoozed' && snoozeRule && { snoozeRule }),
        },
      })
    }
  }
  await queueDeliveries(tx, deliveries, new Date())
}

export async function queueCommentTriggers(
  tx: Db,
  projectId: string,
  errorId: string,
  authorId: string,
  comment: { id: string; message: string; createdAt: string },
): Promise<void> {
  const hooks = await hooksFor(tx, projectId, 'comment', [errorId])
  const deliveries: NewDelivery[] = hooks
    .filter((hook) => hook.errorIds.has(errorId))
    .map((hook) => ({ webhookId: hook.id, projectId, trigger: 'comment', errorId, details: { message: 'New comment', comment, userId: authorId } }))
  await queueDeliveries(tx, deliveries, new Date())
}
