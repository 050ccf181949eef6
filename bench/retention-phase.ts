// Retention at scale: a sweep expiring about 10 % of a project's events (a retention of 27 days
// over 30 days of events) — its time, and how much it slows the errors list meanwhile (p95 during
// / p95 before, same run; the privacy phase's target, ≤ 2). As in that phase, the list is timed in
// alternating slices while the sweep runs: running, then paused (its job runner stopped, which
// hands the job back; a new runner resumes it), so load from elsewhere weighs on both sides alike.
import { sql } from 'drizzle-orm'
import pino from 'pino'
import type { AppDeps } from '../server/context.ts'
import { queryRows, type Database } from '../server/db/client.ts'
import { JobRunner } from '../server/jobs/job-runner.ts'
import { privacyDeps } from '../server/privacy/privacy-deps.ts'
import { enqueueRetentionSweep, retentionJobHandlers, RETENTION_JOBS } from '../server/retention/retention.jobs.ts'
import { seedTriageData } from './seed-triage.ts'

interface Session {
  api<T>(path: string, init?: { method?: string; json?: unknown }): Promise<{ status: number; body: T }>
}

interface Stats {
  count: number
  p50: number
  p95: number
  max: number
}

export interface RetentionPhaseInput {
  engine: 'pglite' | 'postgres'
  database: Database
  deps: AppDeps
  session: Session
  createProject(name: string): Promise<{ id: string }>
  stats(samples: number[]): Stats
  log(line?: string): void
  events: number
  errors: number
  /** Requests of GET errors timed before the sweep (the first baseline slice). */
  baselineRequests: number
  /** Length of each alternating slice during the sweep (running, then paused). */
  sliceMs: number
}

export interface RetentionPhaseResult {
  seededEvents: number
  retentionDays: number
  /** `seconds`: wall time of the sweep less the paused slices. */
  sweep: { seconds: number; deleted: number; remaining: number; slices: number }
  /**
   * `before`: the sweep not running (before it, and its paused slices); `during`: running; `ratio`
   * of their p95s. `sliceRatios`: each running slice's p95 over that of the paused slices on either
   * side (min / median / max), so load that drifts during the run cancels out.
   */
  errorsList: { before: Stats; during: Stats; ratio: number; sliceRatios: { min: number; median: number; max: number } }
}

const SEEDED_DAYS = 30
const RETENTION_DAYS = 27

export async function retentionPhase(input: RetentionPhaseInput): Promise<RetentionPhaseResult> {
  const { database, session, log } = input
  const project = await input.createProject('Bench Retention')
  const started = performance.now()
  await seedTriageData(database.db, { projectId: project.id, errors: input.errors, events: input.events, days: SEEDED_DAYS, vacuum: true, engine: input.engine }, log)
  const countEvents = async () =>
    (await queryRows<{ n: number }>(database.db, sql`SELECT count(*)::int AS n FROM events WHERE project_id = ${project.id}`))[0]!.n
  const seededEvents = await countEvents()
  log(`seeded ${seededEvents} events over ${SEEDED_DAYS} days in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  const set = await session.api(`/projects/${project.id}`, { method: 'PATCH', json: { event_retention_days: RETENTION_DAYS } })
  if (set.status !== 200) throw new Error(`PATCH project answered ${set.status}: ${JSON.stringify(set.body)}`)

  // The sweep runs in this process, as in the server (server/background-jobs.ts).
  const logger = pino({ level: 'silent' })
  const privacy = privacyDeps(input.deps)
  const handlers = retentionJobHandlers(database.db, privacy, input.deps.config.retention, logger)
  const startRunner = () => {
    const runner = new JobRunner({ database, logger, handlers, pollMs: 50, concurrency: 1 })
    runner.start()
    return runner
  }
  const sweepDone = async () =>
    (
      await queryRows<{ n: number }>(
        database.db,
        sql`SELECT count(*)::int AS n FROM jobs WHERE kind = ${RETENTION_JOBS.sweep} AND state IN ('queued', 'running')`,
      )
    )[0]!.n === 0

  const timeErrors = async () => {
    const t = performance.now()
    const res = await session.api<unknown[]>(`/projects/${project.id}/errors?per_page=30`)
    if (res.status !== 200) throw new Error(`GET errors answered ${res.status}`)
    return performance.now() - t
  }
  const timeFor = async (samples: number[], ms: number) => {
    const end = performance.now() + ms
    while (performance.now() < end) samples.push(await timeErrors())
  }
  for (let i = 0; i < 20; i++) await timeErrors()
  // Slices of samples: not running (the baseline, then each pause) and running, alternating.
  const beforeSlices: number[][] = [[]]
  for (let i = 0; i < input.baselineRequests; i++) beforeSlices[0]!.push(await timeErrors())
  const duringSlices: number[][] = []

  const t0 = performance.now()
  await enqueueRetentionSweep(database.db, new Date())
  let runner = startRunner()
  let pausedMs = 0
  let slices = 0
  try {
    for (;;) {
      duringSlices.push([])
      await timeFor(duringSlices.at(-1)!, input.sliceMs)
      slices += 1
      if (await sweepDone()) break
      const paused = performance.now()
      await runner.stop()
      beforeSlices.push([])
      await timeFor(beforeSlices.at(-1)!, input.sliceMs)
      runner = startRunner()
      pausedMs += performance.now() - paused
    }
  } finally {
    await runner.stop()
  }
  const seconds = (performance.now() - t0 - pausedMs) / 1000
  const remaining = await countEvents()
  const beforeStats = input.stats(beforeSlices.flat())
  const duringStats = input.stats(duringSlices.flat())
  const ratio = duringStats.p95 / beforeStats.p95
  const ratios = duringSlices
    .map((slice, i) => input.stats(slice).p95 / input.stats([...beforeSlices[i]!, ...(beforeSlices[i + 1] ?? [])]).p95)
    .sort((a, b) => a - b)
  const sliceRatios = { min: ratios[0]!, median: ratios[Math.floor(ratios.length / 2)]!, max: ratios.at(-1)! }
  log(`sweep: ${seededEvents - remaining} events expired in ${seconds.toFixed(1)} s (${remaining} left)`)
  log(
    `GET errors p95 without the sweep running ${beforeStats.p95.toFixed(2)} ms (${beforeStats.count} requests), with it ${duringStats.p95.toFixed(2)} ms ` +
      `(${duringStats.count} requests, ${slices} slices): ratio ${ratio.toFixed(2)} (target ≤ 2); ` +
      `per slice min / median / max ${sliceRatios.min.toFixed(2)} / ${sliceRatios.median.toFixed(2)} / ${sliceRatios.max.toFixed(2)}`,
  )
  return {
    seededEvents,
    retentionDays: RETENTION_DAYS,
    sweep: { seconds, deleted: seededEvents - remaining, remaining, slices },
    errorsList: { before: beforeStats, during: duringStats, ratio, sliceRatios },
  }
}
