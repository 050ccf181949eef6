// `npm run bench`: ingestion (CPU per event and throughput next to a bare node:http server, each in
// a process of its own: bench/ingest-cpu.ts), POST-to-visible latency, and read latency on 10,000
// errors / 200,000 events. PGlite always; PostgreSQL too when BENCH_DATABASE_URL is set (a fresh
// database is created on that server and dropped afterwards).
// Results go to stdout and bench/.data/results-<engine>.json; BENCHMARKS.md records them.
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg, totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import pino from 'pino'
import { createServer } from 'node:http'
import { createApp } from '../server/app.ts'
import { createRequestListener } from '../server/ingest/accept/node-listener.ts'
import { createLoginThrottle } from '../server/auth/login-throttle.ts'
import { createToken } from '../server/auth/tokens.ts'
import { loadConfig } from '../server/config.ts'
import type { AppDeps } from '../server/context.ts'
import { openPglite, queryRows, type Database } from '../server/db/client.ts'
import { openScratchPostgres } from '../server/db/scratch-database.ts'
import { newId } from '../server/db/ids.ts'
import { migrate } from '../server/db/migrate.ts'
import { users } from '../server/db/schema.ts'
import { openIngestion } from '../server/ingest/pipeline/open.ts'
import { ingestCpuPhase, ingestSettings } from './ingest-cpu.ts'
import { buildNotifyPayload } from './payload.ts'
import { startProfile, type ProfileSummary } from './profile.ts'
import { markdownReport } from './report.ts'
import { privacyPhase } from './privacy-phase.ts'
import { retentionPhase } from './retention-phase.ts'
import { steadyRetentionPhase } from './steady-retention-phase.ts'
import { symbolicationIngestPhase } from './symbolication-ingest.ts'
import { runSymbolicationBench } from './symbolication.ts'
import { webhooksBench } from './webhooks.ts'
import { rateLimitsBench } from './rate-limits.ts'
import { nativeBench } from './native.ts'
import { countRows, seedProjectData } from './seed.ts'
import { seedTriageData } from './seed-triage.ts'

type Engine = 'pglite' | 'postgres'

const env = process.env
const settings = {
  ingest: ingestSettings,
  visibleTries: Number(env.BENCH_VISIBLE_TRIES ?? 50),
  readRequests: Number(env.BENCH_READ_REQUESTS ?? 300),
  seedErrors: Number(env.BENCH_SEED_ERRORS ?? 10_000),
  seedEvents: Number(env.BENCH_SEED_EVENTS ?? 200_000),
  profile: env.BENCH_PROFILE === '1',
  /** VACUUM after seeding (default on both engines: autovacuum on PostgreSQL, server/db/maintenance.ts on PGlite would); BENCH_VACUUM=0 skips it. */
  vacuum: env.BENCH_VACUUM === undefined ? undefined : env.BENCH_VACUUM === '1',
  triageErrors: Number(env.BENCH_TRIAGE_ERRORS ?? 50_000),
  triageEvents: Number(env.BENCH_TRIAGE_EVENTS ?? 1_000_000),
  triageUsers: Number(env.BENCH_TRIAGE_USERS ?? 20_000),
  triageRequests: Number(env.BENCH_TRIAGE_REQUESTS ?? 100),
  privacyErrors: Number(env.BENCH_PRIVACY_ERRORS ?? 50_000),
  privacyEvents: Number(env.BENCH_PRIVACY_EVENTS ?? 1_000_000),
  /** Each alternating slice of the errors list during the deletion: running, then paused. */
  privacySliceMs: Number(env.BENCH_PRIVACY_SLICE_MS ?? 3_000),
  /** The retention phase's project: its events span 30 days, a retention of 27 expires about 10 %. */
  retentionErrors: Number(env.BENCH_RETENTION_ERRORS ?? 50_000),
  retentionEvents: Number(env.BENCH_RETENTION_EVENTS ?? 1_000_000),
  /** The steady phase: events a simulated day, five weeks of them under a 7-day retention. */
  steadyEventsPerDay: Number(env.BENCH_STEADY_EVENTS_PER_DAY ?? 1_000),
  /** Comma-separated subset of ingest,visible,errors,event,triage,privacy,retention,steady,symbolication,webhooks,ratelimits,native (default: all). */
  phases: new Set((env.BENCH_PHASES ?? 'ingest,visible,errors,event,triage,privacy,retention,steady,symbolication,webhooks,ratelimits,native').split(',')),
}
const targets = { errorsListP95: 30, eventDetailP95: 20, triageP95: 100 }

const dataDir = fileURLToPath(new URL('./.data/', import.meta.url))

// ---------------------------------------------------------------------------------------------
// Small helpers

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)
  return sorted[Math.max(0, index)]!
}

interface LatencyStats {
  count: number
  p50: number
  p95: number
  max: number
}

function latencyStats(samples: number[]): LatencyStats {
  const sorted = [...samples].sort((a, b) => a - b)
  return { count: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted[sorted.length - 1] ?? NaN }
}

const ms = (value: number) => `${value.toFixed(2)} ms`
const log = (line = '') => process.stdout.write(`${line}\n`)
const heading = (title: string) => log(`\n── ${title} ${'─'.repeat(Math.max(0, 70 - title.length))}`)

function machine() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8')
  return {
    date: new Date().toISOString(),
    cpus: availableParallelism(),
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    // Other work on the machine skews every number here; it is printed so a busy run is recognizable.
    loadAverage1m: loadavg()[0]!,
  }
}

// ---------------------------------------------------------------------------------------------
// Database and server

async function openBenchDatabase(engine: Engine): Promise<Database> {
  if (engine === 'pglite') {
    const dir = `${dataDir}pglite`
    rmSync(dir, { recursive: true, force: true })
    const database = await openPglite(dir)
    await migrate(database)
    return database
  }
  return openScratchPostgres(env.BENCH_DATABASE_URL!, 'errata_bench')
}

interface RunningErrata {
  url: string
  deps: AppDeps
  close(): Promise<void>
}

/** Errata in this process, with the real app and settings (the read phases; ingestion runs it as a process of its own). */
async function startErrata(database: Database): Promise<RunningErrata> {
  // Production settings (info-level request logs included), with the logs going to /dev/null.
  const config = loadConfig({
    ERRATA_INGEST_BATCH_SIZE: env.ERRATA_INGEST_BATCH_SIZE, // tuning knobs pass through for experiments
    ERRATA_INGEST_FLUSH_MS: env.ERRATA_INGEST_FLUSH_MS,
    ERRATA_INDEX_BATCH_SIZE: env.ERRATA_INDEX_BATCH_SIZE,
    ERRATA_INDEX_LINGER_MS: env.ERRATA_INDEX_LINGER_MS,
    LOG_LEVEL: 'info',
    ERRATA_STATIC_DIR: `${dataDir}no-dashboard`,
  })
  const logger = pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false }))
  const ingestWriter = await openIngestion(database, config.ingest, logger, { journalDir: database.engine === 'pglite' ? `${dataDir}pglite/ingest-journal` : undefined })
  const deps: AppDeps = { config, database, logger, ingestWriter, loginThrottle: createLoginThrottle() }
  // The server's own listener, as `npm start` serves: /notify on node:http, the rest through the app.
  const listener = await createRequestListener(createApp(deps), deps)
  const server = createServer(listener)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  // Seeding keeps the bench's keep-alive connection idle for many seconds; Node's default 5 s
  // server-side timeout would close it under fetch's feet ("other side closed").
  server.keepAliveTimeout = 10 * 60_000
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    deps,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      listener.close()
      await ingestWriter.close()
      },
  }
}

interface ApiSession {
  token: string
  api<T>(path: string, init?: { method?: string; json?: unknown }): Promise<{ status: number; body: T }>
}

async function createSession(errata: RunningErrata): Promise<ApiSession> {
  const id = newId()
  await errata.deps.database.db.insert(users).values({ id, email: `bench-${id}@example.com`, name: 'Bench User' })
  const { token } = await createToken(errata.deps.database.db, id, 'bench')
  return {
    token,
    api: async (path, init = {}) => {
      const res = await fetch(`${errata.url}/api${path}`, {
        method: init.method ?? 'GET',
        headers: {
          Authorization: `token ${token}`,
          'X-Version': '2',
          ...(init.json === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      })
      const text = await res.text()
      return { status: res.status, body: (text ? JSON.parse(text) : null) as never }
    },
  }
}

async function createProject(session: ApiSession, organizationId: string, name: string) {
  const res = await session.api<{ id: string; api_key: string }>(`/organizations/${organizationId}/projects`, {
    method: 'POST',
    json: { name, type: 'node' },
  })
  if (res.status !== 201) throw new Error(`creating project answered ${res.status}: ${JSON.stringify(res.body)}`)
  return res.body
}

// ---------------------------------------------------------------------------------------------
// Phases

/** Runs `fn`, CPU-profiling this process meanwhile when BENCH_PROFILE=1, and prints where the time went. */
async function profiled<T>(label: string, fn: () => Promise<T>): Promise<[T, ProfileSummary | undefined]> {
  if (!settings.profile) return [await fn(), undefined]
  const stop = await startProfile()
  const result = await fn()
  const profile = await stop()
  log(`  CPU profile (${label}, ${profile.totalMs.toFixed(0)} ms), self time by area:`)
  for (const entry of profile.byArea) log(`    ${entry.percent.toFixed(1).padStart(5)}%  ${entry.name}`)
  log('  top functions:')
  for (const entry of profile.top.slice(0, 25)) log(`    ${entry.percent.toFixed(1).padStart(5)}%  ${entry.name}`)
  return [result, profile]
}

async function timeRequests(count: number, request: (i: number) => Promise<void>): Promise<LatencyStats> {
  for (let i = 0; i < Math.min(20, count); i++) await request(i) // warm-up: JIT, plan and buffer caches
  const samples: number[] = []
  for (let i = 0; i < count; i++) {
    const started = performance.now()
    await request(i)
    samples.push(performance.now() - started)
  }
  return latencyStats(samples)
}

async function runEngine(engine: Engine) {
  // Ingestion starts its own processes (and on PostgreSQL its own database).
  const ingestion = settings.phases.has('ingest') ? await ingestCpuPhase(engine, heading) : undefined
  const inProcess = (['visible', 'errors', 'event', 'triage', 'privacy', 'retention'] as const).some((phase) => settings.phases.has(phase))
  const { visible, reads, triage, privacy, retention } = inProcess ? await inProcessPhases(engine) : {}
  // On a database of its own (PGlite in a temporary data directory), with a clock it moves.
  let steady: Awaited<ReturnType<typeof steadyRetentionPhase>> | undefined
  if (settings.phases.has('steady')) {
    heading(`${engine}: steady ingest of ${settings.steadyEventsPerDay} events a day under a 7-day retention, 5 weeks`)
    steady = await steadyRetentionPhase(engine, settings.steadyEventsPerDay, log, env.BENCH_DATABASE_URL)
  }
  // In-process PGlite of its own: measured once, with the first engine.
  const symbolication = settings.phases.has('symbolication') && engine === 'pglite' ? await symbolicationPhase() : undefined
  // The webhooks phase runs on its own in-memory PGlite (bench/webhooks.ts), once.
  let webhooks: Awaited<ReturnType<typeof webhooksBench>> | undefined
  if (engine === 'pglite' && settings.phases.has('webhooks')) {
    heading('webhooks: pipeline cost with three webhooks, and deliveries per second')
    webhooks = await webhooksBench(log)
  }
  // So does the rate limiting phase (bench/rate-limits.ts).
  let rateLimits: Awaited<ReturnType<typeof rateLimitsBench>> | undefined
  if (engine === 'pglite' && settings.phases.has('ratelimits')) {
    heading('rate limits: pipeline cost without a quota, under one, and sampling above one')
    rateLimits = await rateLimitsBench(log)
  }
  // Native symbols and minidumps need no database: once, with the first engine.
  let native: Awaited<ReturnType<typeof nativeBench>> | undefined
  if (engine === 'pglite' && settings.phases.has('native')) {
    heading('native: SymCache lookups, index builds of a 5 MB .sym and a ~20 MB .so, a 1 MB minidump')
    native = await nativeBench(log)
  }
  return {
    engine,
    settings: { ...settings, phases: [...settings.phases] },
    ingestion,
    postToVisible: visible,
    reads,
    triage,
    privacy,
    retention,
    steady,
    symbolication,
    webhooks,
    rateLimits,
    native,
    targetsMet: {
      nativeLookups: native && native.sym.lookupsPerSecond.median >= native.sym.target.lookupsPerSecond,
      nativeSymBuild: native && native.sym.buildMs.max < native.sym.target.buildMs,
      nativeElfBuild: native && ('skipped' in native.elf ? undefined : native.elf.buildMs.max < native.elf.target.buildMs),
      nativeMinidump: native && native.minidump.ms.median < native.minidump.target.ms,
      symbolicationRatio: symbolication?.ingest.met,
      symbolicationWarm: symbolication && symbolication.frames.warm.framesPerCpuSecond >= symbolication.frames.warm.target,
      // What an event pays: the first lookup through symbolicate(), the upload read from the database; wall and CPU time.
      symbolicationCold:
        symbolication &&
        Math.max(symbolication.frames.cold.symbolicateFirstLookupMs, symbolication.frames.cold.symbolicateFirstLookupCpuMs) <= symbolication.frames.cold.target,
      webhooksThroughputRatio: webhooks && webhooks.throughputRatio.median >= 0.9,
      privacyRatio: privacy && privacy.errorsList.ratio <= 2,
      retentionRatio: retention && retention.errorsList.ratio <= 2,
      triageP95: triage && Object.values(triage.queries).every((q) => !q.target || q.stats.p95 < targets.triageP95),
      ingestCpuRatio: ingestion?.met.cpuRatio,
      ingestThroughputRatio: ingestion?.met.throughputRatio,
      ingestCommit: ingestion?.met.commit,
      errorsListP95: reads && reads.errorsList.p95 < targets.errorsListP95,
      eventDetailP95: reads && reads.eventDetail.p95 < targets.eventDetailP95,
    },
  }
}

/** f. Source maps: ingestion with symbolication on / off (alternating slices), frames per second, first lookup, memory. */
async function symbolicationPhase() {
  heading('f. source maps: ingestion with symbolication on / off, alternating slices (pipeline work, PGlite)')
  const ingest = await symbolicationIngestPhase(log)
  heading('f. source maps: frames per second (warm ~1 MB map), first lookup (cold ~5 MB map), 200 maps cached')
  const frames = await runSymbolicationBench()
  log(
    `warm, one frame's lookup, path, in_project and code:  ${frames.warm.framesPerSecond.toLocaleString('en-US')} frames/s, ` +
      `${frames.warm.framesPerCpuSecond.toLocaleString('en-US')} per CPU second (target ≥ ${frames.warm.target.toLocaleString('en-US')})`,
  )
  log(
    `warm, through symbolicate() (500 events × 20 frames): ${frames.warm.symbolicateFramesPerSecond.toLocaleString('en-US')} frames/s, ` +
      `${frames.warm.symbolicateFramesPerCpuSecond.toLocaleString('en-US')} per CPU second`,
  )
  log(
    `cold first lookup, map stored without sourcesContent: ${frames.cold.firstLookupMs} ms wall, ${frames.cold.firstLookupCpuMs} ms CPU (target ≤ ${frames.cold.target} ms); ` +
      `stored whole: ${frames.cold.wholeMapFirstLookupMs} ms wall, ${frames.cold.wholeMapFirstLookupCpuMs} ms CPU; ` +
      `through symbolicate() with the database read: ${frames.cold.symbolicateFirstLookupMs} ms wall, ${frames.cold.symbolicateFirstLookupCpuMs} ms CPU`,
  )
  log(
    `${frames.memory.maps} maps of ${(frames.memory.mapBytes / 1024 / 1024).toFixed(1)} MB cached: heap +${(frames.memory.heapBytes / 1024 / 1024).toFixed(0)} MiB, ` +
      `RSS +${(frames.memory.rssBytes / 1024 / 1024).toFixed(0)} MiB, estimated ${(frames.memory.estimatedBytes / 1024 / 1024).toFixed(0)} MiB, peak RSS ${(frames.memory.peakRssBytes / 1024 / 1024).toFixed(0)} MiB`,
  )
  return { ingest, frames }
}

/** The phases that run Errata in this process, on one database. */
async function inProcessPhases(engine: Engine) {
  heading(`${engine}: setting up`)
  const database = await openBenchDatabase(engine)
  const errata = await startErrata(database)
  const session = await createSession(errata)
  const org = await session.api<{ id: string }>('/user/organizations', { method: 'POST', json: { name: 'Bench Org' } })
  if (org.status !== 201) throw new Error(`creating organization answered ${org.status}`)
  const visibleProject = await createProject(session, org.body.id, 'Bench Visible')
  log(`Errata on ${errata.url} (${engine}); project ${visibleProject.id}`)

  const visible = settings.phases.has('visible') ? await visiblePhase(engine, errata, session, visibleProject) : undefined
  const reads = settings.phases.has('errors') || settings.phases.has('event') ? await readsPhase(engine, database, session, org.body.id) : undefined
  const triage = settings.phases.has('triage') ? await triagePhase(engine, database, session, org.body.id) : undefined
  const privacy = settings.phases.has('privacy')
    ? await (async () => {
        heading(`${engine}: e. privacy requests: 10 % of ${settings.privacyEvents} events`)
        return privacyPhase({
          engine,
          database,
          deps: errata.deps,
          url: errata.url,
          session,
          organizationId: org.body.id,
          createProject: (name) => createProject(session, org.body.id, name),
          stats: latencyStats,
          log,
          events: settings.privacyEvents,
          errors: settings.privacyErrors,
          baselineRequests: settings.readRequests,
          sliceMs: settings.privacySliceMs,
        })
      })()
    : undefined
  const retention = settings.phases.has('retention')
    ? await (async () => {
        heading(`${engine}: retention: a sweep expiring about 10 % of ${settings.retentionEvents} events`)
        return retentionPhase({
          engine,
          database,
          deps: errata.deps,
          session,
          createProject: (name) => createProject(session, org.body.id, name),
          stats: latencyStats,
          log,
          events: settings.retentionEvents,
          errors: settings.retentionErrors,
          baselineRequests: settings.readRequests,
          sliceMs: settings.privacySliceMs,
        })
      })()
    : undefined

  await errata.close()
  await database.close()
  return { visible, reads, triage, privacy, retention }
}

type Project = { id: string; api_key: string }

/** b. POST-to-visible: one event at a time, then poll the events list until it is the newest. */
async function visiblePhase(engine: Engine, errata: RunningErrata, session: ApiSession, project: Project) {
  heading(`${engine}: b. POST-to-visible latency (${settings.visibleTries} tries)`)
  const postSamples: number[] = []
  const [visibleSamples] = await profiled('POST-to-visible', async () => {
    const visibleSamples: number[] = []
    for (let i = 0; i < settings.visibleTries; i++) {
      const marker = `bench/visible/${i}/${randomBytes(3).toString('hex')}`
      const body = JSON.stringify(buildNotifyPayload(project.api_key, i, marker))
      const started = performance.now()
      const post = await fetch(`${errata.url}/notify`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': project.api_key },
        body,
      })
      await post.text()
      if (post.status !== 200) throw new Error(`POST /notify answered ${post.status}`)
      postSamples.push(performance.now() - started)
      for (let polls = 0; ; polls++) {
        const res = await session.api<{ context: string | null }[]>(`/projects/${project.id}/events?per_page=1`)
        if (res.status !== 200) throw new Error(`GET events answered ${res.status}: ${JSON.stringify(res.body)}`)
        if (res.body[0]?.context === marker) break
        if (polls > 5000) throw new Error('event never became visible')
      }
      visibleSamples.push(performance.now() - started)
    }
    return visibleSamples
  })
  const visible = latencyStats(visibleSamples)
  const postOnly = latencyStats(postSamples)
  log(`POST → visible in GET events: p50 ${ms(visible.p50)}, p95 ${ms(visible.p95)}, max ${ms(visible.max)}`)
  log(`  of which POST /notify until 200 (committed): p50 ${ms(postOnly.p50)}, p95 ${ms(postOnly.p95)}`)
  return { ...visible, postP50: postOnly.p50, postP95: postOnly.p95 }
}

/** c. Reads on a big project, seeded with SQL. */
async function readsPhase(engine: Engine, database: Database, session: ApiSession, organizationId: string) {
  heading(`${engine}: c. reads on ${settings.seedErrors} errors / ${settings.seedEvents} events`)
  const readProject = await createProject(session, organizationId, 'Bench Reads')
  const seedStarted = performance.now()
  const { payloadBytes } = await seedProjectData(database.db, {
    projectId: readProject.id,
    errors: settings.seedErrors,
    events: settings.seedEvents,
    vacuum: settings.vacuum ?? true,
  })
  const seededEvents = await countRows(database.db, 'events', readProject.id)
  const seededErrors = await countRows(database.db, 'errors', readProject.id)
  const seedSeconds = (performance.now() - seedStarted) / 1000
  const vacuumed = settings.vacuum ?? true
  log(
    `seeded ${seededErrors} errors, ${seededEvents} events (+ payloads of ${payloadBytes} bytes of JSON each, compressed by the database) in ${seedSeconds.toFixed(1)} s, ` +
      `then ${vacuumed ? 'VACUUM ANALYZE' : 'ANALYZE (no VACUUM)'}`,
  )

  const expectOk = (label: string, status: number, body: unknown) => {
    if (status !== 200) throw new Error(`${label} answered ${status}: ${JSON.stringify(body).slice(0, 300)}`)
  }
  const noStats: LatencyStats = { count: 0, p50: NaN, p95: NaN, max: NaN }
  // The floor every API request pays (HTTP, token lookup, X-Version, logging), to read the others against.
  const userFloor = await timeRequests(settings.readRequests, async () => {
    const res = await session.api('/user')
    expectOk('GET user', res.status, res.body)
  })
  log(`GET /user (auth + framework floor):            p50 ${ms(userFloor.p50)}, p95 ${ms(userFloor.p95)}`)
  const [errorsList, errorsListProfile] = !settings.phases.has('errors')
    ? [noStats, undefined]
    : await profiled('errors list', () =>
        timeRequests(settings.readRequests, async () => {
          const res = await session.api<unknown[]>(`/projects/${readProject.id}/errors?per_page=30`)
          expectOk('GET errors', res.status, res.body)
          if (res.body.length !== 30) throw new Error(`GET errors returned ${res.body.length} rows, expected 30`)
        }),
      )
  log(`GET /projects/:id/errors (last_seen desc, 30):  p50 ${ms(errorsList.p50)}, p95 ${ms(errorsList.p95)} (target < ${targets.errorsListP95} ms)`)

  // Not a target of the issue, but the dashboard and API scripts page through it: the project's events list.
  const [eventsList] = !settings.phases.has('errors')
    ? [noStats]
    : await profiled('events list', () =>
        timeRequests(Math.ceil(settings.readRequests / 3), async () => {
          const res = await session.api<unknown[]>(`/projects/${readProject.id}/events?per_page=10`)
          expectOk('GET events', res.status, res.body)
          if (res.body.length !== 10) throw new Error(`GET events returned ${res.body.length} rows, expected 10`)
        }),
      )
  log(`GET /projects/:id/events (10, newest first):   p50 ${ms(eventsList.p50)}, p95 ${ms(eventsList.p95)} (no target)`)

  const sampleIds = (
    await queryRows<{ id: string }>(
      database.db,
      sql`SELECT id FROM events WHERE project_id = ${readProject.id} ORDER BY md5(id) LIMIT ${settings.readRequests + 20}`,
    )
  ).map((row) => row.id)
  const [eventDetail, eventDetailProfile] = !settings.phases.has('event')
    ? [noStats, undefined]
    : await profiled('event detail', () =>
        timeRequests(settings.readRequests, async (i) => {
          const id = sampleIds[i % sampleIds.length]!
          const res = await session.api<{ id: string }>(`/projects/${readProject.id}/events/${id}`)
          expectOk('GET event', res.status, res.body)
          if (res.body.id !== id) throw new Error(`GET event returned ${res.body.id}, expected ${id}`)
        }),
      )
  log(`GET /projects/:id/events/:id (detail):        p50 ${ms(eventDetail.p50)}, p95 ${ms(eventDetail.p95)} (target < ${targets.eventDetailP95} ms)`)
  return { seededErrors, seededEvents, seedSeconds, vacuumed, userFloor, errorsList, eventsList, eventDetail, errorsListProfile, eventDetailProfile }
}

/** d. Triage reads (filters, trends, pivots) on a large, skewed project. */
async function triagePhase(engine: Engine, database: Database, session: ApiSession, organizationId: string) {
  heading(`${engine}: d. triage on ${settings.triageErrors} errors / ${settings.triageEvents} events`)
  const project = await createProject(session, organizationId, 'Bench Triage')
  const seedStarted = performance.now()
  await seedTriageData(database.db, {
    projectId: project.id,
    errors: settings.triageErrors,
    events: settings.triageEvents,
    users: settings.triageUsers,
    vacuum: settings.vacuum ?? true,
    engine,
  }, log)
  const seedSeconds = (performance.now() - seedStarted) / 1000
  const seededEvents = await countRows(database.db, 'events', project.id)
  const seededErrors = await countRows(database.db, 'errors', project.id)
  log(`seeded ${seededErrors} errors (with events), ${seededEvents} events and their rollups in ${seedSeconds.toFixed(1)} s`)
  // Storage: what the tables holding events, errors and rollups take with their indexes, per
  // event. The seeded events carry no stored payload (a real one adds about 2.4 KB, see the
  // privacy phase), so this is the share the filter structures weigh most in. Meaningful with
  // BENCH_PHASES=triage (other phases add their own projects to these tables).
  const storage = await queryRows<{ table: string; bytes: number | string }>(
    database.db,
    sql`SELECT c.relname AS table, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname IN
          ('events', 'errors', 'error_users', 'error_hourly_counts', 'project_hourly_counts', 'pivot_counts')
        ORDER BY 2 DESC`,
  )
  const storageBytesPerEvent = storage.reduce((sum, row) => sum + Number(row.bytes), 0) / seededEvents
  log(`storage: ${storageBytesPerEvent.toFixed(0)} bytes per event (${storage.map((row) => `${row.table} ${(Number(row.bytes) / 1e6).toFixed(0)} MB`).join(', ')})`)
  const [busiest] = await queryRows<{ id: string; events_count: number }>(
    database.db,
    sql`SELECT id, events_count::int FROM errors WHERE project_id = ${project.id} ORDER BY events_count DESC LIMIT 1`,
  )
  const f = (field: string, value: string, type = 'eq') =>
    `filters[${field}][][type]=${type}&filters[${field}][][value]=${encodeURIComponent(value)}`
  const base = `/projects/${project.id}`
  // Every query is a target (p95 < 100 ms at 1M events): the common reads, and the combinations
  // outside the rollups (free text, ne / empty / substring on an event field, two and three event
  // fields, a time window with a field, a filtered user pivot) that scan events.
  const plan: Array<{ key: string; label: string; path: string; target: boolean; minRows: number }> = [
    { key: 'errorsStatusStage', label: 'errors: status open + release stage production', path: `${base}/errors?per_page=30&${f('error.status', 'open')}&${f('app.release_stage', 'production')}`, target: true, minRows: 30 },
    { key: 'errorsSinceVersion', label: 'errors: seen in 7d + app.version 1.3', path: `${base}/errors?per_page=30&${f('event.since', '7d')}&${f('app.version', '1.3')}`, target: true, minRows: 1 },
    { key: 'errorsLast7dByEvents', label: 'errors: last 7 days by events (matching counts)', path: `${base}/errors?per_page=30&sort=events&${f('event.since', '7d')}`, target: true, minRows: 30 },
    { key: 'errorsLast24hStage', label: 'errors: last 24 h + stage production (matching counts)', path: `${base}/errors?per_page=30&${f('event.since', '24h')}&${f('app.release_stage', 'production')}`, target: true, minRows: 30 },
    { key: 'errorsTwoEventFields', label: 'errors: stage staging + os windows (per-event scan)', path: `${base}/errors?per_page=30&${f('app.release_stage', 'staging')}&${f('device.os_name', 'windows')}`, target: true, minRows: 0 },
    { key: 'errorsThreeEventFields', label: 'errors: stage production + os linux + browser Firefox', path: `${base}/errors?per_page=30&${f('app.release_stage', 'production')}&${f('device.os_name', 'linux')}&${f('device.browser_name', 'Firefox')}`, target: true, minRows: 0 },
    { key: 'errorsSearch', label: 'errors: free-text search "failure #123"', path: `${base}/errors?per_page=30&${f('search', 'failure #123')}`, target: true, minRows: 1 },
    { key: 'errorsStageNe', label: 'errors: release stage is not production', path: `${base}/errors?per_page=30&${f('app.release_stage', 'production', 'ne')}`, target: true, minRows: 30 },
    { key: 'errorsBrowserEmpty', label: 'errors: browser is empty', path: `${base}/errors?per_page=30&${f('device.browser_name', 'true', 'empty')}`, target: true, minRows: 0 },
    { key: 'errorsEmailSubstring', label: 'errors: user email contains "user123"', path: `${base}/errors?per_page=30&${f('user.email', 'user123')}`, target: true, minRows: 1 },
    { key: 'trend30d', label: 'project trend, 30 days at 1h', path: `${base}/trend?resolution=1h&${f('event.since', '30d')}`, target: true, minRows: 720 },
    { key: 'trend30dOpen', label: 'project trend, 30 days at 1h, status open', path: `${base}/trend?resolution=1h&${f('event.since', '30d')}&${f('error.status', 'open')}`, target: true, minRows: 720 },
    { key: 'pivotUsersProject', label: 'user.id pivot, project (top 30)', path: `${base}/pivots/user.id/values?per_page=30`, target: true, minRows: 30 },
    { key: 'pivotStagesOpen', label: 'release stage pivot, project, status open (matching errors’ rollups)', path: `${base}/pivots/app.release_stage/values?per_page=30&${f('error.status', 'open')}`, target: true, minRows: 3 },
    { key: 'pivotUsersBusiestError', label: `user.id pivot, busiest error (${busiest?.events_count ?? 0} events)`, path: `${base}/errors/${busiest?.id}/pivots/user.id/values?per_page=30`, target: true, minRows: 30 },
    { key: 'pivotUsersErrorFiltered', label: 'user.id pivot, busiest error, stage production (event scan)', path: `${base}/errors/${busiest?.id}/pivots/user.id/values?per_page=30&${f('app.release_stage', 'production')}`, target: true, minRows: 30 },
  ]
  const queries: Record<string, { label: string; target: boolean; stats: LatencyStats }> = {}
  for (const query of plan) {
    const stats = await timeRequests(settings.triageRequests, async () => {
      const res = await session.api<unknown[]>(query.path)
      if (res.status !== 200) throw new Error(`${query.label} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`)
      if (res.body.length < query.minRows) throw new Error(`${query.label} returned ${res.body.length} rows, expected ≥ ${query.minRows}`)
    })
    queries[query.key] = { label: query.label, target: query.target, stats }
    log(`${query.label.padEnd(62)} p50 ${ms(stats.p50)}, p95 ${ms(stats.p95)}${query.target ? ` (target < ${targets.triageP95} ms)` : ''}`)
  }
  return { seededErrors, seededEvents, seedSeconds, storageBytesPerEvent, queries }
}

async function main() {
  mkdirSync(dataDir, { recursive: true })
  const info = machine()
  log(`Errata benchmark — ${info.date}`)
  log(`machine: ${info.cpus} CPUs (${info.cpuModel}), ${info.memoryGiB} GiB RAM, Node ${info.node}, load average ${info.loadAverage1m.toFixed(2)}`)

  const engines: Engine[] = env.BENCH_ENGINES
    ? (env.BENCH_ENGINES.split(',') as Engine[])
    : env.BENCH_DATABASE_URL
      ? ['pglite', 'postgres']
      : ['pglite']
  if (engines.includes('postgres') && !env.BENCH_DATABASE_URL) throw new Error('postgres needs BENCH_DATABASE_URL')

  const results = []
  for (const engine of engines) {
    const result = await runEngine(engine)
    writeFileSync(`${dataDir}results-${engine}.json`, JSON.stringify({ machine: info, ...result }, null, 2))
    results.push(result)
  }

  heading('summary')
  const mark = (ok: boolean | undefined) => (ok ? 'met' : 'MISSED')
  for (const r of results) {
    const parts: string[] = []
    if (r.ingestion) {
      const { summary, targets: t } = r.ingestion
      parts.push(
        `ingest CPU ${summary.errataCpuUsPerEvent.total.median.toFixed(0)} µs/event = ${summary.cpuRatio.median.toFixed(2)}× bare (≤ ${t.cpuRatioMax}) [${mark(r.targetsMet.ingestCpuRatio)}], ` +
          `${summary.errataEventsPerSecond.median.toFixed(0)}/s = ${summary.throughputRatio.median.toFixed(2)}× bare (≥ ${t.throughputRatioMin}) [${mark(r.targetsMet.ingestThroughputRatio)}], ` +
          `commit check [${r.targetsMet.ingestCommit ? 'OK' : 'MISMATCH'}]`,
      )
    }
    if (r.postToVisible) parts.push(`visible p50 ${ms(r.postToVisible.p50)} p95 ${ms(r.postToVisible.p95)}`)
    if (r.reads) {
      parts.push(`errors p95 ${ms(r.reads.errorsList.p95)} [${mark(r.targetsMet.errorsListP95)}]`)
      parts.push(`event p95 ${ms(r.reads.eventDetail.p95)} [${mark(r.targetsMet.eventDetailP95)}]`)
    }
    if (r.triage) parts.push(`triage (every query p95 < ${targets.triageP95} ms) [${mark(r.targetsMet.triageP95)}]`)
    if (r.symbolication) {
      const { ingest, frames } = r.symbolication
      parts.push(
        `source maps: ingestion on/off ${ingest.ratio.wall.median.toFixed(2)} (CPU ${ingest.ratio.cpu.median.toFixed(2)}; ≥ ${ingest.target}) [${mark(r.targetsMet.symbolicationRatio)}], ` +
          `${frames.warm.framesPerCpuSecond.toLocaleString('en-US')} frames per CPU second [${mark(r.targetsMet.symbolicationWarm)}], ` +
          `cold through symbolicate() ${frames.cold.symbolicateFirstLookupMs} ms (CPU ${frames.cold.symbolicateFirstLookupCpuMs} ms) [${mark(r.targetsMet.symbolicationCold)}]`,
      )
    }
    if (r.privacy) {
      parts.push(
        `privacy: retrieval ${r.privacy.retrieval.seconds.toFixed(1)} s, deletion ${r.privacy.deletion.seconds.toFixed(1)} s, ` +
          `errors p95 during/before ${r.privacy.errorsList.ratio.toFixed(2)} [${mark(r.targetsMet.privacyRatio)}]`,
      )
    }
    if (r.retention) {
      parts.push(
        `retention: sweep of ${r.retention.sweep.deleted} events ${r.retention.sweep.seconds.toFixed(1)} s, ` +
          `errors p95 during/before ${r.retention.errorsList.ratio.toFixed(2)} [${mark(r.targetsMet.retentionRatio)}]`,
      )
    }
    if (r.steady) {
      const { growth, sweepEventsPerSecond: rate } = r.steady
      parts.push(
        `steady ingest under retention: growth over the last two periods ${growth.dataDir === null ? '' : `data directory ${(growth.dataDir * 100).toFixed(1)} %, `}` +
          `database ${(growth.database * 100).toFixed(1)} %; sweep median ${rate.median.toFixed(0)} events/s`,
      )
    }
    log(`${r.engine.padEnd(8)} ${parts.join('; ')}`)
  }
  log(`load average at the end: ${loadavg()[0]!.toFixed(2)}`)
  heading('markdown (for BENCHMARKS.md)')
  log(markdownReport(results.map((r) => ({ machine: info, ...r }))))
  log(`\nfull results: ${engines.map((e) => `bench/.data/results-${e}.json`).join(', ')}`)
  rmSync(`${dataDir}pglite`, { recursive: true, force: true })
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    const cause = err instanceof Error && err.cause ? `\ncaused by: ${String(err.cause)}` : ''
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}${cause}\n`)
    process.exit(1)
  },
)
