// Markdown tables for BENCHMARKS.md, made from bench/.data/results-<engine>.json so that the
// recorded numbers are exactly the measured ones. `node --import tsx bench/report.ts` reprints them.
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

interface Stats {
  p50: number
  p95: number
  max: number
  count: number
}
interface Load {
  ok: number
  perSecond: number
  seconds: number
  latencyP50: number
  latencyP99: number
}
export interface EngineResult {
  engine: string
  machine?: { date: string; cpus: number; cpuModel: string; memoryGiB: number; node: string; loadAverage1m: number }
  settings: { connections: number }
  ingestion?: {
    bare: Load
    errata: Load
    ceiling?: Load
    indexedPerSecond?: number
    ratio: number
    acknowledged: number
    committedEvents: number
    committedPayloads: number
    everyAckCommitted: boolean
  }
  postToVisible?: Stats & { postP50?: number; postP95?: number }
  triage?: {
    seededErrors: number
    seededEvents: number
    seedSeconds: number
    queries: Record<string, { label: string; target: boolean; stats: Stats }>
  }
  reads?: { seededErrors: number; seededEvents: number; seedSeconds: number; vacuumed?: boolean; userFloor: Stats; errorsList: Stats; eventsList?: Stats; eventDetail: Stats }
}

const f = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–')
const verdict = (ok: boolean) => (ok ? 'met' : '**missed**')

export function markdownReport(results: EngineResult[]): string {
  const lines: string[] = []
  const machine = results.find((r) => r.machine)?.machine
  if (machine) {
    lines.push(
      `Machine: ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB RAM, Node ${machine.node}; ` +
        `run ${machine.date}; 1-minute load average at start ${f(machine.loadAverage1m, 2)}.`,
      '',
    )
  }
  lines.push(
    '| | ' + results.map((r) => r.engine).join(' | ') + ' |',
    '|---|' + results.map(() => '---:|').join(''),
  )
  const row = (label: string, cell: (r: EngineResult) => string) => lines.push(`| ${label} | ${results.map(cell).join(' | ')} |`)
  row('bare node:http + JSON.parse, events/s', (r) => (r.ingestion ? f(r.ingestion.bare.perSecond, 0) : '–'))
  row('Errata POST /notify, events/s answered 200 (durable: journal on PGlite, queue on PostgreSQL)', (r) => (r.ingestion ? f(r.ingestion.errata.perSecond, 0) : '–'))
  row('… indexed (visible in the API), events/s from the first request to the last event indexed', (r) =>
    r.ingestion?.indexedPerSecond === undefined ? '–' : f(r.ingestion.indexedPerSecond, 0),
  )
  row('ratio Errata (the lower of the two above) / bare (target ≥ 0.5)', (r) => (r.ingestion ? `${f(r.ingestion.ratio, 2)} (${verdict(r.ingestion.ratio >= 0.5)})` : '–'))
  row('Errata without database writes (HTTP, validation, normalization), events/s', (r) =>
    r.ingestion?.ceiling ? `${f(r.ingestion.ceiling.perSecond, 0)} (${f(r.ingestion.ceiling.perSecond / r.ingestion.bare.perSecond, 2)}× bare)` : '–',
  )
  row('POST /notify latency p50 / p99 under load, ms', (r) => (r.ingestion ? `${r.ingestion.errata.latencyP50} / ${r.ingestion.errata.latencyP99}` : '–'))
  row('200 answers = rows in events = rows in event_payloads, once indexed (nothing left waiting)', (r) =>
    r.ingestion
      ? `${r.ingestion.acknowledged} = ${r.ingestion.committedEvents} = ${r.ingestion.committedPayloads} (${r.ingestion.everyAckCommitted ? 'OK' : '**MISMATCH**'})`
      : '–',
  )
  row('POST → visible in GET events, p50 / p95 ms', (r) => (r.postToVisible ? `${f(r.postToVisible.p50)} / ${f(r.postToVisible.p95)}` : '–'))
  row('… of which the single POST /notify until 200, p50 / p95 ms', (r) =>
    r.postToVisible?.postP50 !== undefined ? `${f(r.postToVisible.postP50)} / ${f(r.postToVisible.postP95 ?? NaN)}` : '–',
  )
  row('read data set: errors / events (seeded with SQL in s; maintenance)', (r) =>
    r.reads
      ? `${r.reads.seededErrors} / ${r.reads.seededEvents} (${f(r.reads.seedSeconds)} s; ${r.reads.vacuumed ? 'VACUUM ANALYZE' : 'ANALYZE only'})`
      : '–',
  )
  row('GET /user (floor: HTTP + auth), p50 / p95 ms', (r) => (r.reads ? `${f(r.reads.userFloor.p50)} / ${f(r.reads.userFloor.p95)}` : '–'))
  row('GET errors list (30, last_seen), p50 / p95 ms (target p95 < 30)', (r) =>
    r.reads ? `${f(r.reads.errorsList.p50)} / ${f(r.reads.errorsList.p95)} (${verdict(r.reads.errorsList.p95 < 30)})` : '–',
  )
  row('GET project events list (10, newest), p50 / p95 ms (no target)', (r) =>
    r.reads?.eventsList ? `${f(r.reads.eventsList.p50)} / ${f(r.reads.eventsList.p95)}` : '–',
  )
  row('GET event detail, p50 / p95 ms (target p95 < 20)', (r) =>
    r.reads ? `${f(r.reads.eventDetail.p50)} / ${f(r.reads.eventDetail.p95)} (${verdict(r.reads.eventDetail.p95 < 20)})` : '–',
  )
  const triage = results.find((r) => r.triage)?.triage
  if (triage) {
    row('triage data set: errors / events (seeded with SQL in s)', (r) =>
      r.triage ? `${r.triage.seededErrors} / ${r.triage.seededEvents} (${f(r.triage.seedSeconds)} s)` : '–',
    )
    for (const [key, query] of Object.entries(triage.queries)) {
      row(`${query.label}, p50 / p95 ms${query.target ? ' (target p95 < 100)' : ' (no target)'}`, (r) => {
        const stats = r.triage?.queries[key]?.stats
        if (!stats) return '–'
        return `${f(stats.p50)} / ${f(stats.p95)}${query.target ? ` (${verdict(stats.p95 < 100)})` : ''}`
      })
    }
  }
  return lines.join('\n')
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = fileURLToPath(new URL('./.data/', import.meta.url))
  const results = ['pglite', 'postgres']
    .map((engine) => `${dir}results-${engine}.json`)
    .filter((path) => existsSync(path))
    .map((path) => JSON.parse(readFileSync(path, 'utf8')) as EngineResult)
  process.stdout.write(`${markdownReport(results)}\n`)
}
