// The legacy v1 API through the app, on the same data as v2: requests carry no X-Version header.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LegacyError, LegacyProject, LegacyUser } from '../../contract/legacy.ts'
import { createApiPortApp } from '../app.ts'
import { collaborators } from '../db/schema.ts'
import { notifierEvent } from '../test-support/ingest.ts'
import { seedMember, seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

let ctx: TestContext
let acme: SeededProject
let member: TestUser
let outsider: SeededProject
const PASSWORD = 'correct horse battery'

/** A v1 request: no X-Version header (unless given), the token as `Authorization: token …`. */
async function v1(path: string, init: { method?: string; token?: string; json?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
  await ctx.deps.ingestWriter.indexed()
  const headers = new Headers(init.headers)
  if (init.token) headers.set('Authorization', `token ${init.token}`)
  if (init.json !== undefined) headers.set('Content-Type', 'application/json')
  return ctx.app.request(`http://errata.test${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
  })
}

async function json<T>(res: Response, status = 200): Promise<T> {
  const body = res.status === 204 ? null : await res.json()
  expect(res.status, JSON.stringify(body)).toBe(status)
  return body as T
}

/** Sends events to the project through /notify. */
async function notify(apiKey: string, events: Record<string, unknown>[]): Promise<void> {
  const res = await ctx.request('/notify', { method: 'POST', headers: { 'Bugsnag-Api-Key': apiKey }, json: { payloadVersion: '4', events } })
  expect(res.status).toBe(200)
}

const event = (errorClass: string, version: string, stage = 'production', context = 'GET /checkout', severity = 'error') =>
  notifierEvent(errorClass, { app: { version, releaseStage: stage }, context, severity })

async function errorsOf(project: string, query = '', token = acme.user.token): Promise<LegacyError[]> {
  return json<LegacyError[]>(await v1(`/api/projects/${project}/errors${query}`, { token }))
}

/** Every page of a list, following Link rel="next" to the end. */
async function followAll<T>(path: string, token: string): Promise<{ pages: T[][]; urls: string[] }> {
  const pages: T[][] = []
  const urls: string[] = []
  let url: string | null = `http://errata.test${path}`
  while (url) {
    urls.push(url)
    const res = await v1(url.replace('http://errata.test', ''), { token })
    pages.push(await json<T[]>(res))
    url = /<([^>]+)>; rel="next"/.exec(res.headers.get('Link') ?? '')?.[1] ?? null
  }
  return { pages, urls }
}

beforeAll(async () => {
  ctx = await createTestContext()
  acme = await seedProject(ctx, { user: 'Ada', organization: 'Acme', project: 'Checkout' })
  member = await seedMember(ctx, acme.organization.id, 'Member')
  outsider = await seedProject(ctx, { user: 'Outsider', organization: 'Elsewhere' })
  await notify(acme.project.api_key, [
    event('VersionError', '2.9.9', 'staging', 'GET /cart'),
    event('VersionError', '2.10.0'),
    event('VersionError', '2.10.0'),
    event('NewError', '10.0.0', 'production', 'GET /checkout', 'warning'),
    event('OldError', '1.0.0', 'development', 'GET /', 'info'),
  ])
}, 60_000)

afterAll(async () => {
  await ctx?.close()
})

describe('the legacy Errors API', () => {
  it('lists errors with the legacy fields: counts by name, absolute addresses, Deprecation and the v2 successor', async () => {
    const res = await v1(`/api/projects/${acme.project.id}/errors`, { token: acme.user.token })
    expect(res.headers.get('X-Version')).toBe('1')
    expect(res.headers.get('Deprecation')).toBe('true')
    expect(res.headers.get('Link')).toBe(`<http://errata.test/api/projects/${acme.project.id}/errors>; rel="successor-version"`)
    const list = await json<LegacyError[]>(res)
    const error = list.find((e) => e.class === 'VersionError')!
    expect(Object.keys(error).sort()).toEqual(
      ['id', 'class', 'last_message', 'last_context', 'resolved', 'occurrences', 'users_affected', 'contexts', 'release_stages', 'app_versions',
        'assigned_user_id', 'first_received', 'last_received', 'comments_url', 'events_url', 'html_url', 'url'].sort(),
    )
    expect(error).toMatchObject({
      last_message: 'VersionError happened',
      resolved: false,
      occurrences: 3,
      contexts: { 'GET /cart': 1, 'GET /checkout': 2 },
      release_stages: { staging: 1, production: 2 },
      app_versions: { '2.9.9': 1, '2.10.0': 2 },
      assigned_user_id: null,
      url: `http://errata.test/api/errors/${error.id}`,
      events_url: `http://errata.test/api/errors/${error.id}/events`,
      comments_url: `http://errata.test/api/projects/${acme.project.id}/errors/${error.id}/comments`,
      html_url: `http://errata.test/projects/${acme.project.id}/errors/${error.id}`,
    })
    expect(new Date(error.first_received).getTime()).toBeLessThanOrEqual(new Date(error.last_received).getTime())
  })

  it('filters by release_stages, severity, status and app_versions compared as versions', async () => {
    const classes = async (query: string) => (await errorsOf(acme.project.id, query)).map((e) => e.class).sort()
    expect(await classes('?release_stages=staging,development')).toEqual(['OldError', 'VersionError'])
    expect(await classes('?severity=warning,info')).toEqual(['NewError', 'OldError'])
    expect(await classes('?app_versions=gte2.10.0')).toEqual(['NewError', 'VersionError'])
    expect(await classes('?app_versions=lt2.10.0')).toEqual(['OldError', 'VersionError'])
    expect(await classes('?app_versions=eq10.0.0')).toEqual(['NewError'])
    expect(await classes('?app_versions=gte2.0.0,lt3.0.0')).toEqual(['VersionError'])
    expect(await classes('?app_versions=gt99')).toEqual([])
    expect(await classes('?status=fixed')).toEqual([])
    expect(await classes('?status=open&severity=error')).toEqual(['VersionError'])
    const bad = await v1(`/api/projects/${acme.project.id}/errors?app_versions=2.0`, { token: acme.user.token })
    expect((await json<{ errors: string[] }>(bad, 400)).errors[0]).toMatch(/^app_versions: /)
    expect(await json<{ errors: string[] }>(await v1(`/api/projects/${acme.project.id}/errors?sort=created_at`, { token: acme.user.token }), 400)).toEqual({
      errors: [expect.stringMatching(/^sort: /)],
    })
  })

  it('sorts by updated_at in either direction, and adds the most recent event when asked', async () => {
    const desc = await errorsOf(acme.project.id, '?sort=updated_at')
    const asc = await errorsOf(acme.project.id, '?direction=asc')
    expect(asc.map((e) => e.id)).toEqual([...desc].reverse().map((e) => e.id))
    expect(desc.every((e) => !('most_recent_event' in e))).toBe(true)
    const withEvent = await errorsOf(acme.project.id, '?most_recent_event=true')
    const versionError = withEvent.find((e) => e.class === 'VersionError')!
    expect(versionError.most_recent_event).toMatchObject({ app_version: '2.10.0', url: expect.stringMatching(/^http:\/\/errata\.test\/api\//) })
    const one = await json<LegacyError>(await v1(`/api/errors/${versionError.id}?most_recent_event=true`, { token: member.token }))
    expect(one).toEqual(versionError)
  })

  it('resolves and reopens through PATCH, seen as fixed and open through v2', async () => {
    const [error] = await errorsOf(acme.project.id, '?severity=info')
    const v2 = async () => (await (await ctx.request(`/api/projects/${acme.project.id}/errors/${error!.id}`, { token: acme.user.token })).json()).status
    const resolved = await v1(`/api/errors/${error!.id}`, { method: 'PATCH', token: member.token, json: { resolved: true } })
    expect(resolved.headers.get('Link')).toContain(`/api/projects/${acme.project.id}/errors/${error!.id}>; rel="successor-version"`)
    expect((await json<LegacyError>(resolved)).resolved).toBe(true)
    expect(await v2()).toBe('fixed')
    // The query string form, as the old API took it.
    expect((await json<LegacyError>(await v1(`/api/errors/${error!.id}?resolved=false`, { method: 'PATCH', token: member.token }))).resolved).toBe(false)
    expect(await v2()).toBe('open')
    expect(await json<{ errors: string[] }>(await v1(`/api/errors/${error!.id}`, { method: 'PATCH', token: member.token, json: { resolved: 'yes' } }), 400)).toEqual({
      errors: [expect.stringMatching(/^resolved: /)],
    })
  })

  it('deletes an error with its events (admins only): gone from v2 and from the project counters', async () => {
    await notify(acme.project.api_key, [event('Doomed', '3.0.0'), event('Doomed', '3.0.0')])
    const doomed = (await errorsOf(acme.project.id)).find((e) => e.class === 'Doomed')!
    const before = await (await ctx.request(`/api/projects/${acme.project.id}`, { token: acme.user.token })).json()
    expect(await json(await v1(`/api/errors/${doomed.id}`, { method: 'DELETE', token: member.token }), 403)).toEqual({ errors: [expect.any(String)] })
    await json(await v1(`/api/errors/${doomed.id}`, { method: 'DELETE', token: acme.user.token }), 204)
    expect((await ctx.request(`/api/projects/${acme.project.id}/errors/${doomed.id}`, { token: acme.user.token })).status).toBe(404)
    const events = await ctx.request(`/api/projects/${acme.project.id}/events?per_page=100`, { token: acme.user.token })
    expect(((await events.json()) as { error_id: string }[]).some((e) => e.error_id === doomed.id)).toBe(false)
    const after = await (await ctx.request(`/api/projects/${acme.project.id}`, { token: acme.user.token })).json()
    expect(after.open_error_count).toBe(before.open_error_count - 1)
    expect((await v1(`/api/errors/${doomed.id}`, { token: acme.user.token })).status).toBe(404)
  })

  it('pages a 95-error list by following Link to the end, 30 a page by default', async () => {
    const big = await seedProject(ctx, { user: acme.user, organization: 'Paging', project: 'Many' })
    await notify(big.project.api_key, Array.from({ length: 95 }, (_, i) => event(`Paged${i}`, '1.0.0')))
    const { pages, urls } = await followAll<LegacyError>(`/api/projects/${big.project.id}/errors`, acme.user.token)
    expect(pages.map((page) => page.length)).toEqual([30, 30, 30, 5])
    expect(new Set(pages.flat().map((e) => e.id)).size).toBe(95)
    expect(new URL(urls[1]!).searchParams.get('offset')).toBe('30')
    expect(new URL(urls[3]!).searchParams.get('per_page')).toBe('30')
    const small = await followAll<LegacyError>(`/api/projects/${big.project.id}/errors?per_page=40&direction=asc&release_stages=production`, acme.user.token)
    expect(small.pages.map((page) => page.length)).toEqual([40, 40, 15])
    expect(new URL(small.urls[2]!).searchParams.get('release_stages')).toBe('production')
    expect(new URL(small.urls[2]!).searchParams.get('direction')).toBe('asc')
    expect((await v1(`/api/projects/${big.project.id}/errors?per_page=101`, { token: acme.user.token })).status).toBe(400)
  })
})

describe('the legacy Projects API', () => {
  it('lists, shows, creates, changes and deletes projects with the legacy fields; the deletion is seen by v2', async () => {
    const list = await json<LegacyProject[]>(await v1(`/api/accounts/${acme.organization.id}/projects`, { token: member.token }))
    expect(list.map((p) => p.id)).toContain(acme.project.id)
    const shown = await json<LegacyProject>(await v1(`/api/projects/${acme.project.id}`, { token: member.token }))
    expect(Object.keys(shown).sort()).toEqual(
      ['id', 'name', 'api_key', 'errors', 'icon', 'release_stages', 'type', 'created_at', 'updated_at', 'errors_url', 'events_url', 'html_url', 'url'].sort(),
    )
    expect(shown).toMatchObject({
      name: 'Checkout',
      api_key: acme.project.api_key,
      type: 'node',
      url: `http://errata.test/api/projects/${acme.project.id}`,
      errors_url: `http://errata.test/api/projects/${acme.project.id}/errors`,
      events_url: `http://errata.test/api/projects/${acme.project.id}/events`,
      icon: 'http://errata.test/favicon.svg',
    })
    expect(shown.errors).toBeGreaterThan(0)

    const created = await v1(`/api/accounts/${acme.organization.id}/projects`, { method: 'POST', token: acme.user.token, json: { name: 'Legacy App' } })
    const project = await json<LegacyProject>(created, 201)
    expect(project.type).toBe('other')
    expect(created.headers.get('Link')).toBe(`<http://errata.test/api/projects/${project.id}>; rel="successor-version"`)
    expect((await v1(`/api/accounts/${acme.organization.id}/projects?name=Rails&type=rails`, { method: 'POST', token: acme.user.token })).status).toBe(201)
    const badType = await v1(`/api/accounts/${acme.organization.id}/projects`, { method: 'POST', token: acme.user.token, json: { name: 'X', type: 'cobol' } })
    expect((await json<{ errors: string[] }>(badType, 400)).errors[0]).toMatch(/^type: must be one of rails, django/)
    expect((await v1(`/api/accounts/${acme.organization.id}/projects`, { method: 'POST', token: member.token, json: { name: 'No' } })).status).toBe(403)

    const changed = await json<LegacyProject>(await v1(`/api/projects/${project.id}`, { method: 'PATCH', token: acme.user.token, json: { name: 'Renamed', type: 'java' } }))
    expect(changed).toMatchObject({ name: 'Renamed', type: 'java' })
    expect((await v1(`/api/projects/${project.id}`, { method: 'PATCH', token: member.token, json: { name: 'No' } })).status).toBe(403)

    await notify(project.api_key, [event('GoesAway', '1.0.0')])
    await json(await v1(`/api/projects/${project.id}`, { method: 'DELETE', token: acme.user.token }), 204)
    expect((await ctx.request(`/api/projects/${project.id}`, { token: acme.user.token })).status).toBe(404)
    expect((await v1(`/api/projects/${project.id}`, { token: acme.user.token })).status).toBe(404)
  })

  it('pages an account’s projects by created_at, newest first by default', async () => {
    const org = await seedProject(ctx, { user: acme.user, organization: 'Many Projects', project: 'P0' })
    for (let i = 1; i < 5; i++) {
      await json(await v1(`/api/accounts/${org.organization.id}/projects`, { method: 'POST', token: acme.user.token, json: { name: `P${i}` } }), 201)
    }
    const { pages } = await followAll<LegacyProject>(`/api/accounts/${org.organization.id}/projects?per_page=2`, acme.user.token)
    expect(pages.map((page) => page.map((p) => p.name))).toEqual([['P4', 'P3'], ['P2', 'P1'], ['P0']])
    const asc = await json<LegacyProject[]>(await v1(`/api/accounts/${org.organization.id}/projects?direction=asc&per_page=2&offset=3`, { token: acme.user.token }))
    expect(asc.map((p) => p.name)).toEqual(['P3', 'P4'])
  })

  it("lists a user's projects that the caller can see too", async () => {
    const mine = await json<LegacyProject[]>(await v1(`/api/users/${member.id}/projects`, { token: member.token }))
    expect(mine.map((p) => p.id)).toContain(acme.project.id)
    const seenByAdmin = await json<LegacyProject[]>(await v1(`/api/users/${member.id}/projects`, { token: acme.user.token }))
    expect(seenByAdmin.map((p) => p.id).sort()).toEqual(mine.map((p) => p.id).sort())
    expect((await v1(`/api/users/${member.id}/projects`, { token: outsider.user.token })).status).toBe(404)
  })
})

describe('the legacy Users API', () => {
  it('lists an account’s users and a project’s, with the legacy fields and a neutral avatar', async () => {
    const users = await json<LegacyUser[]>(await v1(`/api/accounts/${acme.organization.id}/users`, { token: member.token }))
    const ada = users.find((u) => u.id === acme.user.id)!
    expect(Object.keys(ada).sort()).toEqual(['id', 'name', 'account_admin', 'email', 'avatar_id', 'avatar_url', 'html_url', 'projects_url', 'url'].sort())
    expect(ada).toMatchObject({
      name: 'Ada',
      account_admin: true,
      email: acme.user.email,
      avatar_id: null,
      avatar_url: 'http://errata.test/avatar.svg',
      projects_url: `http://errata.test/api/users/${acme.user.id}/projects`,
      url: `http://errata.test/api/users/${acme.user.id}`,
    })
    expect(users.find((u) => u.id === member.id)?.account_admin).toBe(false)
    const ofProject = await json<LegacyUser[]>(await v1(`/api/projects/${acme.project.id}/users`, { token: member.token }))
    expect(ofProject.map((u) => u.id).sort()).toEqual([acme.user.id, member.id].sort())
  })

  it('answers GET /user with the caller, and GET /users/:id only within the caller’s organizations', async () => {
    const me = await json<LegacyUser>(await v1('/api/user', { token: member.token }))
    expect(me).toMatchObject({ id: member.id, email: member.email, account_admin: false })
    expect((await json<LegacyUser>(await v1(`/api/users/${acme.user.id}`, { token: member.token }))).id).toBe(acme.user.id)
    expect(await json(await v1(`/api/users/${acme.user.id}`, { token: outsider.user.token }), 404)).toEqual({ errors: ['User not found'] })
  })

  it('invites users, makes accounts with a password, changes and removes them; the last admin stays', async () => {
    const org = await seedProject(ctx, { user: acme.user, organization: 'People', project: 'App' })
    const base = `/api/accounts/${org.organization.id}/users`
    const invited = await json<LegacyUser>(await v1(base, { method: 'POST', token: acme.user.token, json: { email: 'Invitee@Example.com' } }), 201)
    expect(invited).toMatchObject({ email: 'invitee@example.com', account_admin: false, name: '' })
    const made = await json<LegacyUser>(
      await v1(base, { method: 'POST', token: acme.user.token, json: { email: 'new.person@example.com', password: PASSWORD, name: 'New Person', project_ids: [org.project.id] } }),
      201,
    )
    expect(made).toMatchObject({ email: 'new.person@example.com', name: 'New Person' })
    // The new account signs in with the password, and is a member restricted to the project.
    const login = await ctx.request('/api/auth/login', { method: 'POST', json: { email: 'new.person@example.com', password: PASSWORD } })
    expect(login.status).toBe(200)
    const v2 = await (await ctx.request(`/api/organizations/${org.organization.id}/collaborators/${made.id}`, { token: acme.user.token })).json()
    expect(v2).toMatchObject({ is_admin: false, project_ids: [org.project.id], pending_invitation: false })
    // A password for an email with an account already: the invitation waits for them to accept.
    const existing = await json<LegacyUser>(await v1(base, { method: 'POST', token: acme.user.token, json: { email: member.email, password: PASSWORD, name: 'X' } }), 201)
    expect(existing.id).not.toBe(member.id)
    expect((await v1(base, { method: 'POST', token: acme.user.token, json: { email: 'a@example.com', password: PASSWORD } })).status).toBe(400)
    expect((await v1(base, { method: 'POST', token: acme.user.token, json: {} })).status).toBe(400)

    const promoted = await json<LegacyUser>(await v1(`${base}/${made.id}`, { method: 'PATCH', token: acme.user.token, json: { admin: true } }))
    expect(promoted.account_admin).toBe(true)
    await json(await v1(`${base}/${made.id}`, { method: 'DELETE', token: acme.user.token }), 204)
    expect((await ctx.request(`/api/organizations/${org.organization.id}/collaborators/${made.id}`, { token: acme.user.token })).status).toBe(404)
    expect((await json<{ errors: string[] }>(await v1(`${base}/${acme.user.id}`, { method: 'DELETE', token: acme.user.token }), 409)).errors[0]).toMatch(/last admin/)
    expect((await v1(`${base}/${acme.user.id}`, { method: 'PATCH', token: member.token, json: { admin: false } })).status).toBe(404)
  })
})

describe('authentication and versions', () => {
  it('takes Authorization: token, the auth_token parameter and HTTP Basic', async () => {
    const basic = (email: string, password: string) => `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`
    expect((await json<LegacyUser>(await v1(`/api/user?auth_token=${member.token}`))).id).toBe(member.id)
    expect((await json<LegacyUser>(await v1('/api/user', { headers: { Authorization: basic(member.email, PASSWORD) } }))).id).toBe(member.id)
    expect((await v1('/api/user', { headers: { Authorization: basic(member.email, 'wrong password') } })).status).toBe(401)
    expect((await v1('/api/user?auth_token=nope')).status).toBe(401)
    expect((await v1('/api/user')).status).toBe(401)
  })

  it('throttles HTTP Basic like sign-in, with the same counts', async () => {
    const victim = await ctx.createUser('Throttled')
    const header = { Authorization: `Basic ${Buffer.from(`${victim.email}:wrong`).toString('base64')}` }
    const statuses: number[] = []
    for (let i = 0; i < 11; i++) statuses.push((await v1('/api/user', { headers: header })).status)
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401))
    expect(statuses[10]).toBe(429)
    // POST /auth/login counts the same failures.
    expect((await ctx.request('/api/auth/login', { method: 'POST', json: { email: victim.email, password: PASSWORD } })).status).toBe(429)
  })

  it('answers 401 before 410 or 400 for a bad version, and serves v2 on X-Version: 2', async () => {
    for (const version of ['', '1', '3']) {
      expect((await v1('/api/user/organizations', { headers: { 'X-Version': version } })).status, version).toBe(401)
    }
    expect((await v1('/api/user/organizations', { token: member.token })).status).toBe(410)
    expect((await v1('/api/user', { token: member.token, headers: { 'X-Version': '3' } })).status).toBe(400)
    expect((await v1(`/api/projects/${acme.project.id}/errors`, { method: 'PATCH', token: member.token, json: {} })).status).toBe(405)
    const v2 = await ctx.request('/api/user', { token: member.token })
    expect(v2.headers.get('Deprecation')).toBeNull()
    expect(Object.keys(await v2.json())).toContain('created_at')
    // Legacy-only paths are not v2's.
    expect((await ctx.request(`/api/errors/${(await errorsOf(acme.project.id))[0]!.id}`, { token: member.token })).status).toBe(404)
  })

  it('serves v1 at the main port root for requests with credentials, and at the API_PORT root', async () => {
    const root = await ctx.app.request(`http://errata.test/projects/${acme.project.id}?auth_token=${member.token}`)
    expect((await json<LegacyProject>(root)).url).toBe(`http://errata.test/api/projects/${acme.project.id}`)
    const apiPort = createApiPortApp(ctx.deps)
    const res = await apiPort.request(`http://errata.test:9090/projects/${acme.project.id}`, { headers: { Authorization: `token ${member.token}` } })
    expect((await json<LegacyProject>(res)).url).toBe(`http://errata.test/api/projects/${acme.project.id}`)
  })
})

describe('organization API tokens', () => {
  it('are made, listed with their last use and revoked by admins, and act as an admin of their organization only', async () => {
    const base = `/api/organizations/${acme.organization.id}/api_tokens`
    expect((await ctx.request(base, { method: 'POST', token: member.token, json: { name: 'CI' } })).status).toBe(403)
    const created = await ctx.request(base, { method: 'POST', token: acme.user.token, json: { name: 'CI' } })
    const { token, id } = await json<{ token: string; id: string }>(created, 201)
    expect(token).toMatch(/^errata_org_[0-9a-f]{40}$/)

    const projects = await json<LegacyProject[]>(await v1(`/api/accounts/${acme.organization.id}/projects`, { token }))
    expect(projects.map((p) => p.id)).toContain(acme.project.id)
    expect((await v1(`/api/accounts/${acme.organization.id}/projects`, { method: 'POST', token, json: { name: 'By token' } })).status).toBe(201)
    expect((await v1(`/api/accounts/${outsider.organization.id}/projects`, { token })).status).toBe(404)
    expect((await v1(`/api/projects/${outsider.project.id}`, { token })).status).toBe(404)
    // Scope rules: GET /user needs user credentials; users are seen within the token's organization.
    expect(await json(await v1('/api/user', { token }), 403)).toEqual({ errors: [expect.stringMatching(/user credentials/)] })
    expect((await json<LegacyUser>(await v1(`/api/users/${member.id}`, { token }))).id).toBe(member.id)
    expect((await v1(`/api/users/${outsider.user.id}`, { token })).status).toBe(404)
    // Not a v2 credential.
    expect((await ctx.request(`/api/organizations/${acme.organization.id}`, { token })).status).toBe(403)
    expect((await v1(`/api/projects/${acme.project.id}/events`, { token })).status).toBe(403)

    const listed = await json<{ id: string; name: string; last_used_at: string | null; active: boolean; created_by: { id: string } }[]>(
      await ctx.request(base, { token: acme.user.token }),
    )
    expect(listed.find((t) => t.id === id)).toMatchObject({ name: 'CI', active: true, created_by: { id: acme.user.id }, last_used_at: expect.any(String) })
    expect(JSON.stringify(listed)).not.toContain(token)

    await json(await ctx.request(`${base}/${id}`, { method: 'DELETE', token: acme.user.token }), 204)
    expect((await v1(`/api/accounts/${acme.organization.id}/projects`, { token })).status).toBe(401)
    expect((await ctx.request(`${base}/${id}`, { method: 'DELETE', token: acme.user.token })).status).toBe(404)
    expect((await json<{ id: string }[]>(await ctx.request(base, { token: acme.user.token }))).some((t) => t.id === id)).toBe(false)
  })

  it('stop working once the admin who made them is no longer an admin', async () => {
    const org = await seedProject(ctx, { user: 'Founder', organization: 'Handover' })
    const second = await ctx.createUser('Second')
    const { token } = await json<{ token: string }>(
      await ctx.request(`/api/organizations/${org.organization.id}/api_tokens`, { method: 'POST', token: org.user.token, json: { name: 'Deploys' } }),
      201,
    )
    expect((await v1(`/api/projects/${org.project.id}`, { token })).status).toBe(200)
    await ctx.deps.database.db.insert(collaborators).values({ organizationId: org.organization.id, userId: second.id, isAdmin: true })
    await json(await v1(`/api/accounts/${org.organization.id}/users/${org.user.id}`, { method: 'PATCH', token: second.token, json: { admin: false } }))
    expect((await v1(`/api/projects/${org.project.id}`, { token })).status).toBe(401)
    const listed = await json<{ active: boolean }[]>(await ctx.request(`/api/organizations/${org.organization.id}/api_tokens`, { token: second.token }))
    expect(listed[0]?.active).toBe(false)
  })
})
