import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventSchema } from '../../contract/events.ts'
import { collaborators, errors, events, projects } from '../db/schema.ts'
import { seedProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'
import { atWallClock } from '../test-support/wall-clock.ts'

let ctx: TestContext
let alice: TestUser
let mallory: TestUser
let projectId: string
let otherProjectId: string
let apiKey: string
let otherApiKey: string

function event(errorClass: string, message: string, extra: Record<string, unknown> = {}) {
  return {
    exceptions: [
      {
        errorClass,
        errorMessage: message,
        stacktrace: [{ file: 'src/app.js', method: 'run', lineNumber: '12', columnNumber: 3, inProject: true, code: { '12': 'run()' } }],
      },
      { errorClass: 'CauseError', errorMessage: 'the cause', stacktrace: [] },
    ],
    user: { id: 'u-1', email: 'u1@example.com', name: 'User One' },
    app: { version: '3.1.0', releaseStage: 'production' },
    device: { osVersion: '14.5', osName: 'macOS' },
    context: 'GET /checkout',
    metaData: { order: { id: 'o-1' } },
    breadcrumbs: [{ name: 'clicked', type: 'user', timestamp: '2026-01-01T00:00:00.000Z', metaData: { x: 1 } }],
    featureFlags: [{ featureFlag: 'new-ui', variant: 'b' }],
    ...extra,
  }
}

async function notify(key: string, body: unknown) {
  const res = await ctx.request('/notify', { method: 'POST', headers: { 'Bugsnag-Api-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
  expect(res.status).toBe(200)
}

const get = (path: string, token = alice.token, headers: Record<string, string> = {}) => ctx.request(`/api${path}`, { token, headers })
const nextLink = (res: Response) => /<([^>]+)>; rel="next"/.exec(res.headers.get('Link') ?? '')?.[1] ?? null

beforeAll(async () => {
  ctx = await createTestContext()
  alice = await ctx.createUser('Alice')
  mallory = await ctx.createUser('Mallory')
  const { project } = await seedProject(ctx, { user: alice, organization: 'Events Org', project: 'Events Org' })
  projectId = project.id
  apiKey = project.api_key
  const { project: other } = await seedProject(ctx, { user: alice, organization: 'Other Org', project: 'Other Org' })
  otherProjectId = other.id
  otherApiKey = other.api_key
  // 12 events of one error, in 3 requests received a second apart, then 3 of another error in a later batch.
  const start = Date.now() - 60_000
  for (let r = 0; r < 3; r++) {
    await atWallClock(start + r * 1000, () => notify(apiKey, { events: Array.from({ length: 4 }, (_, i) => event('PagedError', `paged ${r * 4 + i}`)) }))
  }
  await notify(apiKey, { events: [event('OtherError', 'other 0'), event('OtherError', 'other 1'), event('OtherError', 'other 2')] })
  await notify(otherApiKey, { events: [event('ElsewhereError', 'elsewhere')] })
})
afterAll(() => ctx.close())

const errorIdOf = async (errorClass: string) =>
  (await ctx.deps.database.db.select({ id: errors.id }).from(errors).where(eq(errors.errorClass, errorClass)))[0]!.id

describe('GET /projects/:id/events', () => {
  it('lists a project’s events newest first with every field of the Events API resource', async () => {
    const res = await get(`/projects/${projectId}/events`)
    expect(res.status).toBe(200)
    expect(res.headers.get('X-Total-Count')).toBe('15')
    const list = await res.json()
    expect(list).toHaveLength(10) // per_page default
    for (const item of list) expect(eventSchema.safeParse(item).success).toBe(true)
    const times = list.map((e: { received_at: string; id: string }) => `${e.received_at} ${e.id}`)
    expect([...times].sort().reverse()).toEqual(times)
    const first = list[0]
    expect(first).toMatchObject({
      project_id: projectId,
      severity: 'warning',
      context: 'GET /checkout',
      app_version: '3.1.0',
      os_version: '14.5',
      user_id: 'u-1',
      meta_data: { order: { id: 'o-1' } },
      user: { id: 'u-1', email: 'u1@example.com', name: 'User One' },
      breadcrumbs: [{ name: 'clicked', type: 'user', timestamp: '2026-01-01T00:00:00.000Z', meta_data: { x: 1 } }],
      feature_flags: [{ name: 'new-ui', variant: 'b' }],
      url: `http://errata.test/api/projects/${projectId}/events/${first.id}`,
      html_url: `http://errata.test/projects/${projectId}/errors/${first.error_id}/events/${first.id}`,
    })
    expect(first.exceptions[0]).toEqual({
      class: 'OtherError',
      message: expect.stringMatching(/^other /),
      type: null,
      stacktrace: [{ line: 12, column: 3, file: 'src/app.js', method: 'run', in_project: true, code: { '12': 'run()' } }],
    })
    expect(first.exceptions[1]).toMatchObject({ class: 'CauseError', message: 'the cause' })
  })

  it('pages with an absolute, stable Link rel="next" while new events arrive', async () => {
    const seen: string[] = []
    let res = await get(`/projects/${projectId}/events?per_page=4`)
    seen.push(...(await res.json()).map((e: { id: string }) => e.id))
    let next = nextLink(res)
    expect(next).toMatch(/^http:\/\/errata\.test\/api\/projects\/.+\/events\?per_page=4&cursor=/)
    // A new event arrives between pages: it must not shift or repeat anything.
    await notify(apiKey, { events: [event('LateError', 'late')] })
    while (next) {
      res = await ctx.request(next.replace('http://errata.test', ''), { token: alice.token, headers: { 'X-Version': '2' } })
      expect(res.status).toBe(200)
      seen.push(...(await res.json()).map((e: { id: string }) => e.id))
      next = nextLink(res)
    }
    expect(seen).toHaveLength(15)
    expect(new Set(seen).size).toBe(15)
    expect(res.headers.get('X-Total-Count')).toBe('16')
    expect(res.headers.get('Link')).toBeNull()
    const late = await ctx.deps.database.db.select({ id: events.id }).from(events).where(eq(events.errorClass, 'LateError'))
    expect(seen).not.toContain(late[0]!.id)
  })

  it('sorts ascending and filters by start_time / end_time on received_at', async () => {
    const all = await (await get(`/projects/${projectId}/events?direction=asc&per_page=100`)).json()
    const times = all.map((e: { received_at: string }) => e.received_at)
    expect([...times].sort()).toEqual(times)
    const distinct = [...new Set<string>(times)]
    expect(distinct.length).toBeGreaterThanOrEqual(3)
    const start = distinct[1]!
    const end = distinct[2]!
    const res = await get(`/projects/${projectId}/events?start_time=${encodeURIComponent(start)}&end_time=${encodeURIComponent(end)}&per_page=100`)
    const inWindow = await res.json()
    expect(inWindow.length).toBeGreaterThan(0)
    for (const e of inWindow) {
      expect(e.received_at >= start).toBe(true)
      expect(e.received_at < end).toBe(true)
    }
    expect(res.headers.get('X-Total-Count')).toBe(String(inWindow.length))

    // Finer than a millisecond: an event at …(ms) is before end …(ms)9 and not after start …(ms)9.
    const at = distinct[1]!
    const finer = at.replace(/Z$/, '9Z')
    const ids = async (query: string) => ((await (await get(`/projects/${projectId}/events?${query}&per_page=100`)).json()) as { received_at: string }[]).map((e) => e.received_at)
    expect(await ids(`end_time=${encodeURIComponent(finer)}`)).toContain(at)
    expect(await ids(`start_time=${encodeURIComponent(finer)}`)).not.toContain(at)
  })

  it('validates the query and names the parameter', async () => {
    for (const [query, field] of [['sort=updated_at', 'sort'], ['per_page=101', 'per_page'], ['direction=up', 'direction'], ['start_time=yesterday', 'start_time'], ['cursor=garbage', 'cursor']]) {
      const res = await get(`/projects/${projectId}/events?${query}`)
      expect(res.status, query).toBe(400)
      expect((await res.json()).errors[0]).toMatch(new RegExp(`^${field}: `))
    }
  })

  it('is served under the legacy API version too', async () => {
    const res = await get(`/projects/${projectId}/events?per_page=1`, alice.token, { 'X-Version': '1' })
    expect(res.status).toBe(200)
    expect(res.headers.get('X-Version')).toBe('1')
    expect(await res.json()).toHaveLength(1)
  })
})

describe('an error’s events', () => {
  it('lists them under /errors/:id/events and /projects/:id/errors/:id/events with the error’s count', async () => {
    const errorId = await errorIdOf('PagedError')
    for (const path of [`/errors/${errorId}/events`, `/projects/${projectId}/errors/${errorId}/events`]) {
      const res = await get(`${path}?per_page=5`)
      expect(res.status).toBe(200)
      expect(res.headers.get('X-Total-Count')).toBe('12')
      const list = await res.json()
      expect(list).toHaveLength(5)
      expect(list.every((e: { error_id: string }) => e.error_id === errorId)).toBe(true)
      expect(nextLink(res)).toContain(path)
    }
    const windowed = await get(`/errors/${errorId}/events?start_time=2000-01-01T00:00:00Z&end_time=2000-01-02T00:00:00Z`)
    expect(windowed.headers.get('X-Total-Count')).toBe('0')
    expect(await windowed.json()).toEqual([])
  })

  it('answers 404 when the error is not in the given project', async () => {
    const errorId = await errorIdOf('ElsewhereError')
    expect((await get(`/projects/${projectId}/errors/${errorId}/events`)).status).toBe(404)
    expect((await get(`/projects/${otherProjectId}/errors/${errorId}/events`)).status).toBe(200)
  })
})

describe('after_event: the neighbours of an event', () => {
  it('walks an error\'s events one by one in list order, through events that share a received time', async () => {
    const errorId = await errorIdOf('PagedError')
    const all = ((await (await get(`/errors/${errorId}/events?per_page=100`)).json()) as { id: string }[]).map((e) => e.id)
    expect(all).toHaveLength(12) // 3 requests of 4: each request's events share one received time
    const walk = async (start: string, direction: 'asc' | 'desc') => {
      const seen = [start]
      for (;;) {
        const res = await get(`/errors/${errorId}/events?per_page=1&direction=${direction}&after_event=${seen.at(-1)}`)
        expect(res.status).toBe(200)
        const [next] = (await res.json()) as { id: string }[]
        if (!next) return seen
        seen.push(next.id)
      }
    }
    expect(await walk(all[0]!, 'desc')).toEqual(all)
    expect(await walk(all.at(-1)!, 'asc')).toEqual([...all].reverse())
  })

  it('gives a next link that continues from where the after_event page ended', async () => {
    const errorId = await errorIdOf('PagedError')
    const all = ((await (await get(`/errors/${errorId}/events?per_page=100`)).json()) as { id: string }[]).map((e) => e.id)
    const seen: string[] = []
    let res = await get(`/errors/${errorId}/events?per_page=4&after_event=${all[0]}`)
    for (;;) {
      expect(res.status).toBe(200)
      seen.push(...((await res.json()) as { id: string }[]).map((e) => e.id))
      const next = nextLink(res)
      if (!next) break
      expect(new URL(next).searchParams.has('after_event')).toBe(false)
      res = await ctx.request(next.slice(next.indexOf('/api')), { token: alice.token })
    }
    expect(seen).toEqual(all.slice(1))
  })

  it('answers 400 for an event of another list, or together with a cursor', async () => {
    const errorId = await errorIdOf('PagedError')
    const [other] = (await (await get(`/errors/${await errorIdOf('OtherError')}/events?per_page=1`)).json()) as { id: string }[]
    const res = await get(`/errors/${errorId}/events?after_event=${other!.id}`)
    expect(res.status).toBe(400)
    expect((await res.json()).errors[0]).toMatch(/^after_event: .* is not an event of this list$/)
    const first = await get(`/errors/${errorId}/events?per_page=1`)
    const cursor = new URL(nextLink(first)!).searchParams.get('cursor')!
    const both = await get(`/errors/${errorId}/events?after_event=${other!.id}&cursor=${cursor}`)
    expect(both.status).toBe(400)
    expect((await both.json()).errors[0]).toMatch(/^after_event: /)
  })
})

describe('GET /events/:id', () => {
  it('returns one event at both addresses, and its url works', async () => {
    const [listed] = await (await get(`/projects/${projectId}/events?per_page=1`)).json()
    const direct = await get(`/events/${listed.id}`)
    expect(direct.status).toBe(200)
    expect(await direct.json()).toEqual(listed)
    const scoped = await ctx.request(listed.url.replace('http://errata.test', ''), { token: alice.token })
    expect(await scoped.json()).toEqual(listed)
    expect((await get(`/projects/${otherProjectId}/events/${listed.id}`)).status).toBe(404)
    expect((await get('/events/000000000000000000000000')).status).toBe(404)
  })
})

describe('authorization', () => {
  it('answers 404 to a user outside the organization on every endpoint', async () => {
    const errorId = await errorIdOf('PagedError')
    const [one] = await (await get(`/projects/${projectId}/events?per_page=1`)).json()
    for (const path of [
      `/projects/${projectId}/events`,
      `/errors/${errorId}/events`,
      `/projects/${projectId}/errors/${errorId}/events`,
      `/events/${one.id}`,
      `/projects/${projectId}/events/${one.id}`,
    ]) {
      const res = await get(path, mallory.token)
      expect(res.status, path).toBe(404)
    }
    const del = await ctx.request(`/api/events/${one.id}`, { method: 'DELETE', token: mallory.token })
    expect(del.status).toBe(404)
    expect((await get(`/events/${one.id}`)).status).toBe(200)
  })

  it('needs a token', async () => {
    expect((await ctx.request(`/api/projects/${projectId}/events`)).status).toBe(401)
  })
})

describe('DELETE /events/:id', () => {
  it('deletes the event, keeps the error’s count and latest event consistent, and answers 204', async () => {
    const errorId = await errorIdOf('OtherError')
    const before = (await ctx.deps.database.db.select().from(errors).where(eq(errors.id, errorId)))[0]!
    expect(before.eventsCount).toBe(3)
    const latest = before.lastEventId!

    const res = await ctx.request(`/api/events/${latest}`, { method: 'DELETE', token: alice.token })
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
    expect((await get(`/events/${latest}`)).status).toBe(404)
    expect((await ctx.request(`/api/events/${latest}`, { method: 'DELETE', token: alice.token })).status).toBe(404)

    const after = (await ctx.deps.database.db.select().from(errors).where(eq(errors.id, errorId)))[0]!
    expect(after.eventsCount).toBe(2)
    const remaining = await (await get(`/errors/${errorId}/events`)).json()
    expect(remaining).toHaveLength(2)
    expect(after.lastEventId).toBe(remaining[0].id)

    const scoped = await ctx.request(`/api/projects/${projectId}/events/${remaining[1].id}`, { method: 'DELETE', token: alice.token })
    expect(scoped.status).toBe(204)
    const listed = await get(`/errors/${errorId}/events`)
    expect(listed.headers.get('X-Total-Count')).toBe('1')
  })

  it('takes a deleted latest or first event off the error: message, context, severity, times, stages, versions', async () => {
    // Received a second apart, so first and last seen differ.
    const sent = Date.now()
    await atWallClock(sent - 2000, () =>
      notify(apiKey, { events: [event('SummaryError', 'first', { severity: 'warning', context: 'c1', app: { version: '1.0.0', releaseStage: 'production' } })] }),
    )
    await atWallClock(sent - 1000, () =>
      notify(apiKey, { events: [event('SummaryError', 'second', { severity: 'info', context: 'ctx2', app: { version: '9.9', releaseStage: 'staging' } })] }),
    )
    await ctx.deps.ingestWriter.indexed()
    const errorId = await errorIdOf('SummaryError')
    const [newest, oldest] = (await (await get(`/errors/${errorId}/events`)).json()) as { id: string; received_at: string }[]
    const seenIn = (version: string) =>
      get(`/projects/${projectId}/errors?filters[version.seen_in][][type]=eq&filters[version.seen_in][][value]=${version}`)
        .then((res) => res.json() as Promise<{ id: string }[]>)
        .then((list) => list.some((e) => e.id === errorId))
    expect(await seenIn('9.9')).toBe(true)

    expect((await ctx.request(`/api/events/${newest!.id}`, { method: 'DELETE', token: alice.token })).status).toBe(204)
    const error = await (await get(`/projects/${projectId}/errors/${errorId}`)).json()
    expect(error).toMatchObject({
      message: 'first',
      context: 'c1',
      severity: 'warning',
      events: 1,
      last_seen: oldest!.received_at,
      first_seen: oldest!.received_at,
      release_stages: ['production'],
      app_versions: ['1.0.0'],
    })
    expect(await seenIn('9.9')).toBe(false)
    expect(await seenIn('1.0.0')).toBe(true)
    expect((await (await get(`/projects/${projectId}/errors/${errorId}/latest_event`)).json()).id).toBe(oldest!.id)

    // The last one: the error stays, with no events and its message and times as they were.
    expect((await ctx.request(`/api/events/${oldest!.id}`, { method: 'DELETE', token: alice.token })).status).toBe(204)
    expect(await (await get(`/projects/${projectId}/errors/${errorId}`)).json()).toMatchObject({
      message: 'first',
      events: 0,
      last_seen: oldest!.received_at,
      release_stages: [],
      app_versions: [],
    })
  })

  it('takes a deleted first event off the error: first seen and first release from the oldest left', async () => {
    const sent = Date.now()
    await atWallClock(sent - 2000, () => notify(apiKey, { events: [event('FirstReleaseError', 'first', { app: { version: '1.0.0-first', releaseStage: 'beta' } })] }))
    await atWallClock(sent - 1000, () => notify(apiKey, { events: [event('FirstReleaseError', 'second', { app: { version: '9.9', releaseStage: 'staging' } })] }))
    await ctx.deps.ingestWriter.indexed()
    const errorId = await errorIdOf('FirstReleaseError')
    const [newest, oldest] = (await (await get(`/errors/${errorId}/events`)).json()) as { id: string; received_at: string }[]
    expect(await (await get(`/projects/${projectId}/errors/${errorId}`)).json()).toMatchObject({
      first_release: { release_stage: 'beta', app_version: '1.0.0-first' },
    })
    expect((await ctx.request(`/api/events/${oldest!.id}`, { method: 'DELETE', token: alice.token })).status).toBe(204)
    expect(await (await get(`/projects/${projectId}/errors/${errorId}`)).json()).toMatchObject({
      first_seen: newest!.received_at,
      first_release: { release_stage: 'staging', app_version: '9.9' },
      app_versions: ['9.9'],
    })
  })

  it('is for admins: a member who sees the event gets 403 and the event stays; an outsider gets 404', async () => {
    const member = await ctx.createUser('Member who sees everything')
    const organizationId = (await ctx.deps.database.db.select().from(projects).where(eq(projects.id, projectId)))[0]!.organizationId
    await ctx.deps.database.db.insert(collaborators).values({ organizationId, userId: member.id, isAdmin: false })
    const [target] = await (await get(`/errors/${await errorIdOf('PagedError')}/events?per_page=1`)).json()
    const refused = await ctx.request(`/api/events/${target.id}`, { method: 'DELETE', token: member.token })
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({ errors: ['only organization admins may do this'] })
    expect((await ctx.request(`/api/projects/${projectId}/events/${target.id}`, { method: 'DELETE', token: member.token })).status).toBe(403)
    expect((await get(`/events/${target.id}`, member.token)).status).toBe(200)
    expect((await ctx.request(`/api/events/${target.id}`, { method: 'DELETE', token: mallory.token })).status).toBe(404)
  })
})
