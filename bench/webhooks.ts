// Webhooks (docs/webhooks.md), on an in-memory PGlite in this process:
// 1. the pipeline thread's work (process + index, triggers included) per event for a project with
//    three enabled webhooks (one `exception`, which queues a delivery per event; one
//    `firstException` + `powerTen`; one `errorEventFrequency`) against a project with none, in
//    alternating slices of the same run, in CPU time per event: the throughput ratio is
//    none / with (target ≥ 0.9). The index step queues a batch's notifications as one job; its
//    expansion into deliveries (by the job runner, after the commit) is timed apart after each
//    slice with webhooks, per event and per delivery, and a second ratio counts it in;
// 2. deliveries per second: queued deliveries run by the job runner to a local receiver.
//   node --import tsx bench/webhooks.ts   (or the `webhooks` phase of `npm run bench`)
import { openInProcessPglite } from './in-process-pglite.ts'
import { sql } from 'drizzle-orm'
import pino from 'pino'
import { loadConfig } from '../server/config.ts'
import { queryRows, type Db } from '../server/db/client.ts'
import { indexEvents } from '../server/ingest/index/index-events.ts'
import { acceptedRequest } from '../server/ingest/payload/accepted-request.ts'
import { createProcessor } from '../server/ingest/process/process.ts'
import { JobRunner } from '../server/jobs/job-runner.ts'
import { parseAllowList } from '../server/outbound/allow-list.ts'
import { startWebhookReceiver } from '../server/test-support/webhook-receiver.ts'
import { queueDeliveries } from '../server/webhooks/queue-deliveries.ts'
import { defaultWebhookDeps } from '../server/webhooks/webhook-deps.ts'
import { WEBHOOK_DELIVER_JOB, WEBHOOK_EXPAND_JOB } from '../server/webhooks/webhook-job-kinds.ts'
import { webhookJobHandlers } from '../server/webhooks/webhook.jobs.ts'
import { buildNotifyPayload } from './payload.ts'

export interface WebhooksBenchResult {
  batchSize: number
  slices: number
  cpuUsPerEvent: { none: number[]; withWebhooks: number[]; expansion: number[] }
  /** CPU of the runner's expansion job per delivery it wrote, per slice with webhooks. */
  expansionCpuUsPerDelivery: number[]
  /** Median of (CPU per event without) / (CPU per event with), per pair of slices. */
  throughputRatio: { min: number; median: number; max: number }
  /** The same with the expansion's CPU counted in the slice with webhooks. */
  throughputRatioWithExpansion: { min: number; median: number; max: number }
  deliveries: { count: number; seconds: number; perSecond: number; cpuMsPerDelivery: number }
}

const cpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

export async function webhooksBench(log: (line: string) => void = console.log): Promise<WebhooksBenchResult> {
  const { pglite, db, database } = await openInProcessPglite()
  await db.execute(sql`INSERT INTO organizations (id, name, slug) VALUES ('o', 'o', 'o')`)
  await db.execute(sql`INSERT INTO projects (id, organization_id, name, slug, type, api_key) VALUES
    ('plain', 'o', 'plain', 'plain', 'node', 'k1'), ('hooked', 'o', 'hooked', 'hooked', 'node', 'k2')`)
  await db.execute(sql`INSERT INTO webhooks (id, project_id, url, triggers, settings, secret) VALUES
    ('w1', 'hooked', 'http://127.0.0.1:9/a', '{exception}', '{}', 's'),
    ('w2', 'hooked', 'http://127.0.0.1:9/b', '{firstException,powerTen}', '{}', 's'),
    ('w3', 'hooked', 'http://127.0.0.1:9/c', '{errorEventFrequency}', '{"errorEventFrequency":{"threshold":100,"unit":"events","hours":1}}', 's')`)
  const bodies = Array.from({ length: 200 }, (_, i) => Buffer.from(JSON.stringify(buildNotifyPayload('k', i))))
  const logger = pino({ level: 'silent' })
  const deps = defaultWebhookDeps({
    publicUrl: 'http://errata.bench',
    host: '127.0.0.1',
    port: 8080,
    webhookAllow: parseAllowList('127.0.0.1'),
    webhookDelivery: loadConfig({}).webhookDelivery,
  })
  const handlers = webhookJobHandlers(db, deps, logger)
  // Only the expansion: the delivery jobs it queues are not run (see expansion()).
  const expander = new JobRunner({ database, logger, handlers: handlers.filter((h) => h.kind === WEBHOOK_EXPAND_JOB) })
  const deliveryCount = async () => (await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM webhook_deliveries`))[0]!.n
  const processor = createProcessor([])
  const batchSize = Number(process.env.BENCH_WEBHOOK_BATCH ?? 500)
  const slices = Number(process.env.BENCH_WEBHOOK_SLICES ?? 10)

  async function slice(projectId: string, round: number): Promise<number> {
    const requests = Array.from({ length: batchSize }, (_, i) => acceptedRequest(projectId, new Date(), bodies[(round * batchSize + i) % 200]!, 1, null))
    const started = cpuMs()
    const { events } = await processor.process(requests)
    await db.transaction(async (tx) => indexEvents(tx as unknown as Db, events))
    return ((cpuMs() - started) * 1000) / batchSize
  }

  /** Runs the expansion the last slice queued: CPU µs per event of the batch and per delivery written. */
  async function expansion(): Promise<{ perEvent: number; perDelivery: number }> {
    const before = await deliveryCount()
    const started = cpuMs()
    await expander.drain()
    const spent = (cpuMs() - started) * 1000
    const written = (await deliveryCount()) - before
    // Not delivered here: left queued, the delivery jobs (due before the next expansion job) would
    // lengthen every later claim of the expansion-only runner, which walks the due jobs in order.
    // A runner that delivers takes them instead; the database is left as one that keeps up would be.
    await db.execute(sql`DELETE FROM jobs WHERE kind = ${WEBHOOK_DELIVER_JOB} AND state = 'queued'`)
    return { perEvent: spent / batchSize, perDelivery: written > 0 ? spent / written : 0 }
  }

  const none: number[] = []
  const withWebhooks: number[] = []
  const expanding: number[] = []
  const expandingPerDelivery: number[] = []
  const ratios: number[] = []
  const ratiosWithExpansion: number[] = []
  // Two rounds of warm-up, then alternating slices (which goes first alternates too).
  for (let round = 0; round < slices + 2; round++) {
    const order = round % 2 === 0 ? (['plain', 'hooked'] as const) : (['hooked', 'plain'] as const)
    const spent: Record<string, number> = {}
    let expanded = { perEvent: 0, perDelivery: 0 }
    for (const project of order) {
      spent[project] = await slice(project, round)
      if (project === 'hooked') expanded = await expansion()
    }
    if (round < 2) continue
    none.push(spent.plain!)
    withWebhooks.push(spent.hooked!)
    expanding.push(expanded.perEvent)
    expandingPerDelivery.push(expanded.perDelivery)
    ratios.push(spent.plain! / spent.hooked!)
    ratiosWithExpansion.push(spent.plain! / (spent.hooked! + expanded.perEvent))
  }
  await expander.stop()
  const spread = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b)
    return { min: sorted[0]!, median: median(values), max: sorted[sorted.length - 1]! }
  }
  const throughputRatio = spread(ratios)
  const throughputRatioWithExpansion = spread(ratiosWithExpansion)
  log(`process + index, CPU per event (batches of ${batchSize}, ${slices} slices each):`)
  log(`  no webhooks     median ${median(none).toFixed(0)} µs (min ${Math.min(...none).toFixed(0)}, max ${Math.max(...none).toFixed(0)})`)
  log(`  three webhooks  median ${median(withWebhooks).toFixed(0)} µs (min ${Math.min(...withWebhooks).toFixed(0)}, max ${Math.max(...withWebhooks).toFixed(0)})`)
  log(`  throughput with / without: median ${throughputRatio.median.toFixed(2)} (min ${throughputRatio.min.toFixed(2)}, max ${throughputRatio.max.toFixed(2)}); target ≥ 0.9`)
  log(
    `  expansion by the job runner, after the commit: median ${median(expanding).toFixed(0)} µs per event (min ${Math.min(...expanding).toFixed(0)}, max ${Math.max(...expanding).toFixed(0)}), ` +
      `${median(expandingPerDelivery).toFixed(0)} µs per delivery`,
  )
  log(
    `  throughput with the expansion counted in: median ${throughputRatioWithExpansion.median.toFixed(2)} ` +
      `(min ${throughputRatioWithExpansion.min.toFixed(2)}, max ${throughputRatioWithExpansion.max.toFixed(2)})`,
  )

  // Deliveries per second to a receiver on 127.0.0.1, by the job runner as Errata runs it.
  await db.execute(sql`DELETE FROM jobs`)
  await db.execute(sql`DELETE FROM webhook_deliveries`)
  const receiver = await startWebhookReceiver()
  await db.execute(sql`UPDATE webhooks SET url = ${receiver.url} WHERE id = 'w1'`)
  const count = Number(process.env.BENCH_WEBHOOK_DELIVERIES ?? 500)
  await db.transaction(async (tx) =>
    queueDeliveries(
      tx as unknown as Db,
      Array.from({ length: count }, (_, i) => ({ webhookId: 'w1', projectId: 'hooked', trigger: 'exception' as const, details: { message: `bench ${i}` } })),
      new Date(),
    ),
  )
  const runner = new JobRunner({ database, logger, handlers })
  const started = performance.now()
  const startedCpu = cpuMs()
  await runner.drain()
  const seconds = (performance.now() - started) / 1000
  const cpu = cpuMs() - startedCpu
  await runner.stop()
  await receiver.close()
  if (receiver.received.length !== count) throw new Error(`the receiver got ${receiver.received.length} of ${count} deliveries`)
  const deliveries = { count, seconds, perSecond: count / seconds, cpuMsPerDelivery: cpu / count }
  log(`deliveries: ${count} in ${seconds.toFixed(2)} s = ${deliveries.perSecond.toFixed(0)}/s, ${deliveries.cpuMsPerDelivery.toFixed(2)} ms CPU each (runner concurrency 2)`)
  await pglite.close()
  return {
    batchSize,
    slices,
    cpuUsPerEvent: { none, withWebhooks, expansion: expanding },
    expansionCpuUsPerDelivery: expandingPerDelivery,
    throughputRatio,
    throughputRatioWithExpansion,
    deliveries,
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await webhooksBench()
