// What a project's rollups and error counters should be, recomputed from its remaining events:
// tests of deletions (privacy, retention) compare what is stored with these.
import { sql } from 'drizzle-orm'
import { queryRows, withTransaction, type Db } from '../db/client.ts'
import { rebuildRollups } from '../rollups/rollups.ts'

/** Every rollup row of a project, and the same recomputed from its events by rebuildRollups (rolled back). */
export async function rollupsAgainstRebuild(db: Db, projectId: string) {
  const read = (db: Db) =>
    Promise.all([
      queryRows(db, sql`SELECT error_id, hour::text, events::int FROM error_hourly_counts WHERE project_id = ${projectId} ORDER BY 1, 2`),
      queryRows(db, sql`SELECT status, hour::text, events::int FROM project_hourly_counts WHERE project_id = ${projectId} ORDER BY 1, 2`),
      queryRows(
        db,
        sql`SELECT error_id, field, value, events::int, first_seen::text, last_seen::text, details FROM pivot_counts
          WHERE project_id = ${projectId} ORDER BY 1, 2, 3`,
      ),
    ])
  const stored = await read(db)
  let rebuilt: Awaited<ReturnType<typeof read>> | undefined
  await withTransaction(db, async (tx) => {
    await rebuildRollups(tx, projectId)
    rebuilt = await read(tx)
    throw new Error('roll back')
  }).catch((err: unknown) => {
    if (!(err instanceof Error) || err.message !== 'roll back') throw err
  })
  return { stored, rebuilt }
}

/** An error's counters as stored or recomputed, by column. */
type ErrorRow = { id: string } & Record<string, unknown>

/**
 * Each error's counters, users and every field taken from its events (the first release from the
 * oldest, the text from the newest), and the same recomputed from its remaining events.
 */
export async function countersAgainstEvents(db: Db, projectId: string) {
  const stored = await queryRows<ErrorRow>(
    db,
    sql`SELECT id, events_count::int AS events, users_count::int AS users, first_seen::text, last_seen::text, last_event_id,
        first_release_stage, first_app_version, message, context, severity, unhandled,
        (SELECT array_agg(user_key ORDER BY user_key) FROM error_users u WHERE u.error_id = e.id) AS user_keys
      FROM errors e WHERE project_id = ${projectId} ORDER BY id`,
  )
  const oldest = (column: string) =>
    sql.raw(`(SELECT g2.${column} FROM events g2 WHERE g2.error_id = e.id ORDER BY g2.received_at, g2.id LIMIT 1)`)
  const newest = (column: string) =>
    sql.raw(`(SELECT g2.${column} FROM events g2 WHERE g2.error_id = e.id ORDER BY g2.received_at DESC, g2.id DESC LIMIT 1)`)
  const expected = await queryRows<ErrorRow>(
    db,
    sql`SELECT e.id, count(g.id)::int AS events, count(DISTINCT k.key)::int AS users,
        min(g.received_at)::text AS first_seen, max(g.received_at)::text AS last_seen, ${newest('id')} AS last_event_id,
        ${oldest('release_stage')} AS first_release_stage, ${oldest('app_version')} AS first_app_version,
        ${newest('message')} AS message, ${newest('context')} AS context, ${newest('severity')} AS severity,
        ${newest('unhandled')} AS unhandled,
        array_agg(DISTINCT k.key ORDER BY k.key) FILTER (WHERE k.key IS NOT NULL) AS user_keys
      FROM errors e JOIN events g ON g.error_id = e.id
      LEFT JOIN event_payloads p ON p.event_id = g.id
      CROSS JOIN LATERAL (SELECT coalesce(g.user_id, g.user_email, convert_from(p.payload, 'UTF8')::jsonb #>> '{device,id}') AS key) k
      WHERE e.project_id = ${projectId} GROUP BY e.id ORDER BY e.id`,
  )
  return { stored, expected }
}
