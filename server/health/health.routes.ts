import { Hono } from 'hono'
import type { AppEnv } from '../context.ts'
import { checkReadiness } from './readiness.ts'

/**
 * Liveness, `GET /healthz`: the process serves requests. It never touches the database, so a
 * database busy with heavy queries does not make an orchestrator restart a healthy server.
 *
 * Readiness, `GET /readyz`: the database is alive (answered without waiting behind other
 * requests' queries, readiness.ts) and the ingest backlog is below `readiness.maxBacklog`; 503
 * otherwise, with the reason. Also reports the backlog and events set aside because they could
 * not be indexed (a growing `pending` means the indexer is not keeping up or failing).
 */
export const healthRoutes = new Hono<AppEnv>()
  .get('/healthz', (c) => c.json({ status: 'ok' }))
  .get('/readyz', async (c) => {
    const { readiness, httpStatus } = await checkReadiness(c.var.deps)
    return c.json(readiness, httpStatus)
  })
