// Spiking errors for email alerts: in projects where somebody wants them, the open errors whose
// events in the current clock hour (error_hourly_counts, the rollups) reach the medium rule of
// the projectSpiking webhook trigger: at least `minimum` events and `factor` times the error's
// hourly average over the 24 hours before. One alert per error per hour (error_spike_alerts).
import { sql } from 'drizzle-orm'
import { DEFAULT_NOTIFICATION_KINDS } from '../../contract/notifications.ts'
import { queryRows, type Db } from '../db/client.ts'
import { textArrayLiteral } from '../db/text-array.ts'
import { SPIKE_RULES } from '../webhooks/triggers/spike.ts'

const HOUR_MS = 3_600_000

export interface SpikingError {
  projectId: string
  errorId: string
  /** Events this hour, and the hourly average over the day before. */
  spike: { events: number; usual: number }
}

export async function spikingErrors(tx: Db, now: Date): Promise<SpikingError[]> {
  const hour = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS)
  const dayBefore = new Date(hour.getTime() - 24 * HOUR_MS)
  const rule = SPIKE_RULES.medium
  const rows = await queryRows<{ project_id: string; error_id: string; events: number | string; usual: number | string }>(
    tx,
    sql`WITH watched AS (
        SELECT DISTINCT p.id FROM projects p
        JOIN collaborators c ON c.organization_id = p.organization_id AND (c.is_admin OR c.project_ids IS NULL OR p.id = ANY(c.project_ids))
        LEFT JOIN notification_settings ns ON ns.user_id = c.user_id AND ns.project_id = p.id
        WHERE 'spiking' = ANY(coalesce(ns.kinds, ${textArrayLiteral([...DEFAULT_NOTIFICATION_KINDS])}::text[]))
      ), now_hour AS (
        SELECT h.project_id, h.error_id, h.events FROM error_hourly_counts h JOIN watched w ON w.id = h.project_id
        WHERE h.hour = ${hour.toISOString()}::timestamptz AND h.events >= ${rule.minimum}
      ), usual AS (
        SELECT h.error_id, sum(h.events) / 24.0 AS usual FROM error_hourly_counts h JOIN now_hour n USING (error_id)
        WHERE h.hour >= ${dayBefore.toISOString()}::timestamptz AND h.hour < ${hour.toISOString()}::timestamptz
        GROUP BY h.error_id
      ), spiking AS (
        SELECT n.project_id, n.error_id, n.events, coalesce(u.usual, 0) AS usual
        FROM now_hour n LEFT JOIN usual u USING (error_id)
        JOIN errors e ON e.id = n.error_id AND e.status = 'open' AND e.discarded_at IS NULL
        WHERE n.events >= ${rule.factor} * coalesce(u.usual, 0)
      ), marked AS (
        INSERT INTO error_spike_alerts (error_id, hour)
        SELECT error_id, ${hour.toISOString()}::timestamptz FROM spiking
        ON CONFLICT (error_id) DO UPDATE SET hour = excluded.hour WHERE error_spike_alerts.hour < excluded.hour
        RETURNING error_id
      )
      SELECT s.* FROM spiking s JOIN marked USING (error_id) ORDER BY s.project_id, s.error_id`,
  )
  return rows.map((r) => ({ projectId: r.project_id, errorId: r.error_id, spike: { events: Number(r.events), usual: Number(r.usual) } }))
}
