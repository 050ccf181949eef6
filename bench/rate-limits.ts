// Rate limiting (docs/ingestion.md, "Rate limiting"), on an in-memory PGlite in this process: the
// pipeline thread's work (process + index) per event for three projects in alternating slices of
// the same run, in CPU time per event:
// - `plain`: no quota (what every project without one pays: one indexed read per batch);
// - `limited`: a quota it stays under (the windows counted, nothing dropped);
// - `sampled`: a quota far below what arrives (most events counted and dropped, not written).
// Ratios are plain / other per round: above 1 means cheaper than an unlimited project.
// Then the rate-limit step alone (applyRateLimits inside a transaction, the database's work
// included: PGlite runs in this thread), per event, for the same three projects: what the
// step adds to the above, which the whole pipeline's noise would hide.
//   node --import tsx bench/rate-limits.ts   (or the `ratelimits` phase of `npm run bench`)
import { openInProcessPglite } from './in-process-pglite.ts'
import { sql } from 'drizzle-orm'
import { queryRows, type Db } from '../server/db/client.ts'
import { indexEvents } from '../server/ingest/index/index-events.ts'
import { applyRateLimits } from '../server/rate-limits/rate-limit-step.ts'
import { acceptedRequest } from '../server/ingest/payload/accepted-request.ts'
import { createProcessor } from '../server/ingest/process/process.ts'
import { buildNotifyPayload } from './payload.ts'

const PROJECTS = ['plain', 'limited', 'sampled'] as const
type BenchProject = (typeof PROJECTS)[number]

export interface RateLimitsBenchResult {
  batchSize: number
  slices: number
  cpuUsPerEvent: Record<BenchProject, number[]>
  /** The rate-limit step alone, CPU per event. */
  stepUsPerEvent: Record<BenchProject, number[]>
  /** plain / limited and plain / sampled per round: min, median, max. */
  ratios: Record<'limited' | 'sampled', { min: number; median: number; max: number }>
}

const cpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const spread = (values: number[]) => ({ min: Math.min(...values), median: median(values), max: Math.max(...values) })

export async function rateLimitsBench(log: (line: string) => void = console.log): Promise<RateLimitsBenchResult> {
  const { pglite, db } = await openInProcessPglite()
  await db.execute(sql`INSERT INTO organizations (id, name, slug) VALUES ('o', 'o', 'o')`)
  // `limited` stays under its quotas; `sampled` keeps 100 a minute of the thousands sent.
  await db.execute(sql`INSERT INTO projects (id, organization_id, name, slug, type, api_key, events_per_minute, events_per_day) VALUES
    ('plain', 'o', 'plain', 'plain', 'node', 'k1', NULL, NULL),
    ('limited', 'o', 'limited', 'limited', 'node', 'k2', 1000000000, 1000000000),
    ('sampled', 'o', 'sampled', 'sampled', 'node', 'k3', 100, NULL)`)
  const bodies = Array.from({ length: 200 }, (_, i) => Buffer.from(JSON.stringify(buildNotifyPayload('k', i))))
  const processor = createProcessor([])
  const batchSize = Number(process.env.BENCH_RATE_LIMIT_BATCH ?? 500)
  const slices = Number(process.env.BENCH_RATE_LIMIT_SLICES ?? 10)

  async function slice(projectId: BenchProject, round: number): Promise<number> {
    const requests = Array.from({ length: batchSize }, (_, i) => acceptedRequest(projectId, new Date(), bodies[(round * batchSize + i) % 200]!, 1, null))
    const started = cpuMs()
    const { events } = await processor.process(requests)
    await db.transaction(async (tx) => indexEvents(tx as unknown as Db, events))
    return ((cpuMs() - started) * 1000) / batchSize
  }

  async function stepSlice(projectId: BenchProject, round: number): Promise<number> {
    const requests = Array.from({ length: batchSize }, (_, i) => acceptedRequest(projectId, new Date(), bodies[(round * batchSize + i) % 200]!, 1, null))
    const { events } = await processor.process(requests)
    // Timed inside the transaction: the index step's transaction commits its writes anyway.
    return db.transaction(async (tx) => {
      const started = cpuMs()
      await applyRateLimits(tx as unknown as Db, events)
      return ((cpuMs() - started) * 1000) / batchSize
    })
  }

  const cpuUsPerEvent: Record<BenchProject, number[]> = { plain: [], limited: [], sampled: [] }
  const ratios = { limited: [] as number[], sampled: [] as number[] }
  // Two rounds of warm-up, then the three in a rotating order.
  for (let round = 0; round < slices + 2; round++) {
    const order = PROJECTS.map((_, i) => PROJECTS[(i + round) % PROJECTS.length]!)
    const spent = {} as Record<BenchProject, number>
    for (const project of order) spent[project] = await slice(project, round)
    if (round < 2) continue
    for (const project of PROJECTS) cpuUsPerEvent[project].push(spent[project])
    ratios.limited.push(spent.plain / spent.limited)
    ratios.sampled.push(spent.plain / spent.sampled)
  }
  const [stored] = await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM events WHERE project_id = 'sampled'`)
  const stepUsPerEvent: Record<BenchProject, number[]> = { plain: [], limited: [], sampled: [] }
  for (let round = 0; round < slices + 2; round++) {
    const order = PROJECTS.map((_, i) => PROJECTS[(i + round) % PROJECTS.length]!)
    for (const project of order) {
      const spent = await stepSlice(project, round)
      if (round >= 2) stepUsPerEvent[project].push(spent)
    }
  }
  const result = { batchSize, slices, cpuUsPerEvent, stepUsPerEvent, ratios: { limited: spread(ratios.limited), sampled: spread(ratios.sampled) } }
  log(`process + index, CPU per event (batches of ${batchSize}, ${slices} slices each):`)
  for (const project of PROJECTS) {
    const s = spread(cpuUsPerEvent[project])
    log(`  ${project.padEnd(8)} median ${s.median.toFixed(0)} µs (min ${s.min.toFixed(0)}, max ${s.max.toFixed(0)})`)
  }
  log(`  plain / limited: median ${result.ratios.limited.median.toFixed(2)} (min ${result.ratios.limited.min.toFixed(2)}, max ${result.ratios.limited.max.toFixed(2)})`)
  log(`  plain / sampled: median ${result.ratios.sampled.median.toFixed(2)} (min ${result.ratios.sampled.min.toFixed(2)}, max ${result.ratios.sampled.max.toFixed(2)}); sampled stored ${stored?.n} of ${(slices + 2) * batchSize}`)
  log(`rate-limit step alone, CPU per event:`)
  for (const project of PROJECTS) {
    const s = spread(stepUsPerEvent[project])
    log(`  ${project.padEnd(8)} median ${s.median.toFixed(1)} µs (min ${s.min.toFixed(1)}, max ${s.max.toFixed(1)})`)
  }
  await pglite.close()
  return result
}

if (import.meta.url === `file://${process.argv[1]}`) await rateLimitsBench()
