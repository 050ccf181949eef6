// Releases: created by events, sessions and POST /build (the real bugsnag-build-reporter 2.0.0),
// listed and read through the API with their figures (docs/releases.md).
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Release, ReleaseGroup } from '../../contract/releases.ts'
import { notifierEvent } from '../test-support/ingest.ts'
import { seedMember, seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, listen, type TestContext, type TestUser } from '../test-support/test-app.ts'

type ReportBuild = (
  build: Record<string, unknown>,
  options: { endpoint: string; path?: string; logger?: Record<'debug' | 'info' | 'warn' | 'error', (...args: unknown[]) => void> },
) => Promise<void>
const reportBuild = createRequire(import.meta.url)('bugsnag-build-reporter') as ReportBuild
const quiet = { debug() {}, info() {}, warn() {}, error() {} }
const execFileAsync = promisify(execFile)

let ctx: TestContext
let server: { url: string; close(): Promise<void> }
let main: SeededProject
let outsider: TestUser
let member: TestUser

beforeAll(async () => {
  ctx = await createTestContext({ publicUrl: undefined })
  server = await listen(ctx)
  main = await seedProject(ctx, { user: 'Release Admin', organization: 'Release Org', project: 'Shop' })
  outsider = await ctx.createUser('Release Outsider')
  member = await seedMember(ctx, main.organization.id, 'Release Member')
})
afterAll(async () => {
  await server?.close()
  await ctx?.close()
})

const api = (path: string, token = main.user.token) => ctx.request(`/api${path}`, { token })

async function notify(errorClass: string, version: string, stage = 'production', extra: Record<string, unknown> = {}): Promise<void> {
  const res = await ctx.request('/notify', {
    method: 'POST',
    headers: { 'Bugsnag-Api-Key': main.project.api_key },
    json: { events: [notifierEvent(errorClass, { app: { version, releaseStage: stage }, ...extra })] },
  })
  expect(res.status).toBe(200)
}

async function sessions(version: string, count: number, stage = 'production'): Promise<void> {
  const res = await ctx.request('/sessions', {
    method: 'POST',
    headers: { 'Bugsnag-Api-Key': main.project.api_key },
    json: { app: { version, releaseStage: stage }, sessionCounts: [{ startedAt: new Date().toISOString(), sessionsStarted: count }] },
  })
  expect(res.status).toBe(202)
}

async function releases(query = ''): Promise<Release[]> {
  const res = await api(`/projects/${main.project.id}/releases${query}`)
  expect(res.status).toBe(200)
  return (await res.json()) as Release[]
}

describe('releases from events, sessions and builds', () => {
  it('creates a release on the first event or session of a version in a stage, newest first', async () => {
    await notify('CheckoutError', '1.0.0')
    await sessions('1.1.0', 3)
    await notify('StagingOnly', '1.1.0', 'staging')
    const list = await releases()
    expect(list.map((r) => [r.release_stage, r.app_version, r.release_source])).toEqual([
      ['staging', '1.1.0', 'event'],
      ['production', '1.1.0', 'session'],
      ['production', '1.0.0', 'event'],
    ])
    expect((await releases('?release_stage=staging')).map((r) => r.app_version)).toEqual(['1.1.0'])
  })

  it('takes a build from the real bugsnag-build-reporter, which the release then shows', async () => {
    await reportBuild(
      {
        apiKey: main.project.api_key,
        appVersion: '1.2.0',
        releaseStage: 'production',
        builderName: 'ci-bot',
        sourceControl: { provider: 'github', repository: 'https://github.com/acme/shop', revision: 'abc123' },
        metadata: { pipeline: 'nightly' },
      },
      { endpoint: server.url, logger: quiet },
    )
    const [built] = await releases('?per_page=1')
    expect(built).toMatchObject({
      app_version: '1.2.0',
      release_stage: 'production',
      release_source: 'build_api',
      builder_name: 'ci-bot',
      build_tool: 'bugsnag-build-reporter',
      metadata: { pipeline: 'nightly' },
      source_control: { provider: 'github', repository: 'https://github.com/acme/shop', revision: 'abc123', revision_url: 'https://github.com/acme/shop/commit/abc123' },
    })
    // A later event of the built version keeps the release, and its build details.
    await notify('BuiltError', '1.2.0')
    expect((await releases()).filter((r) => r.app_version === '1.2.0')).toEqual([expect.objectContaining({ builder_name: 'ci-bot', errors_introduced_count: 1 })])
  })

  it('takes a build from the reporter\'s command line, as the releases page shows it', async () => {
    const cli = fileURLToPath(new URL('../../node_modules/bugsnag-build-reporter/bin/cli.js', import.meta.url))
    // Asynchronously: the server answering it runs in this process.
    const run = await execFileAsync(
      process.execPath,
      [cli, '--api-key', main.project.api_key, '--app-version', '1.4.0', '--release-stage', 'beta', '--builder-name', 'cli-user', '--endpoint', server.url],
      { encoding: 'utf8', cwd: tmpdir(), timeout: 30_000 },
    )
    expect(run.stdout + run.stderr).toContain('build info sent')
    expect(await releases('?release_stage=beta')).toEqual([
      expect.objectContaining({ app_version: '1.4.0', release_source: 'build_api', builder_name: 'cli-user' }),
    ])
  })

  it('answers POST /build 200, 400 naming the field and 401 for an unknown key; the reporter gives up on those', async () => {
    const post = (body: unknown, path = '/build') =>
      fetch(`${server.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
    expect((await post({ apiKey: main.project.api_key, appVersion: '1.3.0' })).status).toBe(200)
    const missing = await post({ apiKey: main.project.api_key })
    expect(missing.status).toBe(400)
    expect(await missing.json()).toEqual({ errors: ['appVersion: required: the version that was built'] })
    const unknown = await post({ apiKey: '0'.repeat(32), appVersion: '1' }, '/')
    expect(unknown.status).toBe(401)
    expect(await unknown.json()).toEqual({ errors: ['apiKey: no project has this API key'] })
    await expect(reportBuild({ apiKey: 'f'.repeat(32), appVersion: '9.9.9' }, { endpoint: server.url, logger: quiet })).rejects.toThrow('bugsnag-build-reporter failed')
  })
})

describe('release figures', () => {
  it('counts sessions, unhandled sessions, crash-free rate, errors introduced and seen, and regressions', async () => {
    await sessions('2.0.0', 4)
    await notify('Crash200', '2.0.0', 'production', { unhandled: true, session: { id: 's-1', startedAt: new Date().toISOString(), events: { handled: 0, unhandled: 1 } } })
    await notify('Regressed', '1.0.0')
    const regressed = ((await (await api(`/projects/${main.project.id}/errors?per_page=100`)).json()) as Array<{ id: string; error_class: string }>).find(
      (e) => e.error_class === 'Regressed',
    )!
    await ctx.request(`/api/projects/${main.project.id}/errors/${regressed.id}`, { method: 'PATCH', token: main.user.token, json: { operation: 'fix' } })
    await notify('Regressed', '2.0.0')
    const release = (await releases()).find((r) => r.app_version === '2.0.0' && r.release_stage === 'production')!
    expect(release).toMatchObject({
      total_sessions_count: 4,
      sessions_count_in_last_24h: 4,
      unhandled_sessions_count: 1,
      crash_free_rate: 0.75,
      errors_introduced_count: 1,
      errors_seen_count: 2,
      regressions_count: 1,
    })
    const one = await api(`/projects/${main.project.id}/releases/${release.id}`)
    expect(await one.json()).toMatchObject({ id: release.id, regressions_count: 1 })
    const error = await api(`/projects/${main.project.id}/errors/${regressed.id}`)
    expect(await error.json()).toMatchObject({ first_release: { release_stage: 'production', app_version: '1.0.0' } })
  })
})

describe('release groups and pages', () => {
  it('pages with Link and X-Total-Count, and reads release groups and their releases', async () => {
    const first = await api(`/projects/${main.project.id}/release_groups?release_stage_name=production&top_only=false&visible_only=false&per_page=2`)
    expect(first.status).toBe(200)
    const total = Number(first.headers.get('X-Total-Count'))
    expect(total).toBeGreaterThanOrEqual(5)
    const seen = ((await first.json()) as ReleaseGroup[]).map((g) => g.id)
    let next = /<([^>]+)>; rel="next"/.exec(first.headers.get('Link') ?? '')?.[1]
    while (next) {
      const res = await ctx.request(next.replace(/^http:\/\/[^/]+/, ''), { token: main.user.token })
      seen.push(...((await res.json()) as ReleaseGroup[]).map((g) => g.id))
      next = /<([^>]+)>; rel="next"/.exec(res.headers.get('Link') ?? '')?.[1]
    }
    expect(new Set(seen).size).toBe(total)
    const group = (await (await api(`/release_groups/${seen[0]}`)).json()) as ReleaseGroup
    expect(group).toMatchObject({ id: seen[0], release_stage_name: 'production', first_release_id: seen[0], releases_count: 1 })
    const builds = (await (await api(`/release_groups/${seen[0]}/releases`)).json()) as Release[]
    expect(builds.map((b) => b.id)).toEqual([seen[0]])
    const top = (await (await api(`/projects/${main.project.id}/release_groups?top_only=true`)).json()) as ReleaseGroup[]
    expect(top.every((g) => g.sessions_count_in_last_24h > 0)).toBe(true)
  })

  it('answers 404 to outsiders, 200 to members, and 400 naming a bad parameter', async () => {
    const [release] = await releases()
    expect((await api(`/projects/${main.project.id}/releases`, outsider.token)).status).toBe(404)
    expect((await api(`/projects/${main.project.id}/releases/${release!.id}`, outsider.token)).status).toBe(404)
    expect((await api(`/release_groups/${release!.id}`, outsider.token)).status).toBe(404)
    expect((await api(`/release_groups/${release!.id}`, member.token)).status).toBe(200)
    const bad = await api(`/projects/${main.project.id}/releases?direction=up`)
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { errors: string[] }).errors[0]).toMatch(/^direction: /)
    const badTop = await api(`/projects/${main.project.id}/release_groups?top_only=maybe`)
    expect(await badTop.json()).toEqual({ errors: ['top_only: must be true or false'] })
  })
})

describe('releases by version', () => {
  it('orders by release stage, then version newest first (semver, else natural order), through every page', async () => {
    const project = await seedProject(ctx, { user: main.user, project: 'Versions' })
    // First seen in an order unlike the versions': 1.10.0 before 1.9.0, a pre-release last.
    const seen: [string, string][] = [
      ['production', '1.10.0'],
      ['production', '1.9.0'],
      ['staging', 'build 10'],
      ['production', '2.0.0'],
      ['staging', 'build 9'],
      ['production', '2.0.0-beta.1'],
    ]
    for (const [stage, version] of seen) {
      const res = await ctx.request('/sessions', {
        method: 'POST',
        headers: { 'Bugsnag-Api-Key': project.project.api_key },
        json: { app: { version, releaseStage: stage }, sessionCounts: [{ startedAt: new Date().toISOString(), sessionsStarted: 1 }] },
      })
      expect(res.status).toBe(202)
    }
    const listed: string[] = []
    let next: string | undefined = `/api/projects/${project.project.id}/releases?sort=version&per_page=4`
    while (next) {
      const res = await ctx.request(next.replace(/^http:\/\/[^/]+/, ''), { token: main.user.token })
      expect(res.status).toBe(200)
      expect(res.headers.get('X-Total-Count')).toBe('6')
      listed.push(...((await res.json()) as Release[]).map((r) => `${r.release_stage} ${r.app_version}`))
      next = /<([^>]+)>; rel="next"/.exec(res.headers.get('Link') ?? '')?.[1]
    }
    expect(listed).toEqual([
      'production 2.0.0',
      'production 2.0.0-beta.1',
      'production 1.10.0',
      'production 1.9.0',
      'staging build 10',
      'staging build 9',
    ])
    const oldestFirst = await ctx.request(`/api/projects/${project.project.id}/releases?sort=version&direction=asc&release_stage=staging`, {
      token: main.user.token,
    })
    expect(((await oldestFirst.json()) as Release[]).map((r) => r.app_version)).toEqual(['build 9', 'build 10'])
    const bad = await ctx.request(`/api/projects/${project.project.id}/releases?sort=semver`, { token: main.user.token })
    expect(await bad.json()).toEqual({ errors: ['sort: must be release_time, timestamp or version'] })
  })
})
