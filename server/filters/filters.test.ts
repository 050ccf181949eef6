import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorGroup } from '../../contract/errors.ts'
import type { ErrorEvent } from '../../contract/events.ts'
import { filtersToParams, parseFilterParams, type Filters } from '../../contract/filters.ts'
import { queryRows, withTransaction } from '../db/client.ts'
import { moveErrorsBetweenStatuses, projectHoursCheck, rebuildRollups, rollupsFromEvents } from '../rollups/rollups.ts'
import { ingestAt, notifierEvent } from '../test-support/ingest.ts'
import { seedProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const now = Date.now()
const ago = (ms: number) => new Date(now - ms)

let ctx: TestContext
let owner: TestUser
let projectId: string
/** Error ids by class. */
const ids: Record<string, string> = {}

const user = (id: string, name: string) => ({ id, name, email: `${name.toLowerCase()}@example.com` })
const device = (osName: string, browserName?: string) => ({ osName, ...(browserName ? { browserName } : {}) })

beforeAll(async () => {
  ctx = await createTestContext()
  owner = await ctx.createUser('Owner')
  const seeded = await seedProject(ctx, { user: owner, organization: 'Filters Org', project: 'Filters' })
  projectId = seeded.project.id
  await ingestAt(ctx, projectId, [
    {
      at: ago(2 * HOUR),
      event: notifierEvent('Alpha', {
        app: { releaseStage: 'production', version: '1.0' },
        user: user('u1', 'Alice'),
        device: device('linux', 'Chrome'),
        context: '/checkout',
      }),
    },
    {
      at: ago(3 * DAY),
      event: notifierEvent('Alpha', {
        app: { releaseStage: 'staging', version: '1.1' },
        user: user('u2', 'Bob'),
        device: device('linux'),
        context: '/cart',
      }),
    },
    {
      at: ago(10 * DAY),
      event: notifierEvent('Beta', { app: { releaseStage: 'production', version: '1.1' }, device: device('windows') }),
    },
    {
      at: ago(40 * DAY),
      event: notifierEvent('Gamma', {
        app: { releaseStage: 'development', version: '2.0' },
        user: user('u1', 'Alice'),
        severity: 'info',
      }),
    },
  ])
  for (const row of await queryRows<{ id: string; error_class: string }>(
    ctx.deps.database.db,
    sql`SELECT id, error_class FROM errors WHERE project_id = ${projectId}`,
  )) {
    ids[row.error_class] = row.id
  }
  await moveErrorsBetweenStatuses(ctx.deps.database.db, projectId, [{ errorId: ids.Beta!, from: 'open', to: 'fixed' }])
  await ctx.deps.database.db.execute(sql`UPDATE errors SET status = 'fixed' WHERE id = ${ids.Beta}`)
  await ctx.deps.database.db.execute(sql`UPDATE errors SET assigned_collaborator_id = ${owner.id} WHERE id = ${ids.Gamma}`)
})
afterAll(() => ctx.close())

const get = (path: string) => ctx.request(`/api${path}`, { token: owner.token })

/** The classes of the errors the list answers for these filters (sorted), and the total header. */
async function errorsFor(filters: Filters, extra = '') {
  const res = await get(`/projects/${projectId}/errors?${filtersToParams(filters)}${extra}`)
  expect(res.status, await res.clone().text()).toBe(200)
  const body = (await res.json()) as ErrorGroup[]
  return { classes: body.map((e) => e.error_class).sort(), total: Number(res.headers.get('X-Total-Count')), res, body }
}

const eq = (value: string) => ({ type: 'eq' as const, value })
const ne = (value: string) => ({ type: 'ne' as const, value })
const empty = (value: boolean) => ({ type: 'empty' as const, value: String(value) })

describe('parseFilterParams', () => {
  it('pairs values and types in order, in both the [] and the indexed form', () => {
    const params = new URLSearchParams(
      'filters[app.version][][type]=eq&filters[app.version][][value]=1.0&filters[app.version][][type]=ne&filters[app.version][][value]=2.0' +
        '&filters[user.id][0][value]=u1&filters[user.id][0][type]=eq&other=1',
    )
    expect(parseFilterParams(params)).toEqual({
      filters: { 'app.version': [eq('1.0'), ne('2.0')], 'user.id': [eq('u1')] },
      problems: [],
    })
  })

  it('round-trips through filtersToParams', () => {
    const filters: Filters = { 'error.status': [eq('open'), eq('snoozed')], 'user.email': [ne('bot')] }
    expect(parseFilterParams(filtersToParams(filters)).filters).toEqual(filters)
  })
})

describe('GET /projects/{id}/errors with filters', () => {
  it('ORs several eq values of one field and ANDs several ne values', async () => {
    expect((await errorsFor({ 'app.release_stage': [eq('production')] })).classes).toEqual(['Alpha', 'Beta'])
    expect((await errorsFor({ 'app.release_stage': [eq('production'), eq('development')] })).classes).toEqual([
      'Alpha',
      'Beta',
      'Gamma',
    ])
    // Alpha has a staging event, so it has an event that is not production.
    expect((await errorsFor({ 'app.release_stage': [ne('production')] })).classes).toEqual(['Alpha', 'Gamma'])
    expect((await errorsFor({ 'app.release_stage': [ne('production'), ne('staging')] })).classes).toEqual(['Gamma'])
  })

  it('ANDs different fields within one event', async () => {
    // Alpha's staging event runs 1.1, its production event 1.0: no single event has staging and 1.0.
    expect((await errorsFor({ 'app.release_stage': [eq('staging')], 'app.version': [eq('1.0')] })).classes).toEqual([])
    expect((await errorsFor({ 'app.release_stage': [eq('staging')], 'app.version': [eq('1.1')] })).classes).toEqual([
      'Alpha',
    ])
  })

  it('filters on users: id, empty, and substrings of name and email', async () => {
    expect((await errorsFor({ 'user.id': [eq('u1')] })).classes).toEqual(['Alpha', 'Gamma'])
    expect((await errorsFor({ 'user.id': [empty(true)] })).classes).toEqual(['Beta'])
    expect((await errorsFor({ 'user.id': [empty(false)] })).classes).toEqual(['Alpha', 'Gamma'])
    expect((await errorsFor({ 'user.email': [eq('ALICE@')] })).classes).toEqual(['Alpha', 'Gamma'])
    expect((await errorsFor({ 'user.name': [eq('bo')] })).classes).toEqual(['Alpha'])
    expect((await errorsFor({ 'user.name': [ne('ali')] })).classes).toEqual(['Alpha', 'Beta'])
    // LIKE wildcards are taken literally.
    expect((await errorsFor({ 'user.email': [eq('%')] })).classes).toEqual([])
  })

  it('filters on time with event.since and event.before, alone and with other fields', async () => {
    expect((await errorsFor({ 'event.since': [eq('1d')] })).classes).toEqual(['Alpha'])
    expect((await errorsFor({ 'event.since': [eq('14d')] })).classes).toEqual(['Alpha', 'Beta'])
    expect((await errorsFor({ 'event.before': [eq('5d')] })).classes).toEqual(['Beta', 'Gamma'])
    expect((await errorsFor({ 'event.since': [eq('14d')], 'event.before': [eq('5d')] })).classes).toEqual(['Beta'])
    const since = ago(20 * DAY).toISOString()
    expect((await errorsFor({ 'event.since': [eq(since)] })).classes).toEqual(['Alpha', 'Beta'])
    // Alpha's staging event is 3 days old: not seen in staging since yesterday.
    expect((await errorsFor({ 'event.since': [eq('1d')], 'app.release_stage': [eq('production')] })).classes).toEqual([
      'Alpha',
    ])
    expect((await errorsFor({ 'event.since': [eq('1d')], 'app.release_stage': [eq('staging')] })).classes).toEqual([])
    expect((await errorsFor({ 'event.before': [eq('1d')], 'user.id': [eq('u1')] })).classes).toEqual(['Gamma'])
    // A duration reaching before year 1 is "since the beginning", not a database error.
    expect((await errorsFor({ 'event.since': [eq('999999w')] })).classes).toEqual(['Alpha', 'Beta', 'Gamma'])
    expect((await errorsFor({ 'event.before': [eq('999999w')] })).classes).toEqual([])
  })

  it('does not list an error whose events were all deleted under a time filter, one bound or two', async () => {
    const other = await seedProject(ctx, { user: owner, organization: 'Erased Org', project: 'Erased' })
    await ingestAt(ctx, other.project.id, [
      { at: ago(HOUR), event: notifierEvent('Erased') },
      { at: ago(HOUR), event: notifierEvent('Kept') },
    ])
    const listed = await ctx.request(`/api/projects/${other.project.id}/events?per_page=10`, { token: owner.token })
    const erased = ((await listed.json()) as { id: string; exceptions: { class: string }[] }[]).find(
      (e) => e.exceptions[0]!.class === 'Erased',
    )!
    expect((await ctx.request(`/api/events/${erased.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204)
    const cases: Filters[] = [{ 'event.since': [eq('1d')] }, { 'event.before': [eq('1m')] }, { 'event.since': [eq('1d')], 'event.before': [eq('1m')] }]
    for (const filters of cases) {
      const res = await get(`/projects/${other.project.id}/errors?${filtersToParams(filters)}`)
      expect(((await res.json()) as ErrorGroup[]).map((e) => e.error_class), JSON.stringify(filters)).toEqual(['Kept'])
      expect(res.headers.get('X-Total-Count')).toBe('1')
    }
  })

  it('counts each listed error’s matching events when the filters select events, beside its all-time events', async () => {
    const matching = async (filters: Filters) => {
      const { body } = await errorsFor(filters)
      return Object.fromEntries(body.map((e) => [e.error_class, [e.matching_events, e.events]]))
    }
    // Alpha has two events (2 hours and 3 days old).
    expect(await matching({ 'event.since': [eq('1d')] })).toEqual({ Alpha: [1, 2] })
    expect(await matching({ 'event.since': [eq('14d')] })).toEqual({ Alpha: [2, 2], Beta: [1, 1] })
    expect(await matching({ 'event.before': [eq('1d')] })).toEqual({ Alpha: [1, 2], Beta: [1, 1], Gamma: [1, 1] })
    expect(await matching({ 'app.release_stage': [eq('staging')] })).toEqual({ Alpha: [1, 2] })
    expect(await matching({ 'user.id': [eq('u1')], 'event.since': [eq('60d')] })).toEqual({ Alpha: [1, 2], Gamma: [1, 1] })
    // Bounds within an hour: the hour's rollup row holds events on both sides of the bound.
    const iso = (ms: number) => new Date(now - ms).toISOString()
    expect(await matching({ 'event.since': [eq(iso(3 * DAY + 1))] })).toEqual({ Alpha: [2, 2] })
    expect(await matching({ 'event.since': [eq(iso(3 * DAY - 1))] })).toEqual({ Alpha: [1, 2] })
    expect(await matching({ 'event.before': [eq(iso(2 * HOUR - 1))] })).toEqual({ Alpha: [2, 2], Beta: [1, 1], Gamma: [1, 1] })
    expect(await matching({ 'event.before': [eq(iso(2 * HOUR))] })).toEqual({ Alpha: [1, 2], Beta: [1, 1], Gamma: [1, 1] })
    expect(await matching({ 'event.since': [eq(iso(3 * DAY + 1))], 'event.before': [eq(iso(3 * DAY - 1))] })).toEqual({ Alpha: [1, 2] })
    expect(await matching({ 'event.since': [eq(iso(3 * DAY + 1))], 'event.before': [eq(iso(2 * HOUR))] })).toEqual({ Alpha: [1, 2] })
    // Error conditions alone select errors, not events: no matching count.
    const { body } = await errorsFor({ 'error.status': [eq('open')] })
    expect(body.length).toBeGreaterThan(0)
    for (const error of body) expect(error).not.toHaveProperty('matching_events')
  })

  it('counts a value sent as "" as empty, as pivots show it ("(none)")', async () => {
    const other = await seedProject(ctx, { user: owner, organization: 'Blank Org', project: 'Blank' })
    await ingestAt(ctx, other.project.id, [
      { at: ago(HOUR), event: notifierEvent('SentBlank', { app: { version: '' }, context: '', user: { id: '' } }) },
      { at: ago(HOUR), event: notifierEvent('SentValues', { app: { version: '2.0' }, context: '/home', user: { id: 'u9' } }) },
    ])
    const classesFor = async (filters: Filters) => {
      const res = await get(`/projects/${other.project.id}/errors?${filtersToParams(filters)}`)
      expect(res.status).toBe(200)
      return ((await res.json()) as ErrorGroup[]).map((e) => e.error_class)
    }
    for (const field of ['app.version', 'event.context', 'user.id']) {
      expect(await classesFor({ [field]: [empty(true)] }), field).toEqual(['SentBlank'])
      expect(await classesFor({ [field]: [empty(false)] }), field).toEqual(['SentValues'])
    }
  })

  it('filters on error fields: status, assignment, severity, versions seen in', async () => {
    expect((await errorsFor({ 'error.status': [eq('open')] })).classes).toEqual(['Alpha', 'Gamma'])
    expect((await errorsFor({ 'error.status': [ne('open')] })).classes).toEqual(['Beta'])
    expect((await errorsFor({ 'error.status': [eq('fixed'), eq('ignored')] })).classes).toEqual(['Beta'])
    expect((await errorsFor({ 'error.assigned_to': [eq('me')] })).classes).toEqual(['Gamma'])
    expect((await errorsFor({ 'error.assigned_to': [eq('anyone')] })).classes).toEqual(['Gamma'])
    expect((await errorsFor({ 'error.assigned_to': [eq(owner.id)] })).classes).toEqual(['Gamma'])
    expect((await errorsFor({ 'error.assigned_to': [ne('anyone')] })).classes).toEqual(['Alpha', 'Beta'])
    expect((await errorsFor({ 'error.assigned_to': [empty(true)] })).classes).toEqual(['Alpha', 'Beta'])
    expect((await errorsFor({ 'error.severity': [eq('info')] })).classes).toEqual(['Gamma'])
    expect((await errorsFor({ 'version.seen_in': [eq('1.1')] })).classes).toEqual(['Alpha', 'Beta'])
    expect((await errorsFor({ 'version.seen_in': [ne('1.1')] })).classes).toEqual(['Gamma'])
  })

  it('filters on event class, message, context, device and browser', async () => {
    expect((await errorsFor({ 'event.class': [eq('Alpha')] })).classes).toEqual(['Alpha'])
    expect((await errorsFor({ 'event.class': [ne('Alpha')] })).classes).toEqual(['Beta', 'Gamma'])
    expect((await errorsFor({ 'event.message': [eq('BETA HAPP')] })).classes).toEqual(['Beta'])
    expect((await errorsFor({ 'event.context': [eq('/cart')] })).classes).toEqual(['Alpha'])
    expect((await errorsFor({ 'device.os_name': [eq('windows')] })).classes).toEqual(['Beta'])
    expect((await errorsFor({ 'device.browser_name': [eq('Chrome')] })).classes).toEqual(['Alpha'])
    expect((await errorsFor({ 'device.browser_name': [empty(true)] })).classes).toEqual(['Alpha', 'Beta', 'Gamma'])
  })

  it('searches free text in error class, message and context (case-insensitive substrings)', async () => {
    expect((await errorsFor({ search: [eq('alph')] })).classes).toEqual(['Alpha'])
    expect((await errorsFor({ search: [eq('BETA HAPP')] })).classes).toEqual(['Beta'])
    expect((await errorsFor({ search: [eq('checkout')] })).classes).toEqual(['Alpha'])
    // Several values OR-ed; ne keeps errors with an event matching in none of the fields.
    expect((await errorsFor({ search: [eq('checkout'), eq('gamma')] })).classes).toEqual(['Alpha', 'Gamma'])
    expect((await errorsFor({ search: [ne('alpha')] })).classes).toEqual(['Beta', 'Gamma'])
    // LIKE's wildcards are taken literally.
    expect((await errorsFor({ search: [eq('%')] })).classes).toEqual([])
    // Combined with other fields, within one event.
    expect((await errorsFor({ search: [eq('alpha')], 'app.release_stage': [eq('staging')] })).classes).toEqual(['Alpha'])
    expect((await errorsFor({ search: [eq('checkout')], 'app.release_stage': [eq('staging')] })).classes).toEqual([])
    // The events API takes it too.
    const events = await get(`/projects/${projectId}/events?${filtersToParams({ search: [eq('/cart')] })}`)
    expect(events.headers.get('X-Total-Count')).toBe('1')
    const fields = (await (await get(`/projects/${projectId}/event_fields`)).json()) as { display_id: string; match: string; filter_types: string[] }[]
    expect(fields.find((f) => f.display_id === 'search')).toMatchObject({ match: 'substring', filter_types: ['eq', 'ne'] })
    const tooLong = await get(`/projects/${projectId}/errors?${filtersToParams({ search: [eq('x'.repeat(1025))] })}`)
    expect(tooLong.status).toBe(400)
    expect(((await tooLong.json()) as { errors: string[] }).errors[0]).toMatch(/^filters\[search\]: value is longer than 1024/)
  })

  it('counts the matching errors per status for the status tabs, leaving out a status filter', async () => {
    const countsFor = async (filters: Filters) => {
      const res = await get(`/projects/${projectId}/error_status_counts?${filtersToParams(filters)}`)
      expect(res.status, await res.clone().text()).toBe(200)
      return res.json()
    }
    expect(await countsFor({})).toEqual({ counts: { open: 2, fixed: 1, snoozed: 0, ignored: 0 }, total: 3 })
    expect(await countsFor({ 'error.status': [eq('fixed')] })).toEqual({ counts: { open: 2, fixed: 1, snoozed: 0, ignored: 0 }, total: 3 })
    expect(await countsFor({ search: [eq('alpha')] })).toEqual({ counts: { open: 1, fixed: 0, snoozed: 0, ignored: 0 }, total: 1 })
    expect(await countsFor({ 'event.since': [eq('7d')] })).toEqual({ counts: { open: 1, fixed: 0, snoozed: 0, ignored: 0 }, total: 1 })
    const bad = await get(`/projects/${projectId}/error_status_counts?filters[nope][][type]=eq&filters[nope][][value]=1`)
    expect(bad.status).toBe(400)
    const stranger = await ctx.createUser('Stranger')
    expect((await ctx.request(`/api/projects/${projectId}/error_status_counts`, { token: stranger.token })).status).toBe(404)
  })

  it('combines error and event fields, counts the filtered errors and keeps filters in the next link', async () => {
    expect(
      (await errorsFor({ 'error.status': [eq('open')], 'app.release_stage': [eq('production')] })).classes,
    ).toEqual(['Alpha'])
    const first = await errorsFor({ 'user.id': [eq('u1')] }, '&per_page=1')
    expect(first.total).toBe(2)
    const next = /<([^>]+)>; rel="next"/.exec(first.res.headers.get('Link') ?? '')?.[1]
    expect(next).toBeDefined()
    const url = new URL(next!)
    expect(parseFilterParams(url.searchParams).filters).toEqual({ 'user.id': [eq('u1')] })
    const second = await ctx.request(`${url.pathname}${url.search}`, { token: owner.token })
    const rows = (await second.json()) as ErrorGroup[]
    expect(rows).toHaveLength(1)
    expect([first.classes[0], rows[0]!.error_class].sort()).toEqual(['Alpha', 'Gamma'])
  })

  it('answers 400 naming the field for a malformed filter', async () => {
    const cases: Array<[string, RegExp]> = [
      ['filters[nope][][type]=eq&filters[nope][][value]=1', /^filters\[nope\]: unknown filter field/],
      ['filters[user.id][][type]=like&filters[user.id][][value]=1', /^filters\[user\.id\]: unknown type "like"/],
      ['filters[error.status][][type]=empty&filters[error.status][][value]=true', /not supported for this field/],
      ['filters[error.status][][type]=eq&filters[error.status][][value]=closed', /must be one of open, fixed/],
      ['filters[event.since][][type]=eq&filters[event.since][][value]=yesterday', /^filters\[event\.since\]: value "yesterday" is not a duration/],
      ['filters[event.since][][type]=eq&filters[event.since][][value]=2026-02-30T00:00:00Z', /^filters\[event\.since\]: value "2026-02-30T00:00:00Z" is not a duration/],
      ['filters[event.before][][type]=eq&filters[event.before][][value]=2026-01-01T24:00:00Z', /^filters\[event\.before\]: value "2026-01-01T24:00:00Z" is not/],
      ['filters[error.assigned_to][][type]=eq&filters[error.assigned_to][][value]=nobody', /^filters\[error\.assigned_to\]: value "nobody" must be anyone, me or a collaborator's user id/],
      ['filters[user.id][][value]=u1', /1 value\(s\) but 0 type\(s\)/],
      ['filters[user.id][][type]=empty&filters[user.id][][value]=yes', /must be true or false/],
      ['filters[user.id][][type]=eq&filters[user.id][][value]=', /must not be empty/],
      ['filters[event.since][][type]=eq&filters[event.since][][value]=1d&filters[event.before][][type]=eq&filters[event.before][][value]=2d', /must be earlier than/],
      ['filters=1', /^filters: expected filters\[<field>\]/],
    ]
    for (const [query, message] of cases) {
      for (const path of [`/projects/${projectId}/errors`, `/projects/${projectId}/events`]) {
        const res = await get(`${path}?${query}`)
        expect(res.status, `${path}?${query}`).toBe(400)
        const body = (await res.json()) as { errors: string[] }
        expect(body.errors.join(' | '), query).toMatch(message)
      }
    }
  })
})

describe('Events API lists with filters', () => {
  it('filters a project’s and an error’s events, with a filtered total', async () => {
    const project = await get(`/projects/${projectId}/events?${filtersToParams({ 'user.id': [eq('u1')] })}`)
    const events = (await project.json()) as ErrorEvent[]
    expect(events.map((e) => e.error_id).sort()).toEqual([ids.Alpha, ids.Gamma].sort())
    expect(project.headers.get('X-Total-Count')).toBe('2')

    const error = await get(`/errors/${ids.Alpha}/events?${filtersToParams({ 'app.release_stage': [eq('staging')] })}`)
    const alpha = (await error.json()) as ErrorEvent[]
    expect(alpha.map((e) => e.release_stage)).toEqual(['staging'])
    expect(error.headers.get('X-Total-Count')).toBe('1')

    const open = await get(`/projects/${projectId}/events?${filtersToParams({ 'error.status': [eq('fixed')] })}`)
    expect(((await open.json()) as ErrorEvent[]).map((e) => e.error_id)).toEqual([ids.Beta])

    const recent = await get(`/projects/${projectId}/events?${filtersToParams({ 'event.since': [eq('4d')] })}`)
    expect(recent.headers.get('X-Total-Count')).toBe('2')
  })
})

describe('rebuildRollups', () => {
  it('recomputes the same rollups ingestion keeps', async () => {
    const db = ctx.deps.database.db
    const snapshot = () =>
      queryRows(
        db,
        sql`SELECT 'p' AS t, error_id, field, value, events::int, first_seen::text, last_seen::text, details FROM pivot_counts WHERE project_id = ${projectId}
            UNION ALL SELECT 'e', error_id, '', hour::text, events::int, '', '', NULL FROM error_hourly_counts WHERE project_id = ${projectId}
            UNION ALL SELECT 'h', '', '', hour::text, events::int, '', '', NULL FROM project_hourly_counts WHERE project_id = ${projectId}
            ORDER BY 1, 2, 3, 4`,
      )
    const incremental = await snapshot()
    await withTransaction(db, (tx) => rebuildRollups(tx, projectId))
    expect(await snapshot()).toEqual(incremental)
  })
})

describe('rollups', () => {
  const stored = () =>
    queryRows<{ error_id: string; field: string; value: string; events: number }>(
      ctx.deps.database.db,
      sql`SELECT error_id, field, value, events::int AS events FROM pivot_counts WHERE project_id = ${projectId}
          ORDER BY 1, 2, 3`,
    )
  const hourlyTotals = async () => {
    const rows = await queryRows<{ project: number; errors: number; events: number }>(
      ctx.deps.database.db,
      sql`SELECT (SELECT coalesce(sum(events), 0)::int FROM project_hourly_counts WHERE project_id = ${projectId}) AS project,
                 (SELECT coalesce(sum(events), 0)::int FROM error_hourly_counts WHERE project_id = ${projectId}) AS errors,
                 (SELECT count(*)::int FROM events WHERE project_id = ${projectId}) AS events`,
    )
    return rows[0]!
  }

  it('follow status changes, so the project trend by status matches the events', async () => {
    const db = ctx.deps.database.db
    for (const operation of ['ignore', 'open', 'fix'] as const) {
      const res = await ctx.request(`/api/projects/${projectId}/errors/${ids.Alpha}`, {
        method: 'PATCH',
        token: owner.token,
        json: { operation },
      })
      expect(res.status).toBe(200)
      const { stored, expected } = await projectHoursCheck(db, projectId)
      expect(stored, operation).toEqual(expected)
    }
    const trend = async (status: string) => {
      const res = await get(`/projects/${projectId}/trend?resolution=1h&${filtersToParams({ 'error.status': [eq(status)], 'event.since': [eq('60d')] })}`)
      expect(res.status).toBe(200)
      return ((await res.json()) as { events_count: number }[]).reduce((n, b) => n + b.events_count, 0)
    }
    // Alpha (2 events) and Beta (1) are fixed now, Gamma (1) open.
    expect(await trend('fixed')).toBe(3)
    expect(await trend('open')).toBe(1)
    const reopen = await ctx.request(`/api/projects/${projectId}/errors/${ids.Alpha}`, {
      method: 'PATCH',
      token: owner.token,
      json: { operation: 'open' },
    })
    expect(reopen.status).toBe(200)
    expect(await trend('open')).toBe(3)
  })

  it('match the events after ingestion and after an event is deleted', async () => {
    expect(await stored()).toEqual(await rollupsFromEvents(ctx.deps.database.db, projectId))
    expect(await hourlyTotals()).toEqual({ project: 4, errors: 4, events: 4 })

    const list = await get(`/errors/${ids.Alpha}/events?${filtersToParams({ 'app.release_stage': [eq('staging')] })}`)
    const [staging] = (await list.json()) as ErrorEvent[]
    const deleted = await ctx.request(`/api/events/${staging!.id}`, { method: 'DELETE', token: owner.token })
    expect(deleted.status).toBe(204)

    expect(await stored()).toEqual(await rollupsFromEvents(ctx.deps.database.db, projectId))
    expect(await hourlyTotals()).toEqual({ project: 3, errors: 3, events: 3 })
    const hours = await projectHoursCheck(ctx.deps.database.db, projectId)
    expect(hours.stored).toEqual(hours.expected)
    // The staging row is gone, so the filter no longer finds Alpha through the rollup.
    expect((await errorsFor({ 'app.release_stage': [eq('staging')] })).classes).toEqual([])
  })
})
