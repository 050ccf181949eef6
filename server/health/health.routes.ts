import { statfs } from 'node:fs/promises'
import { sql } from 'drizzle-orm'
import { Hono, type Context } from 'hono'
import type { AppEnv } from '../context.ts'
import { queryRows } from '../db/client.ts'

/** Queue counts stop here ("at least 10,000"). */
export const QUEUE_COUNT_CAP = 10_000

/**
 * Liveness, `GET /healthz`: the process serves requests. It never touches the database, so a
 * database busy with heavy queries does not make an orchestrator restart a healthy server.
 *
 * Readiness, `GET /readyz`: the database answers a query within `readiness.timeoutMs` and the
 * ingest backlog (events accepted but not yet indexed) is below `readiness.maxBacklog`; 503
 * otherwise, with the reason. Also reports the backlog and events set aside because they could
 * not be indexed (a growing `pending` means the indexer is not keeping up or failing).
 */
export const healthRoutes = new Hono<AppEnv>()
  .get('/healthz', (c) => c.json({ status: 'ok' }))
  .get('/readyz', async (c) => {
    const { database, config } = c.var.deps
    const { timeoutMs } = config.readiness
    let timer: NodeJS.Timeout | undefined
    try {
      // A database that stops answering (or is busy) must not hang the check that is there to notice it.
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from the database within ${timeoutMs} ms`)), timeoutMs)
      })
      return await Promise.race([readiness(c), timeout])
    } catch (err) {
      c.var.deps.logger.warn({ err }, 'readiness check failed')
      return c.json({ status: 'unavailable', database: database.engine, problem: (err as Error).message }, 503)
    } finally {
      clearTimeout(timer)
    }
  })

/** Below this much free space (one journal segment) the ingest journal is about to refuse events. */
export const MIN_JOURNAL_FREE_BYTES = 16 * 1024 * 1024

/** Free space on the ingest journal's disk, and whether it is below `minFreeBytes`. */
export async function journalDiskSpace(dir: string, minFreeBytes = MIN_JOURNAL_FREE_BYTES): Promise<{ freeBytes: number; low: boolean }> {
  const { bavail, bsize } = await statfs(dir)
  const freeBytes = Number(bavail) * Number(bsize)
  return { freeBytes, low: freeBytes < minFreeBytes }
}

/** The answer when the database round-trips: its engine and the ingest backlog. */
async function readiness(c: Context<AppEnv>) {
  const { database } = c.var.deps
  // Counted up to a cap: a health check polled every few seconds must stay cheap during
  // exactly the backlog it reports.
  const [queue] = await queryRows<{ pending: number | string; failed: number | string }>(
    database.db,
    sql`SELECT
      (SELECT count(*) FROM (SELECT 1 FROM ingest_log WHERE failed_at IS NULL LIMIT ${QUEUE_COUNT_CAP}) p) +
      (SELECT count(*) FROM (SELECT 1 FROM ingest_queue WHERE failed_at IS NULL LIMIT ${QUEUE_COUNT_CAP}) p) AS pending,
      (SELECT count(*) FROM (SELECT 1 FROM ingest_log WHERE failed_at IS NOT NULL LIMIT ${QUEUE_COUNT_CAP}) f) +
      (SELECT count(*) FROM (SELECT 1 FROM ingest_queue WHERE failed_at IS NOT NULL LIMIT ${QUEUE_COUNT_CAP}) f) AS failed`,
  )
  // Accepted requests wait in ingest_log (PostgreSQL) or in the ingest journal (PGlite); events an
  // earlier version accepted may still wait in ingest_queue. Requests count as their events' number
  // only approximately (one each): the backlog is a health signal, not an exact count.
  const { journal } = c.var.deps.pipeline
  const journaled = journal ? await journal.pending(QUEUE_COUNT_CAP) : 0
  // A full journal disk refuses every event (503) while the dashboard and API still work:
  // "degraded", with 200, so monitoring sees it and a load balancer keeps the dashboard up.
  // A failed check of the disk says nothing about the database: left out rather than a 503.
  const disk = journal ? await journalDiskSpace(journal.dir).catch(() => null) : null
  const pending = Math.min(QUEUE_COUNT_CAP, Number(queue?.pending ?? 0) + journaled)
  const { maxBacklog } = c.var.deps.config.readiness
  // Events keep being accepted (they are durable) while the backlog is large, but a server that
  // far behind should not be sent more traffic: searches would miss what it has not indexed.
  const behind = pending >= maxBacklog
  return c.json(
    {
      status: behind ? 'unavailable' : disk?.low ? 'degraded' : 'ok',
      database: database.engine,
      ...(behind && { problem: `ingest backlog of ${pending} events is at or above ${maxBacklog} (ERRATA_READY_MAX_BACKLOG)` }),
      ingest_queue: { pending, failed: Math.min(QUEUE_COUNT_CAP, Number(queue?.failed ?? 0)) },
      ...(disk && { ingest_journal: { free_bytes: disk.freeBytes, ...(disk.low && { problem: 'less than 16 MiB free: events will be refused (503) when it is full' }) } }),
    },
    behind ? 503 : 200,
  )
}
