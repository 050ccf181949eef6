// Ingestion, measured by process (the `ingest` phase of `npm run bench`). Errata (`node --import tsx
// server/main.ts`, as `npm start` runs it) and the bare baseline (bench/bare-server.ts) each run in
// a process of their own and are loaded in alternating slices: bare, Errata, bare, …, Errata, bare.
// Per slice: the rate, and the CPU time of every thread of the server's process read from /proc,
// per event. CPU time is what other load on the machine leaves alone; wall-clock rates are not,
// hence each Errata slice is compared with the bare slices on either side of it. On PostgreSQL the
// database server's processes are counted as well. Errata is reached over HTTP and configured
// through its environment only, so this works whatever its insides look like.
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { queryRows, type Database } from '../server/db/client.ts'
import { openScratchPostgres } from '../server/db/scratch-database.ts'
import { buildNotifyPayload } from './payload.ts'
import {
  idleWait,
  parseStat,
  postgresPids,
  postgresRole,
  processDelta,
  readProcesses,
  readThreads,
  threadDelta,
  ticksToMicros,
  type IdleWait,
  type ProcessThreads,
  type ProcessTimes,
  type ThreadTimes,
} from './proc-cpu.ts'

export type Engine = 'pglite' | 'postgres'
type Generator = 'wrk' | 'autocannon'

const env = process.env
const root = fileURLToPath(new URL('..', import.meta.url))

export const ingestSettings = {
  connections: Number(env.BENCH_CONNECTIONS ?? 16),
  /** wrk threads (BENCH_WRK_THREADS); the connections are shared among them. */
  wrkThreads: Number(env.BENCH_WRK_THREADS ?? 1),
  /** Length of each timed slice, from its first request (BENCH_SLICE_SECONDS). */
  sliceSeconds: Number(env.BENCH_SLICE_SECONDS ?? 10),
  /** Errata slices (BENCH_SLICES); the bare server gets one more, so each Errata slice has one on either side. */
  slices: Number(env.BENCH_SLICES ?? 3),
  /** Untimed load on each server before the slices (BENCH_WARMUP_SECONDS). */
  warmupSeconds: Number(env.BENCH_WARMUP_SECONDS ?? 3),
  distinctBodies: 200,
  /** BENCH_LOAD_GENERATOR=wrk|autocannon; by default wrk when it is installed. */
  generator: (env.BENCH_LOAD_GENERATOR as Generator | undefined) ?? (findOnPath('wrk') ? 'wrk' : 'autocannon'),
}

/** The issue's targets: Errata's CPU per event against the bare server's per request, and the throughput ratio. */
export const ingestTargets = { cpuRatioMax: 4, throughputRatioMin: { pglite: 0.45, postgres: 0.4 } as Record<Engine, number> }

const log = (line = '') => process.stdout.write(`${line}\n`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function findOnPath(command: string): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(dir, command), constants.X_OK)
      return join(dir, command)
    } catch {
      // not in this directory
    }
  }
  return null
}

// ---------------------------------------------------------------------------------------------
// Child processes: each is killed when the phase fails or the bench is interrupted.

const running = new Set<ChildProcess>()
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

function startChild(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; stdout: 'pipe' | 'ignore' }) {
  const child = spawn(command, args, { cwd: root, env: options.env ?? env, stdio: ['ignore', options.stdout, 'pipe'] })
  running.add(child)
  child.once('exit', () => running.delete(child))
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-20_000)
  })
  return { child, stderr: () => stderr }
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode)
    else child.once('exit', (code) => resolve(code))
  })

/** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
async function stopChild(child: ChildProcess, graceMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited(child)
  clearTimeout(timer)
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

// ---------------------------------------------------------------------------------------------
// The two servers

interface RunningServer {
  label: string
  pid: number
  url: string
  child: ChildProcess
}

async function startBare(): Promise<RunningServer> {
  const port = await freePort()
  const { child, stderr } = startChild(process.execPath, ['--import', 'tsx', 'bench/bare-server.ts'], { env: { ...env, PORT: String(port) }, stdout: 'pipe' })
  await new Promise<void>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`the bare server did not start within 60 s:\n${stderr()}`)), 60_000)
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('listening')) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the bare server exited (${code}):\n${stderr()}`))
    })
  })
  return { label: 'bare', pid: child.pid!, url: `http://127.0.0.1:${port}`, child }
}

interface RunningErrata extends RunningServer {
  token: string
}

async function startErrataProcess(dir: string, databaseUrl: string | undefined): Promise<RunningErrata> {
  const port = await freePort()
  const token = randomBytes(20).toString('hex')
  const staticDir = join(dir, 'no-dashboard')
  mkdirSync(staticDir)
  const { child, stderr } = startChild(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: {
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
      API_PORT: '',
      ERRATA_PUBLIC_URL: '',
      DATA_DIR: join(dir, 'data'),
      DATABASE_URL: databaseUrl ?? '',
      ERRATA_STATIC_DIR: staticDir,
      // Production logging, one JSON line per request, written to /dev/null (stdout 'ignore').
      LOG_LEVEL: 'info',
      ERRATA_ADMIN_EMAIL: 'bench-admin@example.com',
      ERRATA_ADMIN_PASSWORD: randomBytes(12).toString('hex'),
      ERRATA_ADMIN_TOKEN: token,
    },
    stdout: 'ignore',
  })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`Errata exited while starting:\n${stderr()}`)
    if (Date.now() > deadline) throw new Error(`Errata did not answer GET /healthz within 120 s:\n${stderr()}`)
    const ok = await fetch(`${url}/healthz`).then(
      (res) => res.ok,
      () => false,
    )
    if (ok) break
    await sleep(100)
  }
  return { label: 'Errata', pid: child.pid!, url, child, token }
}

async function api<T>(errata: RunningErrata, path: string, init: { method?: string; json?: unknown } = {}) {
  const res = await fetch(`${errata.url}/api${path}`, {
    method: init.method ?? 'GET',
    headers: {
      Authorization: `token ${errata.token}`,
      'X-Version': '2',
      ...(init.json === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  })
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as T }
}

async function createProject(errata: RunningErrata): Promise<{ id: string; api_key: string }> {
  const org = await api<{ id: string }>(errata, '/user/organizations', { method: 'POST', json: { name: 'Bench Ingest Org' } })
  if (org.status !== 201) throw new Error(`creating an organization answered ${org.status}: ${JSON.stringify(org.body)}`)
  const project = await api<{ id: string; api_key: string }>(errata, `/organizations/${org.body.id}/projects`, {
    method: 'POST',
    json: { name: 'Bench Ingest', type: 'node' },
  })
  if (project.status !== 201) throw new Error(`creating a project answered ${project.status}: ${JSON.stringify(project.body)}`)
  return project.body
}

/**
 * The ingest backlog from /readyz (which answers 503 with it while the backlog is over its bound);
 * null while the database does not answer within the readiness bound (a busy embedded database).
 */
async function health(errata: RunningErrata): Promise<{ pending: number; failed: number } | null> {
  const res = await fetch(`${errata.url}/readyz`)
  const body = (await res.json()) as { ingest_queue?: { pending?: number; failed?: number } }
  if (res.status === 503 && !body.ingest_queue) return null
  if (!body.ingest_queue) throw new Error(`GET /readyz answered ${res.status}: ${JSON.stringify(body)}`)
  return { pending: Number(body.ingest_queue.pending), failed: Number(body.ingest_queue.failed ?? 0) }
}

/** Events the API lists for the project: X-Total-Count of its events list. */
async function indexedEvents(errata: RunningErrata, projectId: string): Promise<number> {
  const res = await api<unknown[]>(errata, `/projects/${projectId}/events?per_page=1`)
  const total = res.headers.get('X-Total-Count')
  if (res.status !== 200 || total === null) throw new Error(`GET events answered ${res.status} without X-Total-Count`)
  return Number(total)
}

// ---------------------------------------------------------------------------------------------
// Load

interface LoadRun {
  sent: number
  ok: number
  non2xx: number
  /** Wall clock (ms since the epoch) of the first request and of the last answer. */
  firstMs: number
  lastMs: number
  socketErrors: number
  timeouts: number
  latencyP50Ms: number
  latencyP99Ms: number
  /** CPU of the load generator's process, µs (null when it could not be read). */
  generatorCpuUs: number | null
}

const luaScript = fileURLToPath(new URL('./wrk-notify.lua', import.meta.url))

/** CPU of a process so far (utime + stime), µs; null when it is gone. */
function processCpuUs(pid: number | undefined): number | null {
  if (pid === undefined) return null
  try {
    const stat = parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))
    return ticksToMicros(stat.utime + stat.stime)
  } catch {
    return null
  }
}

/**
 * Loads `url` with POST /notify for `seconds` from the first request (wrk), or with `amount`
 * requests (autocannon, which has no way to stop at a time without dropping requests in flight).
 * Resolves once every request sent has its answer and the generator has exited.
 */
async function runLoad(generator: Generator, url: string, bodiesFile: string, apiKey: string, sentAt: string, seconds: number, amount: number): Promise<LoadRun> {
  const { connections, wrkThreads } = ingestSettings
  const { child, stderr } =
    generator === 'wrk'
      ? startChild(
          'wrk',
          // -d bounds the run if a request never gets its answer; normally the script drains well before.
          ['-t', String(wrkThreads), '-c', String(connections), '-d', `${Math.ceil(seconds) + 60}s`, '--timeout', '30s', '-s', luaScript, url, '--', bodiesFile, apiKey, String(Math.round(seconds * 1000)), sentAt],
          { stdout: 'pipe' },
        )
      : startChild(process.execPath, ['--import', 'tsx', 'bench/autocannon-load.ts', JSON.stringify({ url, apiKey, bodiesFile, connections, amount, sentAt })], { stdout: 'pipe' })
  let out = ''
  let drained = 0
  let generatorCpuUs: number | null = null
  let resultLine: string | undefined
  // Bounds, should a request never get its answer: wrk drains within milliseconds of its time;
  // autocannon's amount was sized to take about `seconds` at the rate seen last.
  const limitMs = (generator === 'wrk' ? seconds + 30 : seconds * 10 + 60) * 1000
  const hardStop = setTimeout(() => child.kill('SIGINT'), limitMs)
  const killer = setTimeout(() => child.kill('SIGKILL'), limitMs + 30_000)
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString()
    let newline: number
    while ((newline = out.indexOf('\n')) >= 0) {
      const line = out.slice(0, newline)
      out = out.slice(newline + 1)
      if (line === 'drained' && ++drained === wrkThreads) {
        // Every wrk thread has its answers: stop wrk now rather than at -d (it then prints its result).
        generatorCpuUs = processCpuUs(child.pid)
        child.kill('SIGINT')
      } else if (line.startsWith('bench-result ')) {
        resultLine = line.slice('bench-result '.length)
        generatorCpuUs ??= processCpuUs(child.pid)
      }
    }
  })
  const code = await exited(child)
  clearTimeout(hardStop)
  clearTimeout(killer)
  if (!resultLine) throw new Error(`${generator} gave no result (exit ${code}):\n${stderr()}`)
  const result = JSON.parse(resultLine) as Omit<LoadRun, 'latencyP50Ms' | 'latencyP99Ms' | 'generatorCpuUs'> & { latencyP50Us: number; latencyP99Us: number }
  return {
    sent: result.sent,
    ok: result.ok,
    non2xx: result.non2xx,
    firstMs: result.firstMs,
    lastMs: result.lastMs,
    socketErrors: result.socketErrors,
    timeouts: result.timeouts,
    latencyP50Ms: result.latencyP50Us / 1000,
    latencyP99Ms: result.latencyP99Us / 1000,
    generatorCpuUs,
  }
}

// ---------------------------------------------------------------------------------------------
// CPU readings

/**
 * Groups a process's threads for the report: the main thread (Errata's HTTP thread), then by
 * thread name. Node 20 names none of its threads ("node", like the process), so those are told
 * apart by what they wait in when idle, observed before the load: an event loop (epoll: worker
 * threads such as PGlite's, module-loader threads, V8's delayed-task runner) or a futex (V8's
 * platform workers, which also run GC and compilation, and libuv's thread pool: file writes, fsync).
 */
class ThreadGroups {
  private readonly waits = new Map<number, IdleWait>()

  constructor(
    private readonly pid: number,
    private readonly mainLabel: string,
  ) {}

  /** Samples what each thread not yet classified waits in (call while the server is idle). */
  async observeIdle(samples = 5): Promise<void> {
    for (let i = 0; i < samples; i++) {
      for (const tid of readThreads(this.pid)?.threads.keys() ?? []) {
        const wait = idleWait(this.pid, tid)
        // A thread with an event loop may wait on a futex a moment; a pool thread never waits in epoll.
        if (wait && this.waits.get(tid) !== 'event loop') this.waits.set(tid, wait)
      }
      await sleep(20)
    }
  }

  readonly groupOf = (thread: ThreadTimes, mainComm: string): string => {
    if (thread.tid === this.pid) return this.mainLabel
    if (thread.comm !== mainComm) return `"${thread.comm}" threads`
    const wait = this.waits.get(thread.tid)
    if (wait === 'event loop') return `"${mainComm}", event loop (workers, loaders)`
    if (wait === 'futex') return `"${mainComm}", pool (V8 platform, libuv)`
    return `"${mainComm}", other`
  }
}

interface CpuGroup {
  us: number
  usPerEvent: number
  threads: number
  /** Per event, the group's busiest thread (processes: 0). */
  busiestUsPerEvent: number
}

interface CpuReading {
  server: ProcessThreads
  postgres: Map<number, ProcessTimes> | null
}

/** The server's threads, and the PostgreSQL server's processes when `postmasterPid` is given. */
function readCpu(pid: number, postmasterPid: number | undefined): CpuReading {
  const server = readThreads(pid)
  if (!server) throw new Error(`process ${pid} is gone`)
  return { server, postgres: postmasterPid === undefined ? null : readProcesses(postgresPids(postmasterPid)) }
}

function cpuPerEvent(before: CpuReading, after: CpuReading, events: number, groups: ThreadGroups, postmasterPid: number | undefined) {
  const threads = threadDelta(before.server, after.server, (thread) => groups.groupOf(thread, after.server.comm))
  const result: Record<string, CpuGroup> = {}
  let totalUs = 0
  for (const [name, delta] of [...threads].sort((a, b) => b[1].ticks - a[1].ticks)) {
    const us = ticksToMicros(delta.ticks)
    totalUs += us
    result[name] = { us, usPerEvent: us / events, threads: delta.threads, busiestUsPerEvent: ticksToMicros(delta.busiestTicks) / events }
  }
  let postgres: { usPerEvent: number; roles: Record<string, number> } | undefined
  if (before.postgres && after.postgres) {
    const roles = processDelta(before.postgres, after.postgres, (p) => postgresRole(p, postmasterPid ?? null))
    let us = 0
    const perRole: Record<string, number> = {}
    for (const [role, ticks] of roles) {
      us += ticksToMicros(ticks)
      perRole[role] = ticksToMicros(ticks) / events
    }
    postgres = { usPerEvent: us / events, roles: perRole }
    totalUs += us
  }
  return { groups: result, postgres, serverUsPerEvent: (totalUs - (postgres ? postgres.usPerEvent * events : 0)) / events, totalUsPerEvent: totalUs / events }
}

// ---------------------------------------------------------------------------------------------
// Slices

interface Slice {
  server: 'bare' | 'errata'
  number: number
  load: LoadRun
  /** Bare: first request to last answer. Errata: first request until every event acknowledged in the slice was indexed. */
  seconds: number
  perSecond: number
  /** Errata: how long after the last answer the last event was indexed, ms. */
  indexedAfterMs?: number
  cpu: ReturnType<typeof cpuPerEvent>
  generatorUsPerRequest: number | null
}

interface MinMedMax {
  min: number
  median: number
  max: number
}

function minMedMax(values: number[]): MinMedMax {
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 0) return { min: NaN, median: NaN, max: NaN }
  const middle = Math.floor(sorted.length / 2)
  const median = sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
  return { min: sorted[0]!, median, max: sorted[sorted.length - 1]! }
}

const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '–')
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–')
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–')
const triple = (s: MinMedMax, digits = 0) => {
  const f = digits === 2 ? f2 : digits === 1 ? f1 : f0
  return `${f(s.min)} / ${f(s.median)} / ${f(s.max)}`
}

export async function ingestCpuPhase(engine: Engine, heading: (title: string) => void) {
  const settings = ingestSettings
  const generator = settings.generator
  if (generator === 'wrk' && !findOnPath('wrk')) throw new Error('BENCH_LOAD_GENERATOR=wrk but wrk is not installed (apt-get install wrk)')
  if (settings.wrkThreads < 1 || settings.wrkThreads > settings.connections) throw new Error('BENCH_WRK_THREADS must be between 1 and BENCH_CONNECTIONS')
  heading(`${engine}: a. ingestion by process: CPU per event and throughput, alternating slices`)
  const startedAt = new Date().toISOString()
  const loadAverageAtStart = loadavg()[0]!

  const dir = mkdtempSync(join(tmpdir(), 'errata-bench-ingest-'))
  // Undone in reverse order: the servers stopped, the scratch database dropped, the directory removed.
  const cleanups: Array<() => Promise<void>> = [async () => rmSync(dir, { recursive: true, force: true })]
  let cleaning: Promise<void> | undefined
  const cleanUp = () =>
    (cleaning ??= (async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch((err: unknown) => log(`cleanup: ${String(err)}`))
    })())
  const onSigint = () => {
    log('\ninterrupted: stopping the servers and the load, removing the temporary files')
    for (const child of running) child.kill('SIGKILL')
    void cleanUp().finally(() => process.exit(130))
  }
  process.once('SIGINT', onSigint)
  try {
    let scratch: Database | undefined
    let databaseUrl: string | undefined
    let postmasterPid: number | null | undefined // undefined: no PostgreSQL; null: its processes are not visible here
    if (engine === 'postgres') {
      scratch = await openScratchPostgres(env.BENCH_DATABASE_URL!, 'errata_bench_ingest', 2)
      const opened = scratch
      cleanups.push(() => opened.close())
      const [row] = await queryRows<{ name: string; pid: number }>(scratch.db, sql`SELECT current_database() AS name, pg_backend_pid() AS pid`)
      const url = new URL(env.BENCH_DATABASE_URL!)
      url.pathname = `/${row!.name}`
      databaseUrl = url.toString()
      postmasterPid = findPostmaster(row!.pid)
    }

    const bare = await startBare()
    cleanups.push(() => stopChild(bare.child, 5_000))
    const errata = await startErrataProcess(dir, databaseUrl)
    cleanups.push(() => stopChild(errata.child))
    const project = await createProject(errata)

    const sentAt = new Date().toISOString()
    const bodiesFile = join(dir, 'bodies.ndjson')
    const bodies = Array.from({ length: settings.distinctBodies }, (_, variant) => JSON.stringify(buildNotifyPayload(project.api_key, variant)))
    writeFileSync(bodiesFile, `${bodies.join('\n')}\n`)
    const meanBodyBytes = bodies.reduce((sum, body) => sum + Buffer.byteLength(body), 0) / bodies.length

    // The accepted-event log each engine has.
    const ingestLog = engine === 'postgres' ? 'ingest_log' : 'journal'
    const generatorLabel =
      generator === 'wrk'
        ? `wrk (${settings.wrkThreads} thread${settings.wrkThreads === 1 ? '' : 's'}, ${settings.connections} connections, bench/wrk-notify.lua)`
        : `autocannon in a child process (${settings.connections} connections; ${env.BENCH_LOAD_GENERATOR ? 'BENCH_LOAD_GENERATOR=autocannon' : 'wrk is not installed: apt-get install wrk'})`
    log(`load generator: ${generatorLabel}`)
    log(
      `bare server pid ${bare.pid}; Errata pid ${errata.pid} (${engine}, accepted-event log: ${ingestLog}${postmasterPid ? `, PostgreSQL postmaster pid ${postmasterPid}` : ''}); ` +
        `${settings.distinctBodies} distinct bodies of ${f0(meanBodyBytes)} bytes on average`,
    )
    log(`started ${startedAt}, load average ${loadAverageAtStart.toFixed(2)}; slices of ${settings.sliceSeconds} s after ${settings.warmupSeconds} s of warm-up each`)
    if (engine === 'postgres' && postmasterPid === null) log('PostgreSQL processes not visible in /proc (another machine?): their CPU is not counted')

    // Rates seen so far, to size autocannon's fixed amounts.
    const rates = { bare: 5_000, errata: 1_000 }
    const amountFor = (server: 'bare' | 'errata', seconds: number) => Math.max(settings.connections * 10, Math.round(rates[server] * seconds))

    let acknowledged = 0
    let non2xxErrata = 0
    let lostInFlight = 0
    let expectedIndexed = 0

    /** Polls until every acknowledged event is indexed; `atIndexed` runs the moment the backlog is seen empty. */
    async function waitIndexed<T>(atIndexed: () => T): Promise<{ at: number; value: T }> {
      const deadline = Date.now() + 600_000
      for (;;) {
        const pending = (await health(errata))?.pending ?? null
        const at = Date.now()
        if (pending === 0) {
          const value = atIndexed()
          const indexed = await indexedEvents(errata, project.id)
          if (indexed >= expectedIndexed) return { at, value }
        }
        if (Date.now() > deadline) throw new Error(`events still not indexed after 10 minutes (${pending} pending)`)
        await sleep(20)
      }
    }

    const threadGroups = { bare: new ThreadGroups(bare.pid, 'main thread'), errata: new ThreadGroups(errata.pid, 'HTTP thread (main)') }

    async function slice(server: 'bare' | 'errata', number: number, seconds: number): Promise<Slice> {
      const target = server === 'bare' ? bare : errata
      const pg = server === 'errata' && typeof postmasterPid === 'number' ? postmasterPid : undefined
      const before = readCpu(target.pid, pg)
      const load = await runLoad(generator, target.url, bodiesFile, project.api_key, sentAt, seconds, amountFor(server, seconds))
      const lost = load.sent - load.ok - load.non2xx
      let after: CpuReading
      let end = load.lastMs
      if (server === 'errata') {
        acknowledged += load.ok
        non2xxErrata += load.non2xx
        lostInFlight += lost
        expectedIndexed += load.ok
        const indexed = await waitIndexed(() => readCpu(target.pid, pg))
        after = indexed.value
        end = Math.max(indexed.at, load.lastMs)
      } else {
        after = readCpu(target.pid, undefined)
      }
      const elapsed = (end - load.firstMs) / 1000
      const perSecond = load.ok / elapsed
      rates[server] = perSecond
      await threadGroups[server].observeIdle(2) // threads started during the slice, now idle again
      return {
        server,
        number,
        load,
        seconds: elapsed,
        perSecond,
        indexedAfterMs: server === 'errata' ? end - load.lastMs : undefined,
        cpu: cpuPerEvent(before, after, load.ok, threadGroups[server], pg),
        generatorUsPerRequest: load.generatorCpuUs === null ? null : load.generatorCpuUs / Math.max(1, load.sent),
      }
    }

    // What each thread idles in, before any load.
    await threadGroups.bare.observeIdle()
    await threadGroups.errata.observeIdle()

    const warmBare = await slice('bare', 0, settings.warmupSeconds)
    const warmErrata = await slice('errata', 0, settings.warmupSeconds)
    log(`warm-up (not counted): bare ${warmBare.load.ok} requests, Errata ${warmErrata.load.ok} events (all indexed ${f0(warmErrata.indexedAfterMs ?? NaN)} ms after the last answer)`)

    const slices: Slice[] = []
    for (let i = 1; i <= settings.slices + 1; i++) {
      const b = await slice('bare', i, settings.sliceSeconds)
      slices.push(b)
      printSlice(b)
      if (i > settings.slices) break
      const e = await slice('errata', i, settings.sliceSeconds)
      slices.push(e)
      printSlice(e)
    }

    // The commit check: every event acknowledged (warm-up included) is listed by the API, nothing waits.
    let finalHealth = await health(errata)
    while (!finalHealth) {
      await sleep(200)
      finalHealth = await health(errata)
    }
    const indexedTotal = await indexedEvents(errata, project.id)
    const commit = {
      acknowledged,
      indexed: indexedTotal,
      pending: finalHealth.pending,
      failed: finalHealth.failed,
      non2xx: non2xxErrata,
      unansweredAtStop: lostInFlight,
      ok: indexedTotal === acknowledged && finalHealth.pending === 0 && finalHealth.failed === 0 && non2xxErrata === 0 && lostInFlight === 0,
    }

    const bareSlices = slices.filter((s) => s.server === 'bare')
    const errataSlices = slices.filter((s) => s.server === 'errata')
    const around = (s: Slice) => [bareSlices[s.number - 1]!, bareSlices[s.number]!]
    const throughputRatios = errataSlices.map((s) => s.perSecond / mean(around(s).map((b) => b.perSecond)))
    const cpuRatios = errataSlices.map((s) => s.cpu.totalUsPerEvent / mean(around(s).map((b) => b.cpu.totalUsPerEvent)))
    const groupNames = [...new Set(errataSlices.flatMap((s) => Object.keys(s.cpu.groups)))]
    const errataGroups = Object.fromEntries(
      groupNames.map((name) => [
        name,
        {
          usPerEvent: minMedMax(errataSlices.map((s) => s.cpu.groups[name]?.usPerEvent ?? 0)),
          threads: Math.max(...errataSlices.map((s) => s.cpu.groups[name]?.threads ?? 0)),
          busiestUsPerEvent: minMedMax(errataSlices.map((s) => s.cpu.groups[name]?.busiestUsPerEvent ?? 0)),
        },
      ]),
    )
    const postgresRoles = [...new Set(errataSlices.flatMap((s) => Object.keys(s.cpu.postgres?.roles ?? {})))]
    const summary = {
      bareRequestsPerSecond: minMedMax(bareSlices.map((s) => s.perSecond)),
      errataEventsPerSecond: minMedMax(errataSlices.map((s) => s.perSecond)),
      throughputRatio: minMedMax(throughputRatios),
      bareCpuUsPerRequest: minMedMax(bareSlices.map((s) => s.cpu.totalUsPerEvent)),
      errataCpuUsPerEvent: {
        groups: errataGroups,
        errataProcess: minMedMax(errataSlices.map((s) => s.cpu.serverUsPerEvent)),
        postgres: postmasterPid
          ? {
              total: minMedMax(errataSlices.map((s) => s.cpu.postgres?.usPerEvent ?? 0)),
              roles: Object.fromEntries(postgresRoles.map((role) => [role, minMedMax(errataSlices.map((s) => s.cpu.postgres?.roles[role] ?? 0))])),
            }
          : undefined,
        total: minMedMax(errataSlices.map((s) => s.cpu.totalUsPerEvent)),
      },
      cpuRatio: minMedMax(cpuRatios),
      latencyMs: {
        bareP50: minMedMax(bareSlices.map((s) => s.load.latencyP50Ms)),
        bareP99: minMedMax(bareSlices.map((s) => s.load.latencyP99Ms)),
        errataP50: minMedMax(errataSlices.map((s) => s.load.latencyP50Ms)),
        errataP99: minMedMax(errataSlices.map((s) => s.load.latencyP99Ms)),
      },
      generatorUsPerRequest: minMedMax(slices.flatMap((s) => (s.generatorUsPerRequest === null ? [] : [s.generatorUsPerRequest]))),
      indexedAfterLastAnswerMs: minMedMax(errataSlices.map((s) => s.indexedAfterMs ?? NaN)),
    }
    const targets = { cpuRatioMax: ingestTargets.cpuRatioMax, throughputRatioMin: ingestTargets.throughputRatioMin[engine] }
    const met = {
      cpuRatio: summary.cpuRatio.median <= targets.cpuRatioMax,
      throughputRatio: summary.throughputRatio.median >= targets.throughputRatioMin,
      commit: commit.ok,
    }
    const result = {
      startedAt,
      loadAverageAtStart,
      generator,
      generatorLabel,
      ingestLog,
      settings: { ...settings },
      meanBodyBytes,
      postgresVisible: engine === 'postgres' ? postmasterPid !== null : undefined,
      warmup: { bare: warmBare, errata: warmErrata },
      slices,
      summary,
      targets,
      met,
      commit,
    }
    printSummary(result)
    return result
  } finally {
    process.off('SIGINT', onSigint)
    await cleanUp()
  }
}

export type IngestCpuResult = Awaited<ReturnType<typeof ingestCpuPhase>>

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length

/** The postmaster of the backend serving our connection, when it runs on this machine. */
function findPostmaster(backendPid: number): number | null {
  try {
    const backend = parseStat(readFileSync(`/proc/${backendPid}/stat`, 'utf8'))
    const postmaster = parseStat(readFileSync(`/proc/${backend.ppid}/stat`, 'utf8'))
    return backend.comm === 'postgres' && postmaster.comm === 'postgres' ? backend.ppid : null
  } catch {
    return null
  }
}

function printSlice(s: Slice) {
  const name = `slice ${s.number} ${s.server === 'bare' ? 'bare  ' : 'Errata'}`
  const unit = s.server === 'bare' ? 'requests/s' : 'events/s  '
  const extra = s.server === 'errata' ? `, all indexed ${f0(s.indexedAfterMs ?? NaN)} ms after the last answer` : ''
  const pg = s.cpu.postgres ? ` (Errata ${f0(s.cpu.serverUsPerEvent)} + PostgreSQL ${f0(s.cpu.postgres.usPerEvent)})` : ''
  log(
    `${name} ${f0(s.perSecond).padStart(6)} ${unit} ${f0(s.cpu.totalUsPerEvent).padStart(5)} µs CPU each${pg}  ` +
      `[${s.load.ok} × 2xx in ${f2(s.seconds)} s${extra}; p50 ${f1(s.load.latencyP50Ms)} ms, p99 ${f1(s.load.latencyP99Ms)} ms` +
      `${s.load.non2xx ? `; non-2xx ${s.load.non2xx}` : ''}${s.load.socketErrors + s.load.timeouts ? `; errors ${s.load.socketErrors + s.load.timeouts}` : ''}]`,
  )
}

function printSummary(r: IngestCpuResult) {
  const { summary: s, targets, met, commit } = r
  const mark = (ok: boolean) => (ok ? 'met' : 'MISSED')
  log('')
  log(`                                                 min / median / max`)
  log(`bare server, requests/s                          ${triple(s.bareRequestsPerSecond)}`)
  log(`Errata, events/s acknowledged and indexed        ${triple(s.errataEventsPerSecond)}`)
  log(`throughput ratio Errata / bare (slices around)   ${triple(s.throughputRatio, 2)}  target ≥ ${targets.throughputRatioMin} (median): ${mark(met.throughputRatio)}`)
  log(`bare server CPU, µs per request                  ${triple(s.bareCpuUsPerRequest, 1)}`)
  log(`Errata CPU, µs per event, by thread group:`)
  const row = (name: string, values: MinMedMax, note = '') => log(`  ${name.padEnd(47)} ${triple(values).padEnd(20)}${note}`)
  for (const [name, group] of Object.entries(s.errataCpuUsPerEvent.groups)) {
    row(name, group.usPerEvent, group.threads > 1 ? `${group.threads} threads, the busiest ${f0(group.busiestUsPerEvent.median)} (median)` : '')
  }
  if (s.errataCpuUsPerEvent.postgres) {
    row('all Errata threads', s.errataCpuUsPerEvent.errataProcess)
    const roles = Object.entries(s.errataCpuUsPerEvent.postgres.roles)
      .filter(([, v]) => Math.abs(v.median) >= 0.5)
      .map(([role, v]) => `${role} ${f0(v.median)}`)
      .join(', ')
    row('PostgreSQL server processes', s.errataCpuUsPerEvent.postgres.total, `median: ${roles}`)
  }
  row('total', s.errataCpuUsPerEvent.total)
  log(`CPU ratio Errata per event / bare per request    ${triple(s.cpuRatio, 2)}  target ≤ ${targets.cpuRatioMax} (median): ${mark(met.cpuRatio)}`)
  log(
    `POST /notify latency under load, median of slices: Errata p50 ${f1(s.latencyMs.errataP50.median)} ms, p99 ${f1(s.latencyMs.errataP99.median)} ms; ` +
      `bare p50 ${f1(s.latencyMs.bareP50.median)} ms, p99 ${f1(s.latencyMs.bareP99.median)} ms`,
  )
  log(`load generator (${r.generator}) CPU, µs per request: ${triple(s.generatorUsPerRequest, 1)}`)
  log(
    `commit check: ${commit.acknowledged} acknowledged (2xx, warm-up included), ${commit.indexed} indexed (X-Total-Count), ` +
      `${commit.pending} pending, ${commit.failed} failed, ${commit.non2xx} non-2xx, ${commit.unansweredAtStop} unanswered → ` +
      (commit.ok ? 'OK, every acknowledged event is indexed' : 'MISMATCH'),
  )
}

