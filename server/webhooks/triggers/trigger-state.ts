// Windows of the triggers that count (errorEventFrequency per error, projectSpiking per
// project), in webhook_trigger_state: read locked at the start of the batch's work, written back
// in one statement. The batch's transaction holds its projects' write locks, so no other indexer
// counts the same project meanwhile.
import { sql } from 'drizzle-orm'
import { queryRows, type Db } from '../../db/client.ts'
import { textArrayLiteral } from '../../db/text-array.ts'

export interface TriggerWindow {
  windowStart: Date
  events: number
  notifiedAt: Date | null
}

export async function readWindows(tx: Db, webhookId: string, trigger: string, subjectIds: readonly string[]): Promise<Map<string, TriggerWindow>> {
  const rows = await queryRows<{ subject_id: string; window_start: Date | string; events: number | string; notified_at: Date | string | null }>(
    tx,
    sql`SELECT subject_id, window_start, events, notified_at FROM webhook_trigger_state
      WHERE webhook_id = ${webhookId} AND trigger = ${trigger} AND subject_id = ANY(${textArrayLiteral(subjectIds)}::text[])
      ORDER BY subject_id FOR UPDATE`,
  )
  return new Map(
    rows.map((r) => [r.subject_id, { windowStart: new Date(r.window_start), events: Number(r.events), notifiedAt: r.notified_at === null ? null : new Date(r.notified_at) }]),
  )
}

export async function writeWindows(tx: Db, webhookId: string, trigger: string, windows: Map<string, TriggerWindow>): Promise<void> {
  if (windows.size === 0) return
  const rows = [...windows]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([subject, w]) => ({ subject_id: subject, window_start: w.windowStart.toISOString(), events: w.events, notified_at: w.notifiedAt?.toISOString() ?? null }))
  await tx.execute(sql`INSERT INTO webhook_trigger_state (webhook_id, trigger, subject_id, window_start, events, notified_at)
    SELECT ${webhookId}, ${trigger}, subject_id, window_start, events, notified_at
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(subject_id text, window_start timestamptz, events bigint, notified_at timestamptz)
    ON CONFLICT (webhook_id, trigger, subject_id) DO UPDATE SET
      window_start = excluded.window_start, events = excluded.events, notified_at = excluded.notified_at`)
}
