// The pipeline thread's stages in isolation, in CPU time per event: process (parse, validate,
// normalize, serialize), writeEvents, the payload insert and the rollup fold, on an in-memory
// PGlite in this process, batches of B (500) bench events, R (10) batches after 2 of warm-up.
//   node --import tsx bench/pipeline-stages.ts   (BENCH_STAGES=1: with the process stages)
import { openInProcessPglite } from './in-process-pglite.ts'
import { sql } from 'drizzle-orm'
import type { Db } from '../server/db/client.ts'
import { indexEvents } from '../server/ingest/index/index-events.ts'
import { writeEvents } from '../server/ingest/index/write-events.ts'
import { acceptedRequest } from '../server/ingest/payload/accepted-request.ts'
import pino from 'pino'
import { loadConfig } from '../server/config.ts'
import { createProcessor } from '../server/ingest/process/process.ts'
import { processStages } from '../server/ingest/process/stages.ts'
import { foldRollups } from '../server/rollups/fold.ts'
import { buildNotifyPayload } from './payload.ts'

const cpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

const { pglite, db, database } = await openInProcessPglite()
await db.execute(sql`INSERT INTO organizations (id, name, slug) VALUES ('o', 'o', 'o')`)
await db.execute(sql`INSERT INTO projects (id, organization_id, name, slug, type, api_key) VALUES ('p', 'o', 'p', 'p', 'node', 'k')`)
const bodies = Array.from({ length: 200 }, (_, i) => Buffer.from(JSON.stringify(buildNotifyPayload('k', i))))
// BENCH_STAGES=1: with the process stages (source maps) as the server runs them.
const processor = createProcessor(
  process.env.BENCH_STAGES === '1' ? processStages({ database, logger: pino({ level: 'silent' }), config: loadConfig({}) }) : [],
)
const batchSize = Number(process.env.B ?? 500)
const rounds = Number(process.env.R ?? 10)
const spent = { process: 0, writeEvents: 0, payloads: 0 }
for (let round = 0; round < rounds + 2; round++) {
  const requests = Array.from({ length: batchSize }, (_, i) => acceptedRequest('p', new Date(), bodies[(round * batchSize + i) % 200]!, 1, null))
  let started = cpuMs()
  const { events } = await processor.process(requests)
  const processed = cpuMs() - started
  started = cpuMs()
  await db.transaction(async (tx) => writeEvents(tx as unknown as Db, events))
  const written = cpuMs() - started
  started = cpuMs()
  // indexEvents = writeEvents + payloads: the payloads alone are the difference, measured on copies with new ids.
  const copies = events.map((event, i) => ({ ...event, id: `${event.id}-${round}-${i}` }))
  await db.transaction(async (tx) => indexEvents(tx as unknown as Db, copies))
  const both = cpuMs() - started
  if (round >= 2) {
    spent.process += processed
    spent.writeEvents += written
    spent.payloads += both - written
  }
}
const started = cpuMs()
const folded = await db.transaction(async (tx) => foldRollups(tx as unknown as Db, 'p'))
const foldMs = cpuMs() - started
const events = batchSize * rounds
const perEvent = (ms: number) => `${((ms * 1000) / events).toFixed(0)} µs`
console.log(`CPU per event (batches of ${batchSize}, ${rounds} batches):`)
console.log(`  process (parse, validate, normalize, serialize)  ${perEvent(spent.process)}`)
console.log(`  writeEvents (error groups, events, users, counters)  ${perEvent(spent.writeEvents)}`)
console.log(`  payloads into event_payloads                      ${perEvent(spent.payloads)}`)
console.log(`  fold of all ${folded} indexed events into the rollups  ${((foldMs * 1000) / folded).toFixed(0)} µs`)
await pglite.close()
