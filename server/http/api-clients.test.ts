// What Bugsnag's API clients send that a browser never does: requests without the /api prefix
// on the main port, sort=timestamp, the `error` filter field, ISO 8601 / RFC 3339 time forms,
// and the pivots lists (docs/api.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PivotSummary } from '../../contract/pivots.ts'
import { notifierEvent } from '../test-support/ingest.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

let ctx: TestContext
let main: SeededProject
let outsider: TestUser
let errorId: string

beforeAll(async () => {
  ctx = await createTestContext()
  main = await seedProject(ctx, { user: 'Client Admin', organization: 'Client Org', project: 'Client' })
  outsider = await ctx.createUser('Client Outsider')
  for (const [cls, user] of [['Alpha', 'a'], ['Alpha', 'b'], ['Alpha', 'a'], ['Beta', 'c']] as const) {
    await ctx.request('/notify', {
      method: 'POST',
      headers: { 'Bugsnag-Api-Key': main.project.api_key },
      json: { events: [notifierEvent(cls, { user: { id: user }, app: { version: '1.0.0' } })] },
    })
  }
  const errors = (await (await ctx.request(`/api/projects/${main.project.id}/errors`, { token: main.user.token })).json()) as Array<{ id: string; error_class: string }>
  errorId = errors.find((e) => e.error_class === 'Alpha')!.id
})
afterAll(() => ctx.close())

describe('requests without the /api prefix on the main port', () => {
  it('reach the API when they carry X-Version or Authorization: token, and the dashboard otherwise', async () => {
    const withVersion = await ctx.app.request('http://errata.test/user/organizations', { headers: { 'X-Version': '2', Authorization: `token ${main.user.token}` } })
    expect(withVersion.status).toBe(200)
    expect(await withVersion.json()).toEqual([expect.objectContaining({ id: main.organization.id })])
    // Authorization: token alone selects the API too (then the legacy version, which answers 410).
    const tokenOnly = await ctx.app.request('http://errata.test/user/organizations', { headers: { Authorization: `token ${main.user.token}` } })
    expect(tokenOnly.status).toBe(410)
    const unknown = await ctx.app.request('http://errata.test/no/such/thing', { headers: { 'X-Version': '2', Authorization: `token ${main.user.token}` } })
    expect([unknown.status, await unknown.json()]).toEqual([404, { errors: ['no API endpoint GET /no/such/thing'] }])
    const outsiderRes = await ctx.app.request(`http://errata.test/projects/${main.project.id}/errors`, { headers: { 'X-Version': '2', Authorization: `token ${outsider.token}` } })
    expect(outsiderRes.status).toBe(404)
    // A browser navigation (no such headers) gets the dashboard, not JSON.
    const page = await ctx.app.request(`http://errata.test/projects/${main.project.id}/errors`)
    expect(page.headers.get('Content-Type') ?? '').not.toMatch(/json/)
  })
})

describe('event lists as Bugsnag clients ask for them', () => {
  const events = (query: string) => ctx.request(`/api/projects/${main.project.id}/events?${query}`, { token: main.user.token })

  it('takes sort=timestamp and the error filter, with full_reports', async () => {
    const res = await events(`sort=timestamp&direction=desc&full_reports=true&filters[error][][type]=eq&filters[error][][value]=${errorId}`)
    expect(res.status).toBe(200)
    const body = (await res.json()) as Array<{ error_id: string; exceptions: unknown[] }>
    expect(body).toHaveLength(3)
    expect(body.every((e) => e.error_id === errorId && e.exceptions.length === 1)).toBe(true)
    const others = await events(`filters[error][][type]=ne&filters[error][][value]=${errorId}`)
    expect(((await others.json()) as unknown[]).length).toBe(1)
    const bad = await events('filters[error][][type]=eq&filters[error][][value]=not%20an%20id')
    expect(await bad.json()).toEqual({ errors: ['filters[error]: value "not an id" is not an error id (letters, digits, - and _, at most 64)'] })
    const badFull = await events('full_reports=yes')
    expect(await badFull.json()).toEqual({ errors: ['full_reports: must be true or false'] })
  })

  it('reads start_time and end_time in any ISO 8601 / RFC 3339 form and says what is wrong otherwise', async () => {
    for (const time of ['2020-01-01', '20200101T000000Z', '2020-01-01 00:00:00+00:00', '2020-001']) {
      const res = await events(`start_time=${encodeURIComponent(time)}`)
      expect(res.status, time).toBe(200)
      expect(((await res.json()) as unknown[]).length, time).toBe(4)
    }
    const bad = await events('start_time=2026-02-30')
    expect(await bad.json()).toEqual({ errors: ['start_time: day 30 does not exist: February 2026 has 28 days'] })
    const late = await events('end_time=2026-01-01T10:00&start_time=2026-01-02')
    expect(await late.json()).toEqual({ errors: ['start_time: must be before end_time', 'end_time: must be after start_time'] })
  })
})

describe('pivots lists', () => {
  it('lists the pivots on an error and on the project with their top values', async () => {
    const res = await ctx.request(`/api/projects/${main.project.id}/errors/${errorId}/pivots?summary_size=1`, { token: main.user.token })
    const pivots = (await res.json()) as PivotSummary[]
    expect(pivots.find((p) => p.event_field_display_id === 'user.id')).toEqual({
      event_field_display_id: 'user.id',
      name: 'User id',
      cardinality: 2,
      summary: { list: [{ value: 'a', count: 2 }], other: 1 },
      values_url: `http://errata.test/api/projects/${main.project.id}/errors/${errorId}/pivots/user.id/values`,
    })
    const project = await ctx.request(`/api/projects/${main.project.id}/pivots?pivots=user.id&pivots=app.version`, { token: main.user.token })
    expect(((await project.json()) as PivotSummary[]).map((p) => [p.event_field_display_id, p.cardinality, p.summary.other])).toEqual([
      ['user.id', 3, 0],
      ['app.version', 1, 0],
    ])
    const bad = await ctx.request(`/api/projects/${main.project.id}/pivots?pivots=shoe.size`, { token: main.user.token })
    expect(bad.status).toBe(400)
    expect((await ctx.request(`/api/projects/${main.project.id}/pivots`, { token: outsider.token })).status).toBe(404)
  })
})
