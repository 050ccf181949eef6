import { sql } from 'drizzle-orm'
import { Hono } from 'hono'
import type { AppEnv } from '../context.ts'

/** Liveness and database readiness: 200 when a query round-trips, 503 otherwise. */
export const healthRoutes = new Hono<AppEnv>().get('/healthz', async (c) => {
  const { database } = c.var.deps
  try {
    await database.db.execute(sql`SELECT 1`)
    return c.json({ status: 'ok', database: database.engine })
  } catch (err) {
    c.var.deps.logger.error({ err }, 'health check failed')
    return c.json({ status: 'unavailable', database: database.engine }, 503)
  }
})
