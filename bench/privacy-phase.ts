// Privacy requests at scale (issue 16): a retrieval and a deletion of 100,000 events out of
// 1,000,000 — time, peak memory of the process, and how much a large deletion slows the
// errors list meanwhile (p95 during / p95 before, same run; target ≤ 2). During the deletion the
// errors list is timed in alternating slices: the deletion running, then paused (its job runner
// stopped, which hands the job back; a new runner resumes it), so load from elsewhere on the
// machine weighs on both sides alike.
import { sql } from 'drizzle-orm'
import pino from 'pino'
import type { AppDeps } from '../server/context.ts'
import { queryRows, type Database } from '../server/db/client.ts'
import { JobRunner } from '../server/jobs/job-runner.ts'
import { privacyDeps } from '../server/privacy/privacy-deps.ts'
import { privacyJobHandlers } from '../server/privacy/privacy.jobs.ts'
import { seedTriageData } from './seed-triage.ts'

interface Session {
  token: string
  api<T>(path: string, init?: { method?: string; json?: unknown }): Promise<{ status: number; body: T }>
}

interface Stats {
  count: number
  p50: number
  p95: number
  max: number
}

export interface PrivacyPhaseInput {
  engine: 'pglite' | 'postgres'
  database: Database
  deps: AppDeps
  url: string
  session: Session
  organizationId: string
  createProject(name: string): Promise<{ id: string }>
  stats(samples: number[]): Stats
  log(line?: string): void
  events: number
  errors: number
  /** Requests of GET errors timed before the deletion (the first baseline slice). */
  baselineRequests: number
  /** Length of each alternating slice during the deletion (running, then paused). */
  sliceMs: number
}

export interface PrivacyPhaseResult {
  seededEvents: number
  selected: number
  batchSize: number
  retrieval: { seconds: number; total: number; fileBytes: number; downloadSeconds: number; downloadLines: number; peakRssMiB: number; baseRssMiB: number }
  /** `seconds` is wall time from the request to COMPLETED less the paused slices; `slices` the running ones. */
  deletion: { seconds: number; deleted: number; remaining: number; peakRssMiB: number; baseRssMiB: number; slices: number }
  /** `before`: the deletion not running (before it, and its paused slices); `during`: running. */
  errorsList: { before: Stats; during: Stats; ratio: number }
}

const MiB = 1024 * 1024

/** Samples the process's resident memory every 25 ms until stopped; the highest seen. */
function watchRss(): () => number {
  let peak = process.memoryUsage().rss
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 25)
  return () => {
    clearInterval(timer)
    return Math.max(peak, process.memoryUsage().rss) / MiB
  }
}

/** The full normalized event a real notifier's would be (about 3 KB of JSON), per selected event. */
async function seedPayloads(database: Database, projectId: string, versions: string[]): Promise<void> {
  await database.db.execute(sql`
    INSERT INTO event_payloads (event_id, payload)
    SELECT g.id, convert_to(jsonb_build_object(
      'severity', 'error', 'unhandled', false, 'severity_reason', 'handledException', 'context', g.context,
      'grouping_hash', NULL, 'app_version', g.app_version, 'release_stage', g.release_stage, 'os_version', g.os_version,
      'user_id', g.user_id,
      'exceptions', jsonb_build_array(jsonb_build_object('class', g.error_class, 'message', g.message, 'type', 'nodejs',
        'stacktrace', (SELECT jsonb_agg(jsonb_build_object('line', 10 + f * 7, 'column', 5 + f, 'file', '/srv/app/src/module-' || f || '.js',
          'method', 'handler' || f, 'in_project', f < 4, 'code', NULL)) FROM generate_series(0, 9) AS f))),
      'meta_data', jsonb_build_object('request', jsonb_build_object('path', g.request_url, 'httpMethod', 'GET'),
        'account', jsonb_build_object('plan', 'pro', 'seats', 12, 'id', md5(g.user_id))),
      'user', jsonb_build_object('id', g.user_id, 'email', g.user_email, 'name', g.user_name),
      'app', jsonb_build_object('version', g.app_version, 'releaseStage', g.release_stage, 'type', 'node'),
      'device', jsonb_build_object('hostname', 'web-' || (hashtext(g.id) & 7), 'osName', g.os_name, 'osVersion', g.os_version,
        'browserName', g.browser_name, 'runtimeVersions', jsonb_build_object('node', '20.20.2')),
      'request', jsonb_build_object('url', g.request_url, 'httpMethod', 'GET', 'headers', jsonb_build_object('user-agent', 'Mozilla/5.0')),
      'breadcrumbs', (SELECT jsonb_agg(jsonb_build_object('timestamp', g.received_at, 'name', 'step ' || b, 'type', 'navigation',
        'meta_data', jsonb_build_object('to', '/page/' || b))) FROM generate_series(0, 4) AS b),
      'feature_flags', '[]'::jsonb, 'threads', '[]'::jsonb, 'session', NULL,
      'notifier', jsonb_build_object('name', 'Bugsnag Node', 'version', '9.0.0'))::text, 'UTF8')
    FROM events g
    WHERE g.project_id = ${projectId} AND g.app_version = ANY(${`{${versions.join(',')}}`}::text[])`)
}

export async function privacyPhase(input: PrivacyPhaseInput): Promise<PrivacyPhaseResult> {
  const { database, session, log } = input
  const project = await input.createProject('Bench Privacy')
  const started = performance.now()
  await seedTriageData(database.db, { projectId: project.id, errors: input.errors, events: input.events, vacuum: true, engine: input.engine }, log)
  // app.version is 1.0 … 1.19, one event in twenty each: two versions are 10 % of the events.
  const versions = ['1.0', '1.1']
  await seedPayloads(database, project.id, versions)
  await database.db.execute(sql`ANALYZE event_payloads`)
  const countEvents = async () =>
    (await queryRows<{ n: number }>(database.db, sql`SELECT count(*)::int AS n FROM events WHERE project_id = ${project.id}`))[0]!.n
  const seededEvents = await countEvents()
  log(`seeded ${seededEvents} events, payloads for versions ${versions.join(' and ')}, in ${((performance.now() - started) / 1000).toFixed(1)} s`)

  // The jobs run in this process, as in the server (server/main.ts).
  const logger = pino({ level: 'silent' })
  const privacy = privacyDeps(input.deps)
  const startRunner = () => {
    const started = new JobRunner({ database, logger, handlers: privacyJobHandlers(database.db, privacy, logger), pollMs: 50 })
    started.start()
    return started
  }
  let runner = startRunner()
  const filters = { 'app.version': versions.map((value) => ({ type: 'eq', value })) }
  const org = `/organizations/${input.organizationId}`
  const waitFor = async <T extends { status: string }>(path: string, done: (body: T) => boolean): Promise<T> => {
    for (;;) {
      const res = await session.api<T>(path)
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`)
      if (res.body.status === 'FAILED') throw new Error(`${path} failed: ${JSON.stringify(res.body)}`)
      if (done(res.body)) return res.body
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  try {
    // Retrieval.
    global.gc?.()
    const retrievalBase = process.memoryUsage().rss / MiB
    let peak = watchRss()
    let t0 = performance.now()
    const made = await session.api<{ id: string }>(`${org}/event_data_requests`, { method: 'POST', json: { filters, report_type: 'gdpr' } })
    if (made.status !== 201) throw new Error(`POST event_data_requests answered ${made.status}: ${JSON.stringify(made.body)}`)
    const request = await waitFor<{ status: string; total: number; file_bytes: number; url: string }>(`${org}/event_data_requests/${made.body.id}`, (r) => r.status === 'COMPLETED')
    const retrievalSeconds = (performance.now() - t0) / 1000
    const retrievalPeak = peak()
    log(`retrieval: ${request.total} events in ${retrievalSeconds.toFixed(1)} s, file ${(request.file_bytes / MiB).toFixed(1)} MiB gzip'd, peak RSS ${retrievalPeak.toFixed(0)} MiB (from ${retrievalBase.toFixed(0)})`)
    t0 = performance.now()
    const download = await fetch(`${input.url}${new URL(request.url).pathname}`, { headers: { Authorization: `token ${session.token}`, 'X-Version': '2', 'Accept-Encoding': 'identity' } })
    let downloadLines = 0
    const decoder = new TextDecoder()
    for await (const chunk of download.body as unknown as AsyncIterable<Uint8Array>) {
      for (const ch of decoder.decode(chunk, { stream: true })) if (ch === '\n') downloadLines += 1
    }
    const downloadSeconds = (performance.now() - t0) / 1000
    log(`download (decompressed on the way): ${downloadLines} lines in ${downloadSeconds.toFixed(1)} s`)

    // Baseline of the errors list, then the deletion with the list read in a loop meanwhile.
    const timeErrors = async () => {
      const t = performance.now()
      const res = await session.api<unknown[]>(`/projects/${project.id}/errors?per_page=30`)
      if (res.status !== 200) throw new Error(`GET errors answered ${res.status}`)
      return performance.now() - t
    }
    for (let i = 0; i < 20; i++) await timeErrors()
    const before: number[] = []
    for (let i = 0; i < input.baselineRequests; i++) before.push(await timeErrors())

    global.gc?.()
    const deletionBase = process.memoryUsage().rss / MiB
    peak = watchRss()
    t0 = performance.now()
    const deletion = await session.api<{ id: string }>(`${org}/event_data_deletions`, { method: 'POST', json: { filters, skip_confirmation: true } })
    if (deletion.status !== 201) throw new Error(`POST event_data_deletions answered ${deletion.status}: ${JSON.stringify(deletion.body)}`)
    const during: number[] = []
    const deletionPath = `${org}/event_data_deletions/${deletion.body.id}`
    const timeFor = async (samples: number[], ms: number) => {
      const end = performance.now() + ms
      while (performance.now() < end) samples.push(await timeErrors())
    }
    let pausedMs = 0
    let slices = 0
    let deleted: { status: string; deleted_events: number }
    for (;;) {
      await timeFor(during, input.sliceMs)
      slices += 1
      deleted = await waitFor<{ status: string; deleted_events: number }>(deletionPath, () => true)
      if (deleted.status === 'COMPLETED') break
      const paused = performance.now()
      await runner.stop()
      await timeFor(before, input.sliceMs)
      runner = startRunner()
      pausedMs += performance.now() - paused
    }
    const deletionSeconds = (performance.now() - t0 - pausedMs) / 1000
    const deletionPeak = peak()
    const remaining = await countEvents()
    const beforeStats = input.stats(before)
    const duringStats = input.stats(during)
    const ratio = duringStats.p95 / beforeStats.p95
    log(`deletion: ${deleted.deleted_events} events in ${deletionSeconds.toFixed(1)} s (${remaining} left), peak RSS ${deletionPeak.toFixed(0)} MiB (from ${deletionBase.toFixed(0)})`)
    log(`GET errors p95 without the deletion running ${beforeStats.p95.toFixed(2)} ms (${beforeStats.count} requests), with it ${duringStats.p95.toFixed(2)} ms (${duringStats.count} requests, ${slices} slices): ratio ${ratio.toFixed(2)} (target ≤ 2)`)
    return {
      seededEvents,
      selected: request.total,
      batchSize: privacy.batchSize,
      retrieval: {
        seconds: retrievalSeconds,
        total: request.total,
        fileBytes: request.file_bytes,
        downloadSeconds,
        downloadLines,
        peakRssMiB: retrievalPeak,
        baseRssMiB: retrievalBase,
      },
      deletion: { seconds: deletionSeconds, deleted: deleted.deleted_events, remaining, peakRssMiB: deletionPeak, baseRssMiB: deletionBase, slices },
      errorsList: { before: beforeStats, during: duringStats, ratio },
    }
  } finally {
    await runner.stop()
  }
}
