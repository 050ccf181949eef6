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
interface MinMedMax {
  min: number
  median: number
  max: number
}
/** bench/ingest-cpu.ts's result, the parts printed here. */
interface Ingestion {
  startedAt: string
  loadAverageAtStart: number
  generatorLabel: string
  settings: { sliceSeconds: number; slices: number }
  slices: Array<{ server: 'bare' | 'errata'; perSecond: number }>
  summary: {
    bareRequestsPerSecond: MinMedMax
    errataEventsPerSecond: MinMedMax
    throughputRatio: MinMedMax
    bareCpuUsPerRequest: MinMedMax
    errataCpuUsPerEvent: {
      groups: Record<string, { usPerEvent: MinMedMax; threads: number }>
      errataProcess: MinMedMax
      postgres?: { total: MinMedMax }
      total: MinMedMax
    }
    cpuRatio: MinMedMax
    latencyMs: { errataP50: MinMedMax; errataP99: MinMedMax; bareP50: MinMedMax; bareP99: MinMedMax }
    generatorUsPerRequest: MinMedMax
  }
  targets: { cpuRatioMax: number; throughputRatioMin: number }
  met: { cpuRatio: boolean; throughputRatio: boolean; commit: boolean }
  commit: { acknowledged: number; indexed: number; pending: number; failed: number }
}
export interface EngineResult {
  engine: string
  machine?: { date: string; cpus: number; cpuModel: string; memoryGiB: number; node: string; loadAverage1m: number }
  ingestion?: Ingestion
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
const triple = (s: MinMedMax, digits = 0) => `${f(s.min, digits)} / ${f(s.median, digits)} / ${f(s.max, digits)}`

/** The ingestion rows: one measurement per engine, min / median / max of its slices. */
function ingestionRows(results: EngineResult[], row: (label: string, cell: (r: EngineResult) => string) => void) {
  const cell = (format: (i: Ingestion) => string) => (r: EngineResult) => (r.ingestion ? format(r.ingestion) : '–')
  row('ingestion: started, load average at start', cell((i) => `${i.startedAt.slice(0, 16)}Z, ${f(i.loadAverageAtStart, 2)}`))
  row('load generator', cell((i) => i.generatorLabel))
  row('slices (bare, Errata, …, bare), events/s', cell((i) => i.slices.map((s) => f(s.perSecond, 0)).join(', ')))
  row('bare node:http + JSON.parse, requests/s, min / median / max', cell((i) => triple(i.summary.bareRequestsPerSecond)))
  row('Errata, events/s acknowledged and indexed (first request → all indexed)', cell((i) => triple(i.summary.errataEventsPerSecond)))
  row('throughput ratio, each Errata slice / the bare slices around it (target ≥ 0.45 PGlite, ≥ 0.4 PostgreSQL)', cell((i) => `${triple(i.summary.throughputRatio, 2)} (${verdict(i.met.throughputRatio)})`))
  row('bare server CPU, µs per request', cell((i) => triple(i.summary.bareCpuUsPerRequest)))
  const groups = [...new Set(results.flatMap((r) => Object.keys(r.ingestion?.summary.errataCpuUsPerEvent.groups ?? {})))]
  for (const group of groups) {
    row(`Errata CPU µs per event: ${group}`, (r) => {
      const g = r.ingestion?.summary.errataCpuUsPerEvent.groups[group]
      return g ? `${triple(g.usPerEvent)}${g.threads > 1 ? ` (${g.threads} threads)` : ''}` : '–'
    })
  }
  if (results.some((r) => r.ingestion?.summary.errataCpuUsPerEvent.postgres)) {
    row('… all Errata threads', cell((i) => triple(i.summary.errataCpuUsPerEvent.errataProcess)))
    row('… PostgreSQL server processes', cell((i) => (i.summary.errataCpuUsPerEvent.postgres ? triple(i.summary.errataCpuUsPerEvent.postgres.total) : '–')))
  }
  row('… total, µs per event', cell((i) => triple(i.summary.errataCpuUsPerEvent.total)))
  row('CPU ratio, Errata per event / bare per request (target ≤ 4)', cell((i) => `${triple(i.summary.cpuRatio, 2)} (${verdict(i.met.cpuRatio)})`))
  row('POST /notify latency p50 / p99 under load, ms (median of slices; bare in brackets)', cell((i) => {
    const l = i.summary.latencyMs
    return `${f(l.errataP50.median)} / ${f(l.errataP99.median)} (${f(l.bareP50.median)} / ${f(l.bareP99.median)})`
  }))
  row('load generator CPU, µs per request', cell((i) => triple(i.summary.generatorUsPerRequest)))
  row('acknowledged = indexed (X-Total-Count), nothing pending or failed', cell((i) => `${i.commit.acknowledged} = ${i.commit.indexed} (${i.met.commit ? 'OK' : '**MISMATCH**'})`))
}

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
  if (results.some((r) => r.ingestion)) ingestionRows(results, row)
  if (results.some((r) => r.postToVisible)) {
    row('POST → visible in GET events, p50 / p95 ms', (r) => (r.postToVisible ? `${f(r.postToVisible.p50)} / ${f(r.postToVisible.p95)}` : '–'))
    row('… of which the single POST /notify until 200, p50 / p95 ms', (r) =>
      r.postToVisible?.postP50 !== undefined ? `${f(r.postToVisible.postP50)} / ${f(r.postToVisible.postP95 ?? NaN)}` : '–',
    )
  }
  if (results.some((r) => r.reads)) {
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
  }
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
