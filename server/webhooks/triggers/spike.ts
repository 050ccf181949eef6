// projectSpiking: the project's matching events in the current clock hour against its baseline,
// the average hourly events of the 24 hours before (from project_hourly_counts). A spike is at
// least FACTOR × baseline and at least MINIMUM events in the hour, by sensitivity; at most one
// notification per hour (docs/webhooks.md). trigger.rate is the hour's events so far.
import { sql } from 'drizzle-orm'
import type { WebhookSettings } from '../../../contract/webhooks.ts'
import { queryRows, type Db } from '../../db/client.ts'
import type { IndexedEvent } from '../../ingest/payload/event-row.ts'
import type { DeliveryDetails } from '../payload.ts'
import { readWindows, writeWindows } from './trigger-state.ts'

const HOUR_MS = 3_600_000
const TRIGGER = 'projectSpiking'

export const SPIKE_RULES = {
  high: { factor: 2, minimum: 20 },
  medium: { factor: 5, minimum: 50 },
  low: { factor: 10, minimum: 100 },
} as const

type Settings = NonNullable<WebhookSettings['projectSpiking']>

const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS)

export async function spikeDeliveries(
  tx: Db,
  webhookId: string,
  projectId: string,
  settings: Settings,
  matching: readonly IndexedEvent[],
): Promise<Array<{ event: IndexedEvent; details: DeliveryDetails }>> {
  if (matching.length === 0) return []
  const rule = SPIKE_RULES[settings.sensitivity]
  const windows = await readWindows(tx, webhookId, TRIGGER, [projectId])
  let window = windows.get(projectId)
  const out: Array<{ event: IndexedEvent; details: DeliveryDetails }> = []
  const byHour = new Map<number, IndexedEvent[]>()
  for (const e of matching) {
    const hour = hourOf(e.receivedAt).getTime()
    const list = byHour.get(hour)
    if (list) list.push(e)
    else byHour.set(hour, [e])
  }
  for (const [hour, list] of [...byHour].sort((a, b) => a[0] - b[0])) {
    if (!window || window.windowStart.getTime() < hour) window = { windowStart: new Date(hour), events: 0, notifiedAt: null }
    // Late events of an hour already past count nowhere: the spike is about now.
    if (window.windowStart.getTime() !== hour) continue
    window.events += list.length
    if (window.notifiedAt || window.events < rule.minimum) continue
    const [row] = await queryRows<{ events: number | string | null }>(
      tx,
      sql`SELECT sum(events)::bigint AS events FROM project_hourly_counts
        WHERE project_id = ${projectId} AND hour >= ${new Date(hour - 24 * HOUR_MS).toISOString()}::timestamptz
          AND hour < ${new Date(hour).toISOString()}::timestamptz`,
    )
    const baseline = Number(row?.events ?? 0) / 24
    if (window.events >= rule.factor * baseline) {
      const last = list[list.length - 1]!
      window.notifiedAt = last.receivedAt
      out.push({
        event: last,
        details: { message: `Project is spiking: ${window.events} events this hour against about ${Math.round(baseline)} an hour over the last day`, rate: window.events },
      })
    }
  }
  windows.set(projectId, window!)
  await writeWindows(tx, webhookId, TRIGGER, windows)
  return out
}
