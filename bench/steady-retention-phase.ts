// Steady ingest under retention: a project keeping 7 days of events, fed the same number of
// realistic events (bench/payload.ts, ~4 KB, stored payloads included) every simulated day for
// five retention periods through the real ingest path, with a clock the phase moves. After each
// day: the retention sweep (no reads running meanwhile), the maintenance a server on PGlite runs
// every 10 minutes (server/db/maintenance.ts), and the sizes. On PGlite the data directory should
// stop growing once the sweep starts deleting; the sweep must keep up with ingestion.
import { simulateSteadyRetention, type SteadyRetentionDay } from '../server/test-support/steady-retention.ts'
import { buildNotifyPayload } from './payload.ts'

export interface SteadyRetentionPhaseResult {
  retentionDays: number
  eventsPerDay: number
  days: SteadyRetentionDay[]
  /**
   * Growth over the last two retention periods: the size at the end over the size two periods
   * before, minus 1 (data directory on PGlite, pg_database_size on both).
   */
  growth: { dataDir: number | null; database: number }
  /** Events the sweep deleted per second of sweep, over the days it deleted (min / median / max). */
  sweepEventsPerSecond: { min: number; median: number; max: number }
}

const RETENTION_DAYS = 7
const PERIODS = 5
const MiB = 2 ** 20

export async function steadyRetentionPhase(
  engine: 'pglite' | 'postgres',
  eventsPerDay: number,
  log: (line?: string) => void,
  postgresUrl?: string,
): Promise<SteadyRetentionPhaseResult> {
  const started = performance.now()
  log(`day  events  deleted  sweep (events/s)  data dir MiB (of which WAL)  database MiB`)
  const days = await simulateSteadyRetention({
    retentionDays: RETENTION_DAYS,
    days: RETENTION_DAYS * PERIODS,
    eventsPerDay,
    payload: buildNotifyPayload,
    postgresUrl: engine === 'postgres' ? postgresUrl : undefined,
    onDay: (d) => {
      const rate = d.deleted > 0 ? `${((d.deleted * 1000) / d.sweepMs).toFixed(0)}/s in ${(d.sweepMs / 1000).toFixed(1)} s` : '-'
      const dir = d.dataDirBytes === null ? '-' : `${(d.dataDirBytes / MiB).toFixed(1)} (${(d.walBytes! / MiB).toFixed(0)})`
      log(`${String(d.day).padStart(3)}  ${String(d.events).padStart(6)}  ${String(d.deleted).padStart(7)}  ${rate.padStart(16)}  ${dir.padStart(26)}  ${(d.databaseBytes / MiB).toFixed(1).padStart(12)}`)
    },
  })
  const last = days.at(-1)!
  const twoPeriodsBefore = days[days.length - 1 - 2 * RETENTION_DAYS]!
  const growth = {
    dataDir: last.dataDirBytes === null ? null : last.dataDirBytes / twoPeriodsBefore.dataDirBytes! - 1,
    database: last.databaseBytes / twoPeriodsBefore.databaseBytes - 1,
  }
  const rates = days
    .filter((d) => d.deleted > 1)
    .map((d) => (d.deleted * 1000) / d.sweepMs)
    .sort((a, b) => a - b)
  const sweepEventsPerSecond = { min: rates[0]!, median: rates[Math.floor(rates.length / 2)]!, max: rates.at(-1)! }
  const percent = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`
  log(
    `${engine}: ${days.length} days of ${eventsPerDay} events, ${RETENTION_DAYS}-day retention, in ${((performance.now() - started) / 1000).toFixed(0)} s; ` +
      `growth over the last two periods (days ${twoPeriodsBefore.day}–${last.day}): ` +
      `${growth.dataDir === null ? '' : `data directory ${percent(growth.dataDir)}, `}database ${percent(growth.database)}; ` +
      `sweep ${sweepEventsPerSecond.min.toFixed(0)} / ${sweepEventsPerSecond.median.toFixed(0)} / ${sweepEventsPerSecond.max.toFixed(0)} events/s (min / median / max)`,
  )
  return { retentionDays: RETENTION_DAYS, eventsPerDay, days, growth, sweepEventsPerSecond }
}
