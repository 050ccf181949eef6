// errorEventFrequency: an error receives x events, or affects x users, within y hours (the
// webhook's settings), at most one notification per window. A window opens at the first matching
// event after the previous window ended and lasts y hours (docs/webhooks.md).
import { sql } from 'drizzle-orm'
import type { WebhookSettings } from '../../../contract/webhooks.ts'
import { queryRows, type Db } from '../../db/client.ts'
import type { IndexedEvent } from '../../ingest/payload/event-row.ts'
import type { DeliveryDetails } from '../payload.ts'
import { readWindows, writeWindows } from './trigger-state.ts'

const HOUR_MS = 3_600_000
const TRIGGER = 'errorEventFrequency'

type Settings = NonNullable<WebhookSettings['errorEventFrequency']>

export async function frequencyDeliveries(
  tx: Db,
  webhookId: string,
  settings: Settings,
  matching: readonly IndexedEvent[],
  errorIdOf: (e: IndexedEvent) => string,
): Promise<Array<{ event: IndexedEvent; details: DeliveryDetails }>> {
  if (matching.length === 0) return []
  const windowMs = settings.hours * HOUR_MS
  const byError = new Map<string, IndexedEvent[]>()
  for (const e of matching) {
    const id = errorIdOf(e)
    const list = byError.get(id)
    if (list) list.push(e)
    else byError.set(id, [e])
  }
  const windows = await readWindows(tx, webhookId, TRIGGER, [...byError.keys()])
  const out: Array<{ event: IndexedEvent; details: DeliveryDetails }> = []
  const within = `within ${settings.hours} hour${settings.hours === 1 ? '' : 's'}`
  for (const [errorId, list] of byError) {
    let window = windows.get(errorId)
    for (const e of list) {
      if (!window || e.receivedAt.getTime() >= window.windowStart.getTime() + windowMs) {
        window = { windowStart: e.receivedAt, events: 0, notifiedAt: null }
      }
      window.events += 1
      if (settings.unit === 'events' && !window.notifiedAt && window.events >= settings.threshold) {
        window.notifiedAt = e.receivedAt
        out.push({ event: e, details: { message: `Error occurred ${window.events} times ${within}` } })
      }
    }
    if (settings.unit === 'users' && window && !window.notifiedAt) {
      // Distinct users of the error's events in the window, this batch's included (already written).
      const [row] = await queryRows<{ users: number | string }>(
        tx,
        sql`SELECT count(DISTINCT coalesce(user_id, user_email))::bigint AS users FROM events
          WHERE error_id = ${errorId} AND received_at >= ${window.windowStart.toISOString()}::timestamptz
            AND received_at < ${new Date(window.windowStart.getTime() + windowMs).toISOString()}::timestamptz`,
      )
      const users = Number(row?.users ?? 0)
      if (users >= settings.threshold) {
        const last = list[list.length - 1]!
        window.notifiedAt = last.receivedAt
        out.push({ event: last, details: { message: `Error affected ${users} users ${within}` } })
      }
    }
    windows.set(errorId, window!)
  }
  await writeWindows(tx, webhookId, TRIGGER, windows)
  return out
}
