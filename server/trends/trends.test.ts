import { z } from 'zod/mini'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_TREND_WINDOW_MS, trendBucketSchema, type TrendBucket } from '../../contract/trends.ts'
import { seedEvents } from '../test-support/seed-events.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

let ctx: TestContext
let seeded: SeededProject
let other: SeededProject
let outsider: TestUser
let ids: Record<string, string>
let otherIds: Record<string, string>

const HOUR = 3_600_000
const MATCH_ALL = 'filters[app.release_stage][][type]=ne&filters[app.release_stage][][value]=no-such-stage'
const window = (since: string, before: string) =>
  `filters[event.since][][type]=eq&filters[event.since][][value]=${since}&filters[event.before][][type]=eq&filters[event.before][][value]=${before}`
const recent = new Date(Date.now() - 2 * HOUR).toISOString()

beforeAll(async () => {
  ctx = await createTestContext()
  seeded = await seedProject(ctx, { user: 'Trend Admin' })
  other = await seedProject(ctx, { user: 'Other Admin' })
  outsider = await ctx.createUser('Outsider')
  ids = await seedEvents(ctx.deps.database, seeded.project.id, [
    { error: 'e1', at: '2024-03-01T10:00:00.000Z', releaseStage: 'production' },
    { error: 'e1', at: '2024-03-01T23:59:59.999Z', releaseStage: 'production' },
    // Exactly on the hour and day boundary: belongs to the later bucket.
    { error: 'e1', at: '2024-03-02T00:00:00.000Z', releaseStage: 'staging' },
    { error: 'e2', at: '2024-03-02T00:30:00.000Z', releaseStage: 'production' },
    { error: 'e2', at: '2024-03-02T01:00:00.000Z' },
    { error: 'e2', at: '2024-03-02T01:45:00.000Z', releaseStage: 'staging' },
    { error: 'e3', at: recent, releaseStage: 'production' },
  ])
  otherIds = await seedEvents(ctx.deps.database, other.project.id, [{ error: 'x', at: '2024-03-02T00:10:00.000Z' }])
})
afterAll(() => ctx.close())

const get = (path: string, token = seeded.user.token) => ctx.request(`/api${path}`, { token })
const buckets = async (res: Response): Promise<TrendBucket[]> => {
  expect(res.status).toBe(200)
  return z.array(trendBucketSchema).parse(await res.json())
}
const counts = (list: TrendBucket[]) => list.map((b) => [b.from, b.events_count])
const errorMessage = async (res: Response) => {
  expect(res.status).toBe(400)
  return ((await res.json()) as { errors: string[] }).errors[0]
}

/** Every bucket is `size` long and starts where the previous one ended. */
function expectContiguous(list: TrendBucket[], size: number) {
  list.forEach((bucket, i) => {
    expect(Date.parse(bucket.to) - Date.parse(bucket.from)).toBe(size)
    expect(Date.parse(bucket.from) % size).toBe(0)
    if (i > 0) expect(bucket.from).toBe(list[i - 1]!.to)
  })
}

describe('GET /projects/{id}/trend: bucket arithmetic', () => {
  it('aligns hour buckets, puts an event on a boundary in the later bucket, and ends at a boundary `before` falls on', async () => {
    const list = await buckets(
      await get(`/projects/${seeded.project.id}/trend?resolution=1h&${window('2024-03-01T22:30:00Z', '2024-03-02T01:00:00Z')}`),
    )
    expect(list).toEqual([
      { from: '2024-03-01T22:00:00.000Z', to: '2024-03-01T23:00:00.000Z', events_count: 0 },
      { from: '2024-03-01T23:00:00.000Z', to: '2024-03-02T00:00:00.000Z', events_count: 1 },
      { from: '2024-03-02T00:00:00.000Z', to: '2024-03-02T01:00:00.000Z', events_count: 2 },
    ])
  })

  it('counts whole day buckets, the first one beginning before event.since', async () => {
    const list = await buckets(
      await get(`/projects/${seeded.project.id}/trend?resolution=1d&${window('2024-03-01T22:30:00Z', '2024-03-02T01:00:01Z')}`),
    )
    expect(list).toEqual([
      { from: '2024-03-01T00:00:00.000Z', to: '2024-03-02T00:00:00.000Z', events_count: 2 },
      { from: '2024-03-02T00:00:00.000Z', to: '2024-03-03T00:00:00.000Z', events_count: 4 },
    ])
  })

  it('cuts at minutes from the events (30m), with empty buckets as 0', async () => {
    const list = await buckets(
      await get(`/projects/${seeded.project.id}/trend?resolution=30m&${window('2024-03-01T22:40:00Z', '2024-03-02T02:00:00Z')}`),
    )
    expect(counts(list)).toEqual([
      ['2024-03-01T22:30:00.000Z', 0],
      ['2024-03-01T23:00:00.000Z', 0],
      ['2024-03-01T23:30:00.000Z', 1],
      ['2024-03-02T00:00:00.000Z', 1],
      ['2024-03-02T00:30:00.000Z', 1],
      ['2024-03-02T01:00:00.000Z', 1],
      ['2024-03-02T01:30:00.000Z', 1],
    ])
    expectContiguous(list, 30 * 60_000)
  })

  it('answers identically from the hourly rollups and from the events', async () => {
    const span = window('2024-03-01T00:00:00Z', '2024-03-03T00:00:00Z')
    const errorFilter = 'filters[error.status][][type]=eq&filters[error.status][][value]=open'
    for (const resolution of ['1h', '3h', '1d']) {
      const base = `/projects/${seeded.project.id}/trend?resolution=${resolution}&${span}`
      const rollup = await buckets(await get(base))
      expect(rollup.reduce((n, b) => n + b.events_count, 0)).toBe(6)
      expect(await buckets(await get(`${base}&${MATCH_ALL}`))).toEqual(rollup)
      // Error conditions: error_hourly_counts joined to errors, against the events.
      expect(await buckets(await get(`${base}&${errorFilter}`))).toEqual(rollup)
      expect(await buckets(await get(`${base}&${errorFilter}&${MATCH_ALL}`))).toEqual(rollup)
      const errorBase = `/projects/${seeded.project.id}/errors/${ids.e2}/trend?resolution=${resolution}&${span}`
      const errorRollup = await buckets(await get(errorBase))
      expect(errorRollup.reduce((n, b) => n + b.events_count, 0)).toBe(3)
      expect(await buckets(await get(`${errorBase}&${MATCH_ALL}`))).toEqual(errorRollup)
    }
  })

  it('reads the rollups only when they answer exactly (whole hours, no event conditions)', async () => {
    // Skew the project rollup on purpose: only the rollup path sees it.
    const hour = '2024-03-01T10:00:00Z'
    const skew = (n: number) =>
      ctx.deps.database.db.execute(
        sql`UPDATE project_hourly_counts SET events = events + ${n} WHERE project_id = ${seeded.project.id} AND hour = ${hour}::timestamptz`,
      )
    await skew(100)
    try {
      const span = window('2024-03-01T10:00:00Z', '2024-03-01T11:00:00Z')
      const viaRollup = await buckets(await get(`/projects/${seeded.project.id}/trend?resolution=1h&${span}`))
      const viaEvents = await buckets(await get(`/projects/${seeded.project.id}/trend?resolution=1h&${span}&${MATCH_ALL}`))
      const viaMinutes = await buckets(await get(`/projects/${seeded.project.id}/trend?resolution=60m&${span}`))
      expect([viaRollup[0]!.events_count, viaEvents[0]!.events_count]).toEqual([101, 1])
      // 60m is a whole hour: the same as 1h.
      expect(viaMinutes).toEqual(viaRollup)
    } finally {
      await skew(-100)
    }
  })

  it('narrows the counts by event filters', async () => {
    const list = await buckets(
      await get(
        `/projects/${seeded.project.id}/trend?resolution=1d&${window('2024-03-01T00:00:00Z', '2024-03-03T00:00:00Z')}` +
          '&filters[app.release_stage][][type]=eq&filters[app.release_stage][][value]=staging',
      ),
    )
    expect(counts(list)).toEqual([
      ['2024-03-01T00:00:00.000Z', 0],
      ['2024-03-02T00:00:00.000Z', 2],
    ])
  })
})

describe('GET /projects/{id}/trend: window and resolution', () => {
  it('covers the last 30 days in hours by default, the newest bucket holding now', async () => {
    const before = Date.now()
    const list = await buckets(await get(`/projects/${seeded.project.id}/trend`))
    const after = Date.now()
    expect(list.length).toBeGreaterThanOrEqual(720)
    expect(list.length).toBeLessThanOrEqual(721)
    expectContiguous(list, HOUR)
    expect(Date.parse(list[0]!.from)).toBeLessThanOrEqual(after - DEFAULT_TREND_WINDOW_MS)
    expect(Date.parse(list[0]!.from)).toBeGreaterThan(before - DEFAULT_TREND_WINDOW_MS - HOUR)
    expect(Date.parse(list.at(-1)!.to)).toBeGreaterThanOrEqual(before)
    const holding = list.find((b) => b.from <= recent && recent < b.to)
    expect(holding?.events_count).toBe(1)
    expect(list.reduce((n, b) => n + b.events_count, 0)).toBe(1)
  })

  it('takes event.since as a relative duration, switching to days when hours would be too many', async () => {
    const week = await buckets(
      await get(`/projects/${seeded.project.id}/trend?filters[event.since][][type]=eq&filters[event.since][][value]=7d`),
    )
    expect([168, 169]).toContain(week.length)
    expectContiguous(week, HOUR)
    const long = await buckets(
      await get(`/projects/${seeded.project.id}/trend?filters[event.since][][type]=eq&filters[event.since][][value]=100d`),
    )
    expect([100, 101]).toContain(long.length)
    expectContiguous(long, 24 * HOUR)
  })

  it('derives the resolution from buckets_count, rounded up to a whole minute', async () => {
    const span = window('2024-03-01T00:00:00Z', '2024-03-02T00:00:00Z')
    const hourly = await buckets(await get(`/projects/${seeded.project.id}/trend?buckets_count=24&${span}`))
    expect(hourly).toHaveLength(24)
    expectContiguous(hourly, HOUR)
    const seven = await buckets(await get(`/projects/${seeded.project.id}/trend?buckets_count=7&${span}`))
    // 1440 minutes / 7 = 205.7 → 206 minutes; alignment may add one bucket.
    expectContiguous(seven, 206 * 60_000)
    expect([7, 8]).toContain(seven.length)
    expect(Date.parse(seven[0]!.from)).toBeLessThanOrEqual(Date.parse('2024-03-01T00:00:00Z'))
    expect(Date.parse(seven.at(-1)!.to)).toBeGreaterThanOrEqual(Date.parse('2024-03-02T00:00:00Z'))
    expect(seven.reduce((n, b) => n + b.events_count, 0)).toBeGreaterThanOrEqual(2)
  })

  it('refuses more buckets than the maximum, naming the numbers', async () => {
    const message = await errorMessage(await get(`/projects/${seeded.project.id}/trend?resolution=1m`))
    expect(message).toMatch(
      /^resolution: 1m over 30 days gives 4320[01] buckets; at most 2000 — choose a larger resolution or a shorter event\.since$/,
    )
  })

  it('refuses a malformed resolution, both resolution and buckets_count, and a bad buckets_count', async () => {
    const base = `/projects/${seeded.project.id}/trend`
    expect(await errorMessage(await get(`${base}?resolution=5x`))).toMatch(/^resolution: must be 1 to 5 digits then m, h or d/)
    expect(await errorMessage(await get(`${base}?resolution=100000d`))).toMatch(/^resolution: must be 1 to 5 digits/)
    // Plain decimal digits only, as per_page.
    for (const loose of ['1e3', '0x0A', '5.0', '+3', '%205', '']) {
      expect(await errorMessage(await get(`${base}?buckets_count=${loose}`)), loose).toMatch(/^buckets_count: must be an integer/)
    }
    expect(await errorMessage(await get(`${base}?resolution=0h`))).toMatch(/^resolution:/)
    expect(await errorMessage(await get(`${base}?resolution=1h&buckets_count=3`))).toMatch(/^resolution: give either/)
    expect(await errorMessage(await get(`${base}?buckets_count=0`))).toMatch(/^buckets_count: must be at least 1/)
    expect(await errorMessage(await get(`${base}?filters[event.since][][type]=eq&filters[event.since][][value]=soon`))).toMatch(
      /^filters\[event\.since\]/,
    )
    expect(await errorMessage(await get(`${base}?filters[event.since][][type]=eq&filters[event.since][][value]=2999-01-01`))).toMatch(
      /^filters\[event\.since\]: must be earlier/,
    )
  })
})

describe('GET /projects/{id}/trend: extreme windows', () => {
  it('starts a window reaching before 1970 at the epoch, and refuses one ending before it or after 9999', async () => {
    const base = `/projects/${seeded.project.id}/trend?resolution=99999d`
    const all = await buckets(await get(`${base}&${window('0001-01-01T00:00:00Z', '2024-06-01T00:00:00Z')}`))
    // One whole bucket up to the year 2243: it also counts the recent event after event.before.
    expect(all).toEqual([{ from: '1970-01-01T00:00:00.000Z', to: new Date(99_999 * 86_400_000).toISOString(), events_count: 7 }])
    expect(
      await errorMessage(await get(`${base}&filters[event.before][][type]=eq&filters[event.before][][value]=9999-12-31`)),
    ).toMatch(/^filters\[event\.before\]: the last bucket would end after the year 9999/)
    expect(
      await errorMessage(await get(`${base}&filters[event.before][][type]=eq&filters[event.before][][value]=1960-01-01`)),
    ).toMatch(/^filters\[event\.before\]: must be after 1970-01-01/)
  })
})

describe('error trends', () => {
  it("counts one error's events, also at …/trends", async () => {
    const path = `/projects/${seeded.project.id}/errors/${ids.e1}`
    const span = `resolution=1d&${window('2024-03-01T00:00:00Z', '2024-03-03T00:00:00Z')}`
    const list = await buckets(await get(`${path}/trend?${span}`))
    expect(counts(list)).toEqual([
      ['2024-03-01T00:00:00.000Z', 2],
      ['2024-03-02T00:00:00.000Z', 1],
    ])
    expect(await buckets(await get(`${path}/trends?${span}`))).toEqual(list)
    expect(await buckets(await get(`/projects/${seeded.project.id}/trends?${span}`))).toEqual(
      await buckets(await get(`/projects/${seeded.project.id}/trend?${span}`)),
    )
  })

  it('answers 404 for an error of another project, and to outsiders', async () => {
    expect((await get(`/projects/${seeded.project.id}/errors/${otherIds.x}/trend`)).status).toBe(404)
    expect((await get(`/projects/${seeded.project.id}/errors/${ids.e1}/trend`, outsider.token)).status).toBe(404)
    expect((await get(`/projects/${seeded.project.id}/trend`, outsider.token)).status).toBe(404)
    expect((await get(`/projects/${seeded.project.id}/error_trends?error_ids=${ids.e1}`, outsider.token)).status).toBe(404)
  })

  it('answers sparklines for many errors at once, leaving out ids outside the project', async () => {
    const span = `resolution=1h&${window('2024-03-01T22:00:00Z', '2024-03-02T02:00:00Z')}`
    // Unfiltered and with an error condition (the hourly rollups), with an event condition (raw events).
    for (const extra of ['', '&filters[error.status][][type]=eq&filters[error.status][][value]=open', `&${MATCH_ALL}`]) {
      const res = await get(
        `/projects/${seeded.project.id}/error_trends?error_ids=${ids.e2},${ids.e1},${otherIds.x},nosucherror&${span}${extra}`,
      )
      expect(res.status).toBe(200)
      const body = (await res.json()) as Record<string, TrendBucket[]>
      expect(Object.keys(body)).toEqual([ids.e2, ids.e1])
      for (const id of [ids.e1!, ids.e2!]) {
        expect(body[id]).toEqual(await buckets(await get(`/projects/${seeded.project.id}/errors/${id}/trend?${span}`)))
      }
      expect(counts(body[ids.e2!]!)).toEqual([
        ['2024-03-01T22:00:00.000Z', 0],
        ['2024-03-01T23:00:00.000Z', 0],
        ['2024-03-02T00:00:00.000Z', 1],
        ['2024-03-02T01:00:00.000Z', 2],
      ])
    }
  })

  it('counts nothing in the sparklines of errors an error condition leaves out', async () => {
    const span = `resolution=1h&${window('2024-03-01T22:00:00Z', '2024-03-02T02:00:00Z')}`
    const res = await get(
      `/projects/${seeded.project.id}/error_trends?error_ids=${ids.e1},${ids.e2}&${span}` +
        '&filters[error.status][][type]=eq&filters[error.status][][value]=fixed',
    )
    const body = (await res.json()) as Record<string, TrendBucket[]>
    expect(Object.keys(body)).toEqual([ids.e1, ids.e2])
    for (const id of [ids.e1!, ids.e2!]) expect(counts(body[id]!).every(([, events]) => events === 0)).toBe(true)
  })

  it('takes error_ids repeated or bracketed too', async () => {
    const span = `resolution=1h&${window('2024-03-01T22:00:00Z', '2024-03-02T02:00:00Z')}`
    for (const list of [`error_ids=${ids.e2}&error_ids=${ids.e1}`, `error_ids[]=${ids.e2}&error_ids[]=${ids.e1}`]) {
      const body = (await (await get(`/projects/${seeded.project.id}/error_trends?${list}&${span}`)).json()) as Record<string, TrendBucket[]>
      expect(Object.keys(body), list).toEqual([ids.e2, ids.e1])
    }
  })

  it('refuses a missing, empty or too long error_ids list', async () => {
    const base = `/projects/${seeded.project.id}/error_trends`
    expect(await errorMessage(await get(base))).toMatch(/^error_ids:/)
    expect(await errorMessage(await get(`${base}?error_ids=`))).toMatch(/^error_ids:/)
    const many = Array.from({ length: 101 }, (_, i) => `id${i}`).join(',')
    expect(await errorMessage(await get(`${base}?error_ids=${many}`))).toMatch(/^error_ids: at most 100/)
    expect(await errorMessage(await get(`${base}?error_ids=${ids.e1}&resolution=1m`))).toMatch(/^resolution: 1m over 30 days/)
  })
})
