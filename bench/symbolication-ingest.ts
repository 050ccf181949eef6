// Ingestion with source-map symbolication on / off, in one run (issue 15's target: on / off ≥ 0.8).
// The pipeline's work for each batch, as its thread does it: process (parse, validate, normalize,
// the process stages, serialize) and index (error groups, events, counters, payloads) in one
// transaction, on an in-process PGlite. The events are browser errors whose frames point into an
// uploaded ~1 MB map; "on" runs the server's process stages (processStages), "off" none. Slices
// alternate (off, on, off, …, on, off) and each "on" slice is compared with the "off" slices on
// either side of it, in events per second of wall time and in events per CPU second (what other
// load on this shared machine leaves alone).
//   node --import tsx bench/symbolication-ingest.ts   (B: batch size, BENCH_SYMBOLICATION_SLICES, …)
import { gzipSync } from 'node:zlib'
import { fileURLToPath } from 'node:url'
import pino from 'pino'
import { loadConfig } from '../server/config.ts'
import { openPglite, type Database, type Db } from '../server/db/client.ts'
import { newApiKey, newId } from '../server/db/ids.ts'
import { migrate } from '../server/db/migrate.ts'
import { organizations, projects, sourceMapFiles, sourceMaps } from '../server/db/schema.ts'
import { indexEvents } from '../server/ingest/index/index-events.ts'
import { acceptedRequest } from '../server/ingest/payload/accepted-request.ts'
import { createProcessor } from '../server/ingest/process/process.ts'
import { processStages } from '../server/ingest/process/stages.ts'
import { buildNotifyPayload } from './payload.ts'
import { generateMap, type GeneratedMap } from './symbolication.ts'

const env = process.env
export const symbolicationIngestSettings = {
  batchSize: Number(env.B ?? 500),
  /** Batches in each slice (BENCH_SYMBOLICATION_BATCHES). */
  batchesPerSlice: Number(env.BENCH_SYMBOLICATION_BATCHES ?? 4),
  /** "On" slices (BENCH_SYMBOLICATION_SLICES); "off" gets one more, so each "on" has one either side. */
  slices: Number(env.BENCH_SYMBOLICATION_SLICES ?? 5),
  /**
   * Untimed batches of each mode first (BENCH_SYMBOLICATION_WARMUP). With 2, both modes' CPU per
   * event still fell by a quarter to a half over the first three slices (the JIT, PGlite's pages),
   * the "on" path more slowly, so the first pairs measured warm-up rather than a running server.
   */
  warmupBatches: Number(env.BENCH_SYMBOLICATION_WARMUP ?? 8),
  framesPerEvent: 15,
  /** BENCH_SYMBOLICATION_CODE=0: the map without sourcesContent, so mapped frames carry no code context. */
  codeContext: env.BENCH_SYMBOLICATION_CODE !== '0',
  distinctBodies: 200,
}
export const symbolicationIngestTarget = 0.8

const SCRIPT_URL = 'https://cdn.example.com/assets/app.8a1b3c.js'
const APP_VERSION = '4.2.0'

/** A browser notifier's body: the bench payload, its frames in the minified bundle (frames the map covers). */
function browserBody(apiKey: string, variant: number, map: GeneratedMap, frames: number): Buffer {
  const payload = buildNotifyPayload(apiKey, variant) as { events: Array<Record<string, unknown>> }
  const event = payload.events[0]!
  const [exception] = event.exceptions as Array<Record<string, unknown>>
  exception!.type = 'browserjs'
  exception!.stacktrace = Array.from({ length: frames }, (_, f) => {
    const [line, column] = map.positions[((variant * frames + f) * 7919) % map.positions.length]!
    return { file: SCRIPT_URL, method: String.fromCharCode(97 + ((variant + f) % 26)), lineNumber: line, columnNumber: column }
  })
  event.app = { ...(event.app as object), version: APP_VERSION, type: 'browser' }
  return Buffer.from(JSON.stringify(payload))
}

interface Slice {
  mode: 'on' | 'off'
  events: number
  wallMs: number
  /** Of wallMs: processing (the stages included), and indexing (the database's share). */
  processMs: number
  indexMs: number
  /** Mean size of the stored payloads (JSON characters). */
  payloadChars: number
  cpuMs: number
  perSecond: number
  perCpuSecond: number
}

interface MinMedMax {
  min: number
  median: number
  max: number
}

function minMedMax(values: number[]): MinMedMax {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  const median = sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
  return { min: sorted[0]!, median, max: sorted[sorted.length - 1]! }
}

const cpuMs = () => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

export interface SymbolicationIngestResult {
  settings: typeof symbolicationIngestSettings
  mapBytes: number
  slices: Slice[]
  /** Each "on" slice / the mean of the "off" slices around it. */
  ratio: { wall: MinMedMax; cpu: MinMedMax }
  /** Pipeline CPU per event, µs. */
  cpuUsPerEvent: { on: MinMedMax; off: MinMedMax }
  target: number
  met: boolean
  /** Every "on" event was mapped (symbolication status "mapped"). */
  mappedOk: boolean
}

export async function symbolicationIngestPhase(log: (line?: string) => void = console.log): Promise<SymbolicationIngestResult> {
  const settings = symbolicationIngestSettings
  const database: Database = await openPglite()
  try {
    await migrate(database)
    const db: Db = database.db
    const organizationId = newId()
    const projectId = newId()
    const apiKey = newApiKey()
    await db.insert(organizations).values({ id: organizationId, name: 'Bench', slug: `bench-${organizationId}` })
    await db.insert(projects).values({ id: projectId, organizationId, name: 'Bench', slug: 'bench', type: 'browser', apiKey })
    const generated = generateMap(1024 * 1024, 7)
    const map = settings.codeContext ? generated : { ...generated, text: JSON.stringify({ ...JSON.parse(generated.text), sourcesContent: undefined }) }
    const mapId = newId()
    const content = gzipSync(map.text)
    await db.insert(sourceMaps).values({ id: mapId, projectId, kind: 'js', minifiedUrl: SCRIPT_URL, appVersion: APP_VERSION, sizeBytes: map.text.length, storedBytes: content.length, uploadedAt: new Date(0) })
    await db.insert(sourceMapFiles).values({ sourceMapId: mapId, role: 'map', sizeBytes: map.text.length, content })

    const bodies = Array.from({ length: settings.distinctBodies }, (_, variant) => browserBody(apiKey, variant, map, settings.framesPerEvent))
    // As the server builds them: fetching off (no outside network), the rest from the defaults.
    const stages = processStages({ database, logger: pino({ level: 'silent' }), config: loadConfig({ ERRATA_FETCH_SOURCES: 'false' }) })
    const processors = { on: createProcessor(stages), off: createProcessor([]) }
    let sequence = 0
    let unmapped = 0

    async function runSlice(mode: 'on' | 'off', batches: number): Promise<Slice> {
      let wallMs = 0
      let processMs = 0
      let spentCpu = 0
      let events = 0
      let payloadChars = 0
      for (let b = 0; b < batches; b++) {
        const requests = Array.from({ length: settings.batchSize }, () => acceptedRequest(projectId, new Date(), bodies[sequence++ % bodies.length]!, 1, null))
        const wallStart = performance.now()
        const cpuStart = cpuMs()
        const { events: processed } = await processors[mode].process(requests)
        processMs += performance.now() - wallStart
        await db.transaction(async (tx) => indexEvents(tx as unknown as Db, processed))
        spentCpu += cpuMs() - cpuStart
        wallMs += performance.now() - wallStart
        events += processed.length
        payloadChars += processed.reduce((sum, event) => sum + event.payloadJson.length, 0)
        if (mode === 'on') unmapped += processed.filter((event) => !event.payloadJson.includes('"symbolication":{"status":"mapped"')).length
      }
      return {
        mode,
        events,
        wallMs,
        processMs,
        indexMs: wallMs - processMs,
        payloadChars: payloadChars / events,
        cpuMs: spentCpu,
        perSecond: events / (wallMs / 1000),
        perCpuSecond: events / (spentCpu / 1000),
      }
    }

    const logSlice = (number: number, slice: Slice) =>
      log(
        `slice ${number} ${slice.mode.padEnd(3)} ${slice.perSecond.toFixed(0).padStart(6)} events/s  ${((slice.cpuMs * 1000) / slice.events).toFixed(0).padStart(5)} µs CPU each  ` +
          `[process ${((slice.processMs * 1000) / slice.events).toFixed(0)} µs, index ${((slice.indexMs * 1000) / slice.events).toFixed(0)} µs wall each; payloads ${(slice.payloadChars / 1024).toFixed(1)} KB]`,
      )

    // Warm-up, not counted: the map parsed into the cache, the JIT and the database's pages warm.
    await runSlice('on', settings.warmupBatches)
    await runSlice('off', settings.warmupBatches)
    unmapped = 0

    const slices: Slice[] = []
    for (let i = 0; i <= settings.slices; i++) {
      const off = await runSlice('off', settings.batchesPerSlice)
      slices.push(off)
      logSlice(i + 1, off)
      if (i === settings.slices) break
      const on = await runSlice('on', settings.batchesPerSlice)
      slices.push(on)
      logSlice(i + 1, on)
    }
    const offs = slices.filter((slice) => slice.mode === 'off')
    const ons = slices.filter((slice) => slice.mode === 'on')
    const around = (index: number, key: 'perSecond' | 'perCpuSecond') => (offs[index]![key] + offs[index + 1]![key]) / 2
    const ratio = {
      wall: minMedMax(ons.map((on, i) => on.perSecond / around(i, 'perSecond'))),
      cpu: minMedMax(ons.map((on, i) => on.perCpuSecond / around(i, 'perCpuSecond'))),
    }
    const result: SymbolicationIngestResult = {
      settings,
      mapBytes: map.text.length,
      slices,
      ratio,
      cpuUsPerEvent: {
        on: minMedMax(ons.map((slice) => (slice.cpuMs * 1000) / slice.events)),
        off: minMedMax(offs.map((slice) => (slice.cpuMs * 1000) / slice.events)),
      },
      target: symbolicationIngestTarget,
      met: ratio.wall.median >= symbolicationIngestTarget && ratio.cpu.median >= symbolicationIngestTarget,
      mappedOk: unmapped === 0,
    }
    const triple = (s: MinMedMax, digits: number) => `${s.min.toFixed(digits)} / ${s.median.toFixed(digits)} / ${s.max.toFixed(digits)}`
    log(`throughput on / off (events/s, slices around)   ${triple(ratio.wall, 2)}  target ≥ ${symbolicationIngestTarget} (median)`)
    log(`throughput on / off (events per CPU second)     ${triple(ratio.cpu, 2)}  → ${result.met ? 'met' : 'MISSED'}`)
    log(`pipeline CPU µs per event: on ${triple(result.cpuUsPerEvent.on, 0)}, off ${triple(result.cpuUsPerEvent.off, 0)}`)
    log(
      `every "on" event mapped (${settings.framesPerEvent} frames each into a ${(map.text.length / 1024 / 1024).toFixed(1)} MB map, ` +
        `${settings.codeContext ? 'with' : 'without'} code context): ${result.mappedOk ? 'yes' : `NO (${unmapped} not)`}`,
    )
    await stages[0]?.close?.()
    return result
  } finally {
    await database.close()
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  symbolicationIngestPhase().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err)
      process.exit(1)
    },
  )
}
