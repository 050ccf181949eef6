import { statfs } from 'node:fs/promises'
import type { AppDeps } from '../context.ts'
import type { Database } from '../db/client.ts'
import { pgErrorMessage } from '../db/pg-errors.ts'
import { databaseSize } from '../storage/storage.service.ts'

/** Queue counts stop here ("at least 10,000"). */
export const QUEUE_COUNT_CAP = 10_000

/** Below this much free space (one journal segment) the ingest journal is about to refuse events. */
const MIN_JOURNAL_FREE_BYTES = 16 * 1024 * 1024

/** Free space on the ingest journal's disk, and whether it is below `minFreeBytes`. */
export async function journalDiskSpace(dir: string, minFreeBytes = MIN_JOURNAL_FREE_BYTES): Promise<{ freeBytes: number; low: boolean }> {
  const { bavail, bsize } = await statfs(dir)
  const freeBytes = Number(bavail) * Number(bsize)
  return { freeBytes, low: freeBytes < minFreeBytes }
}

interface Backlog {
  pending: number
  failed: number
  /** When the count is an earlier probe's (the database was busy): how long ago it was made. */
  counted_ms_ago?: number
}

export interface Readiness {
  status: 'ok' | 'degraded' | 'unavailable'
  database: Database['engine']
  problem?: string
  ingest_queue?: Backlog
  ingest_journal?: { free_bytes: number; problem?: string }
  /** This server's disk use (docs/operations.md, "Disk space"); each part left out when it could not be measured. */
  storage?: {
    database_bytes?: number
    /** The embedded database: DATA_DIR's size on disk. */
    data_dir_bytes?: number | null
    /** DATA_DIR's file system as the low disk guard last saw it. */
    data_dir_disk?: { free_bytes: number; total_bytes: number; min_free_bytes: number; low: boolean }
  }
}

interface Probe {
  /** The probe's query in flight: at most one waits behind other requests' queries. */
  inFlight: Promise<Backlog> | null
  /** The last count, and when it was made. */
  last: { backlog: Backlog; at: number } | null
}

const probes = new WeakMap<Database, Probe>()

class TimedOut extends Error {}

/**
 * GET /readyz: whether the database is alive, without queueing behind other requests' queries,
 * and whether the ingest backlog is below `readiness.maxBacklog` (docs/operations.md, "Health
 * probes"). The probe's query (the backlog counts) runs on PostgreSQL on a connection of its own,
 * so it answers within `readiness.timeoutMs` unless the server does not. The embedded database has
 * one connection: when the probe's query is still waiting behind other statements after
 * `timeoutMs`, the database counts as alive while its thread has answered something within the
 * last `readiness.stallMs`, and the backlog is the last one counted.
 */
export async function checkReadiness(deps: AppDeps): Promise<{ readiness: Readiness; httpStatus: 200 | 503 }> {
  const { database, config, ingestWriter } = deps
  const { timeoutMs, stallMs, maxBacklog } = config.readiness
  const probe: Probe = probes.get(database) ?? { inFlight: null, last: null }
  probes.set(database, probe)
  const unavailable = (reason: string) => {
    deps.logger.warn({ reason }, 'readiness check failed')
    return { readiness: { status: 'unavailable' as const, database: database.engine, problem: `the database did not answer: ${reason}` }, httpStatus: 503 as const }
  }

  let backlog: Backlog | null
  let databaseAnswered = true
  try {
    probe.inFlight ??= countBacklog(deps)
      .then((counted) => {
        probe.last = { backlog: counted, at: performance.now() }
        return counted
      })
      .finally(() => {
        probe.inFlight = null
      })
    backlog = await within(probe.inFlight, timeoutMs)
  } catch (err) {
    if (!(err instanceof TimedOut)) return unavailable(shortReason(err))
    const sinceAnswer = database.busy?.sinceLastAnswerMs()
    if (sinceAnswer === undefined || sinceAnswer >= stallMs) {
      return unavailable(`no answer within ${timeoutMs} ms${sinceAnswer === undefined ? '' : `, none to any query for ${Math.round(sinceAnswer / 1000)} s`}`)
    }
    // Busy with other requests' statements, and getting through them: the last count stands.
    databaseAnswered = false
    backlog = probe.last && { ...probe.last.backlog, counted_ms_ago: Math.round(performance.now() - probe.last.at) }
  }

  // A full journal disk refuses every event (503) while the dashboard and API still work:
  // "degraded", with 200, so monitoring sees it and a load balancer keeps the dashboard up.
  // A failed check of the disk says nothing about the database: left out rather than a 503.
  const disk = ingestWriter.logDir ? await journalDiskSpace(ingestWriter.logDir).catch(() => null) : null
  // Events keep being accepted (they are durable) while the backlog is large, but a server that
  // far behind should not be sent more traffic: searches would miss what it has not indexed.
  const pending = backlog?.pending ?? 0
  const behind = pending >= maxBacklog
  // Below ERRATA_MIN_FREE_DISK events and uploads are refused, the dashboard still works: "degraded" too.
  const dataDisk = deps.diskGuard?.current() ?? null
  // Measured at most once a minute (storage.service.ts), and not while the database keeps the probe waiting.
  const size = databaseAnswered ? await within(databaseSize(deps), timeoutMs).catch(() => null) : null
  const problem = behind
    ? `ingest backlog of ${pending} events is at or above ${maxBacklog} (ERRATA_READY_MAX_BACKLOG)`
    : dataDisk?.low
      ? `DATA_DIR has ${dataDisk.freeBytes} bytes free, below ERRATA_MIN_FREE_DISK (${dataDisk.minFreeBytes} bytes): events (503) and uploads (507) are refused`
      : null
  return {
    readiness: {
      status: behind ? 'unavailable' : disk?.low || dataDisk?.low ? 'degraded' : 'ok',
      database: database.engine,
      ...(problem && { problem }),
      ...(backlog && { ingest_queue: backlog }),
      ...(disk && { ingest_journal: { free_bytes: disk.freeBytes, ...(disk.low && { problem: 'less than 16 MiB free: events will be refused (503) when it is full' }) } }),
      storage: {
        ...(size && { database_bytes: size.bytes, data_dir_bytes: size.data_dir_bytes }),
        ...(dataDisk && {
          data_dir_disk: { free_bytes: dataDisk.freeBytes, total_bytes: dataDisk.totalBytes, min_free_bytes: dataDisk.minFreeBytes, low: dataDisk.low },
        }),
      },
    },
    httpStatus: behind ? 503 : 200,
  }
}

/**
 * Accepted requests not yet indexed and those set aside, as the log counts them, each up to
 * QUEUE_COUNT_CAP: a health check polled every few seconds must stay cheap during exactly the
 * backlog it reports. Requests count as their events only approximately (one each): the backlog
 * is a health signal, not an exact count.
 */
const countBacklog = ({ ingestWriter }: AppDeps): Promise<Backlog> => ingestWriter.backlog(QUEUE_COUNT_CAP)

function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimedOut()), ms)
  })
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
}

/** The driver's reason, first line only: never the statement or its parameters (drizzle's "Failed query: …"). */
function shortReason(err: unknown): string {
  const message = pgErrorMessage(err).split('\n')[0]!.trim()
  if (!message || message.startsWith('Failed query')) return 'the query failed'
  return message.length > 200 ? `${message.slice(0, 199)}…` : message
}
