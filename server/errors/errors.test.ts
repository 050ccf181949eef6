import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorGroup, ErrorSort } from '../../contract/errors.ts'
import { queryRows } from '../db/client.ts'
import { collaborators } from '../db/schema.ts'
import { encodeCursor } from '../http/cursor.ts'
import { seedErrors, seedProject, type SeededError, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'
import { errorsPageQuery } from './errors.service.ts'

let ctx: TestContext
let main: SeededProject
let outsider: TestUser
let member: TestUser
let seeded: SeededError[]
let otherProjectErrors: SeededError[]

const ERROR_COUNT = 47

beforeAll(async () => {
  ctx = await createTestContext()
  main = await seedProject(ctx)
  outsider = await ctx.createUser('Outsider')
  member = await ctx.createUser('Member')
  await ctx.deps.database.db
    .insert(collaborators)
    .values({ organizationId: main.organization.id, userId: member.id, isAdmin: false })
  // Groups of 3 share every sort value, so keyset pagination must break ties by id.
  seeded = await seedErrors(ctx.deps.database, main.project.id, ERROR_COUNT, { tieGroup: 3, eventsPerError: 2 })
  // Same organization, another project: must never leak into the main project's list.
  const other = await (
    await ctx.request(`/api/organizations/${main.organization.id}/projects`, {
      method: 'POST',
      token: main.user.token,
      json: { name: 'Other' },
    })
  ).json()
  otherProjectErrors = await seedErrors(ctx.deps.database, other.id, 5)
})
afterAll(() => ctx.close())

const get = (path: string, token = main.user.token) => ctx.request(path, { token })
const listPath = (query = '') => `/api/projects/${main.project.id}/errors${query}`

function nextLink(res: Response): string | null {
  const match = res.headers.get('Link')?.match(/<([^>]+)>;\s*rel="next"/)
  return match?.[1] ?? null
}

const sortValue: Record<ErrorSort, (e: SeededError) => number> = {
  last_seen: (e) => e.lastSeen.getTime(),
  first_seen: (e) => e.firstSeen.getTime(),
  events: (e) => e.eventsCount,
  users: (e) => e.usersCount,
}

function expectedOrder(rows: SeededError[], sort: ErrorSort, direction: 'asc' | 'desc'): string[] {
  const sign = direction === 'asc' ? 1 : -1
  return [...rows]
    .sort((a, b) => {
      const byValue = sortValue[sort](a) - sortValue[sort](b)
      if (byValue !== 0) return sign * byValue
      return sign * (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
    })
    .map((e) => e.id)
}

/** Follows Link rel="next" from the first page to the last, returning every id in order. */
async function walk(firstPath: string, onPage?: (page: number) => Promise<void>): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = []
  let path: string | null = firstPath
  let pages = 0
  while (path) {
    const res = await get(path)
    expect(res.status).toBe(200)
    const body = (await res.json()) as ErrorGroup[]
    ids.push(...body.map((e) => e.id))
    pages++
    const link = nextLink(res)
    if (link) {
      expect(link.startsWith('http://errata.test/api/projects/')).toBe(true)
      path = new URL(link).pathname + new URL(link).search
    } else {
      path = null
    }
    await onPage?.(pages)
    if (pages > 100) throw new Error('pagination does not end')
  }
  return { ids, pages }
}

describe('GET /projects/:projectId/errors', () => {
  it('lists the newest 30 by default with X-Total-Count and an absolute Link rel="next"', async () => {
    const res = await get(listPath())
    expect(res.status).toBe(200)
    expect(res.headers.get('X-Total-Count')).toBe(String(ERROR_COUNT))
    const body = (await res.json()) as ErrorGroup[]
    expect(body).toHaveLength(30)
    expect(body.map((e) => e.id)).toEqual(expectedOrder(seeded, 'last_seen', 'desc').slice(0, 30))
    const link = nextLink(res)
    expect(link).toMatch(new RegExp(`^http://errata\\.test/api/projects/${main.project.id}/errors\\?cursor=`))
    const first = body[0]!
    const source = seeded.find((e) => e.id === first.id)!
    expect(first).toMatchObject({
      project_id: main.project.id,
      status: 'open',
      severity: 'error',
      events: source.eventsCount,
      users: source.usersCount,
      last_seen: source.lastSeen.toISOString(),
      first_seen: source.firstSeen.toISOString(),
      grouping_reason: 'in_project_frame',
      url: `http://errata.test/api/projects/${main.project.id}/errors/${first.id}`,
      html_url: `http://errata.test/projects/${main.project.id}/errors/${first.id}`,
    })
    expect(body.some((e) => otherProjectErrors.some((o) => o.id === e.id))).toBe(false)
  })

  it('has no Link header on the last page', async () => {
    const res = await get(listPath('?per_page=100'))
    expect(nextLink(res)).toBeNull()
    expect(res.headers.get('X-Total-Count')).toBe(String(ERROR_COUNT))
    expect(await res.json()).toHaveLength(ERROR_COUNT)
  })

  for (const sort of ['last_seen', 'first_seen', 'events', 'users'] as const) {
    for (const direction of ['asc', 'desc'] as const) {
      it(`orders by ${sort} ${direction} and pages through every error exactly once`, async () => {
        const expected = expectedOrder(seeded, sort, direction)
        const full = (await (await get(listPath(`?sort=${sort}&direction=${direction}&per_page=100`))).json()) as ErrorGroup[]
        expect(full.map((e) => e.id)).toEqual(expected)

        const { ids, pages } = await walk(listPath(`?sort=${sort}&direction=${direction}&per_page=7`))
        expect(pages).toBe(Math.ceil(ERROR_COUNT / 7))
        expect(ids).toEqual(expected)
        expect(new Set(ids).size).toBe(ERROR_COUNT)
      })
    }
  }

  it('defaults to desc and keeps the other parameters in the next link', async () => {
    const res = await get(listPath('?sort=events&per_page=5'))
    const body = (await res.json()) as ErrorGroup[]
    expect(body.map((e) => e.id)).toEqual(expectedOrder(seeded, 'events', 'desc').slice(0, 5))
    const link = new URL(nextLink(res)!)
    expect(link.searchParams.get('sort')).toBe('events')
    expect(link.searchParams.get('per_page')).toBe('5')
  })

  it('stays correct when errors arrive between pages', async () => {
    const { project, user } = await seedProject(ctx, { user: 'Pager', organization: 'Pager Org', project: 'Pager' })
    const token = user.token
    const now = new Date('2030-01-01T00:00:00Z')
    const original = await seedErrors(ctx.deps.database, project.id, 20, { now, tieGroup: 2 })

    let newest: SeededError[] = []
    let oldest: SeededError[] = []
    let tie: SeededError[] = []
    let boundary: ErrorGroup | undefined
    const ids: string[] = []
    let path: string | null = `/api/projects/${project.id}/errors?per_page=6`
    let pages = 0
    while (path) {
      const res = await ctx.request(path, { token })
      const body = (await res.json()) as ErrorGroup[]
      ids.push(...body.map((e) => e.id))
      if (pages === 0) {
        // After the first page: one error newer than everything (already passed) and one older (still ahead).
        newest = await seedErrors(ctx.deps.database, project.id, 1, { now: new Date(now.getTime() + 3_600_000) })
        oldest = await seedErrors(ctx.deps.database, project.id, 1, { now: new Date(now.getTime() - 86_400_000) })
        // And one tied with the last row of the page: it belongs ahead only if its id sorts below.
        boundary = body[body.length - 1]!
        tie = await seedErrors(ctx.deps.database, project.id, 1, { now: new Date(boundary.last_seen) })
      }
      pages++
      const link = nextLink(res)
      path = link ? new URL(link).pathname + new URL(link).search : null
      if (pages === 2) expect(res.headers.get('X-Total-Count')).toBe('23')
    }
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.filter((id) => original.some((e) => e.id === id))).toEqual(expectedOrder(original, 'last_seen', 'desc'))
    expect(ids).toContain(oldest[0]!.id)
    expect(ids).not.toContain(newest[0]!.id)
    expect(ids[ids.length - 1]).toBe(oldest[0]!.id)
    expect(ids.includes(tie[0]!.id)).toBe(tie[0]!.id < boundary!.id)
  })

  it('answers 400 naming the parameter for a bad sort, direction, per_page or cursor', async () => {
    const cases: [string, string][] = [
      ['?per_page=101', 'per_page'],
      ['?per_page=0', 'per_page'],
      ['?per_page=ten', 'per_page'],
      ['?sort=name', 'sort'],
      ['?direction=up', 'direction'],
      ['?cursor=not-a-cursor', 'cursor'],
      [`?cursor=${Buffer.from('{"a":1}').toString('base64url')}`, 'cursor'],
      // A last_seen cursor handed to the events sort.
      [`?sort=events&cursor=${encodeCursor({ v: '2024-01-01T00:00:00.000000Z', id: 'x' }, `errors|${main.project.id}|events|desc`)}`, 'cursor'],
      [`?sort=last_seen&cursor=${encodeCursor({ v: 12, id: 'x' }, `errors|${main.project.id}|last_seen|desc`)}`, 'cursor'],
      [`?cursor=${encodeCursor({ v: 'yesterday', id: 'x' }, `errors|${main.project.id}|last_seen|desc`)}`, 'cursor'],
    ]
    for (const [query, field] of cases) {
      const res = await get(listPath(query))
      expect(res.status, query).toBe(400)
      const body = (await res.json()) as { errors: string[] }
      expect(body.errors[0], query).toMatch(new RegExp(`^${field}: `))
    }
  })

  it('accepts per_page at the maximum of 100', async () => {
    expect((await get(listPath('?per_page=100'))).status).toBe(200)
  })

  it('answers 404 to outsiders and for unknown projects, 200 to any member', async () => {
    const res = await get(listPath(), outsider.token)
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ errors: ['Project not found'] })
    expect((await get('/api/projects/000000000000000000000000/errors')).status).toBe(404)
    expect((await get(listPath(), member.token)).status).toBe(200)
    expect((await ctx.request(listPath())).status).toBe(401)
  })

  it('pages alike whether a page walks the sort index (many match) or is read from the matching errors (few)', async () => {
    // With event conditions (a time window), listErrors reads a page from the matching errors'
    // ids under 100 matches per row of the page: 250 errors are many for pages of 2, few for 3.
    const { project, user } = await seedProject(ctx, { user: 'Pager', organization: 'Pager Org', project: 'Pager' })
    const expected = expectedOrder(await seedErrors(ctx.deps.database, project.id, 250, { tieGroup: 3, payloads: false }), 'users', 'desc')
    const since = 'filters[event.since][][type]=eq&filters[event.since][][value]=30d'
    for (const perPage of [2, 3]) {
      const ids: string[] = []
      let path: string | null = `/api/projects/${project.id}/errors?sort=users&per_page=${perPage}&${since}`
      for (let page = 0; page < 4 && path; page++) {
        const res = await ctx.request(path, { token: user.token })
        expect(res.headers.get('X-Total-Count')).toBe('250')
        ids.push(...((await res.json()) as ErrorGroup[]).map((e) => e.id))
        const link = nextLink(res)
        path = link && new URL(link).pathname + new URL(link).search
      }
      expect(ids).toEqual(expected.slice(0, perPage * 4))
    }
  })

  it('uses the (project_id, sort, id) index for every sort, with no Sort node', async () => {
    // Enough rows in other projects that a scan-and-sort would be the planner's worse choice.
    const { project } = await seedProject(ctx, { user: 'Bulk', organization: 'Bulk Org', project: 'Bulk' })
    await seedErrors(ctx.deps.database, project.id, 4000)
    await ctx.deps.database.db.execute(sql`ANALYZE errors`)
    for (const sort of ['last_seen', 'first_seen', 'events', 'users'] as const) {
      for (const direction of ['desc', 'asc'] as const) {
        const list = `errors|${project.id}|${sort}|${direction}`
        for (const cursor of [undefined, encodeCursor(sort.endsWith('seen') ? { v: '2020-01-01T00:00:00.000000Z', id: 'f' } : { v: 5, id: 'f' }, list)]) {
          const query = errorsPageQuery(ctx.deps.database.db, project.id, { sort, direction, per_page: 30, cursor })
          const plan = await queryRows<{ 'QUERY PLAN': string }>(ctx.deps.database.db, sql`EXPLAIN ${query.getSQL()}`)
          const text = plan.map((row) => row['QUERY PLAN']).join('\n')
          expect(text, text).toContain(`errors_project_${sort}_idx`)
          expect(text, text).not.toMatch(/\bSort\b/)
          if (cursor) expect(text, text).toMatch(/Index Cond: .*ROW\(/)
        }
      }
    }
  })
})

describe('GET /projects/:projectId/errors/:errorId', () => {
  it('returns the error resource', async () => {
    const source = seeded[4]!
    const res = await get(`/api/projects/${main.project.id}/errors/${source.id}`)
    expect(res.status).toBe(200)
    const body = (await res.json()) as ErrorGroup
    expect(body).toEqual({
      id: source.id,
      project_id: main.project.id,
      error_class: 'SeedError4',
      message: 'seeded failure number 4',
      context: 'GET /items/4',
      severity: 'error',
      severity_override: null,
      unhandled: true,
      status: 'open',
      assigned_collaborator_id: null,
      reopen_rules: null,
      first_seen: source.firstSeen.toISOString(),
      last_seen: source.lastSeen.toISOString(),
      events: 2,
      users: source.usersCount,
      release_stages: ['production'],
      app_versions: ['1.4.0'],
      grouping_reason: 'in_project_frame',
      first_release: null,
      discarded: false,
      discarded_at: null,
      discarded_events: 0,
      linked_issues: [],
      merged_into_id: null,
      merged_errors: [],
      url: `http://errata.test/api/projects/${main.project.id}/errors/${source.id}`,
      html_url: `http://errata.test/projects/${main.project.id}/errors/${source.id}`,
    })
  })

  it('answers 404 for an unknown error, an error of another project, and outsiders', async () => {
    expect((await get(`/api/projects/${main.project.id}/errors/000000000000000000000000`)).status).toBe(404)
    const foreign = await get(`/api/projects/${main.project.id}/errors/${otherProjectErrors[0]!.id}`)
    expect(foreign.status).toBe(404)
    expect(await foreign.json()).toEqual({ errors: ['Error not found'] })
    const res = await get(`/api/projects/${main.project.id}/errors/${seeded[0]!.id}`, outsider.token)
    expect(res.status).toBe(404)
    expect((await get(`/api/projects/${main.project.id}/errors/${seeded[0]!.id}`, member.token)).status).toBe(200)
  })
})

describe('GET /projects/:projectId/errors/:errorId/latest_event', () => {
  it('returns the newest event of the error', async () => {
    const source = seeded[7]!
    const res = await get(`/api/projects/${main.project.id}/errors/${source.id}/latest_event`)
    expect(res.status).toBe(200)
    const event = await res.json()
    expect(event.id).toBe(source.eventIds[source.eventIds.length - 1])
    expect(event.id).toBe(source.lastEventId)
    expect(event).toMatchObject({
      error_id: source.id,
      project_id: main.project.id,
      received_at: source.lastSeen.toISOString(),
      exceptions: [expect.objectContaining({ class: 'SeedError7', message: 'seeded failure number 7' })],
    })
    expect(event.url).toMatch(/^http:\/\/errata\.test\/api\//)
  })

  it('moves to the previous event when the latest is deleted, and 404s once none is left', async () => {
    const { project, user } = await seedProject(ctx, { user: 'Deleter', organization: 'Delete Org', project: 'Deletes' })
    const [error] = await seedErrors(ctx.deps.database, project.id, 1, { eventsPerError: 2 })
    const path = `/api/projects/${project.id}/errors/${error!.id}/latest_event`
    const [older, newer] = error!.eventIds
    expect((await (await ctx.request(path, { token: user.token })).json()).id).toBe(newer)
    expect((await ctx.request(`/api/events/${newer}`, { method: 'DELETE', token: user.token })).status).toBe(204)
    expect((await (await ctx.request(path, { token: user.token })).json()).id).toBe(older)
    expect((await ctx.request(`/api/events/${older}`, { method: 'DELETE', token: user.token })).status).toBe(204)
    expect((await ctx.request(path, { token: user.token })).status).toBe(404)
  })

  it('answers 404 when the error has no events, and to outsiders', async () => {
    const { project, user } = await seedProject(ctx, { user: 'Empty', organization: 'Empty Org', project: 'Empty' })
    const [bare] = await seedErrors(ctx.deps.database, project.id, 1)
    const res = await ctx.request(`/api/projects/${project.id}/errors/${bare!.id}/latest_event`, { token: user.token })
    expect(res.status).toBe(404)
    expect((await res.json()).errors[0]).toMatch(/not found/)
    const source = seeded[7]!
    expect((await get(`/api/projects/${main.project.id}/errors/${source.id}/latest_event`, outsider.token)).status).toBe(404)
    expect((await get(`/api/projects/${main.project.id}/errors/${otherProjectErrors[0]!.id}/latest_event`)).status).toBe(404)
  })
})
