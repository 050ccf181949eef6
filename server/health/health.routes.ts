import { sql } from 'drizzle-orm'
import { Hono } from 'hono'
import type { AppEnv } from '../context.ts'
import { queryRows } from '../db/client.ts'

/**
 * Liveness and database readiness: 200 when a query round-trips, 503 otherwise. Also the
 * ingest backlog: events accepted but not yet indexed, and events set aside because they
 * could not be indexed (a growing `pending` means the indexer is not keeping up or failing).
 */
export const healthRoutes = new Hono<AppEnv>().get('/healthz', async (c) => {
  const { database } = c.var.deps
  try {
    const [queue] = await queryRows<{ pending: number | string; failed: number | string }>(
      database.db,
      sql`SELECT count(*) FILTER (WHERE failed_at IS NULL) AS pending, count(*) FILTER (WHERE failed_at IS NOT NULL) AS failed
        FROM ingest_queue`,
    )
    return c.json({
      status: 'ok',
      database: database.engine,
      ingest_queue: { pending: Number(queue?.pending ?? 0), failed: Number(queue?.failed ?? 0) },
    })
  } catch (err) {
    c.var.deps.logger.error({ err }, 'health check failed')
    return c.json({ status: 'unavailable', database: database.engine }, 503)
  }
})
