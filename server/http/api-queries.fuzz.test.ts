import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fuzzSeeds, Random } from '../../test/fuzz/random.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'

// The query strings and JSON bodies of the Data Access API are parsed by hand-written code
// (Bugsnag's bracketed filters, keyset cursors, sorts, pagination, time ranges) before any
// query runs. Whatever a caller sends, each answers a 2xx, or a 4xx naming what is wrong in
// `{"errors": […]}`; never a 5xx.

let ctx: TestContext
let seeded: SeededProject

beforeAll(async () => {
  ctx = await createTestContext()
  seeded = await seedProject(ctx, { user: 'Fuzzer', organization: 'Fuzz', project: 'Queries' })
  const notify = await ctx.request('/notify', {
    method: 'POST',
    headers: { 'Bugsnag-Api-Key': seeded.project.api_key },
    json: { notifier: { name: 'fuzz' }, events: [{ exceptions: [{ errorClass: 'Fuzzed', message: 'x', stacktrace: [] }], user: { id: 'u1' } }] },
  })
  expect(notify.status).toBe(200)
})
afterAll(async () => {
  await ctx?.close()
})

const FIELDS = ['error.status', 'app.release_stage', 'event.since', 'event.before', 'event.class', 'user.id', 'search', 'error.assigned_to', 'app.version', 'unknown.field', '']
const TYPES = ['eq', 'ne', 'empty', 'contains', 'gt', 'lt', '', 'x', '[]']
const ODD = ['', ' ', '%00', '%ff%fe', '%', '[', ']', '][', '[[]]', '-1', '0', '1e309', '9'.repeat(40), 'NaN', 'true', 'null', '%F0%9F%92%A9', 'a'.repeat(5000), "'; DROP TABLE errors; --", '2024-13-45T99:99:99Z', '1d', '-5h', '\\u0000']

function pathOf(random: Random, projectId: string): string {
  return random.pick([
    `/api/projects/${projectId}/errors`,
    `/api/projects/${projectId}/events`,
    `/api/projects/${projectId}/pivots`,
    `/api/projects/${projectId}/pivots/app.release_stage/values`,
    `/api/projects/${projectId}/trends`,
    `/api/projects/${projectId}/releases`,
    `/api/projects/${projectId}/event_fields`,
    `/api/projects/${random.pick([projectId, 'x', '%00', 'a'.repeat(300)])}/errors`,
  ])
}

function queryOf(random: Random): string {
  const parts: string[] = []
  for (let i = random.int(8); i > 0; i--) {
    const field = random.pick(FIELDS)
    const index = random.pick(['[]', '[0]', '[1]', '[x]', '', '[][]', `[${random.hostileNumber()}]`])
    parts.push(random.pick([
      () => `filters[${field}]${index}[type]=${random.pick(TYPES)}`,
      () => `filters[${field}]${index}[value]=${random.pick(ODD)}`,
      () => `filters[${field}]=${random.pick(ODD)}`,
      () => `filters=${random.pick(ODD)}`,
      () => `sort=${random.pick(['last_seen', 'first_seen', 'events', 'users', 'unsorted', ...ODD])}`,
      () => `direction=${random.pick(['asc', 'desc', ...ODD])}`,
      () => `per_page=${random.pick(['1', '100', '101', ...ODD])}`,
      () => `offset=${random.pick(ODD)}`,
      () => `base=${random.pick(ODD)}`,
      () => `next=${random.pick(ODD)}`,
      () => `cursor=${random.pick([random.string(random.int(200), 'ABCDEFabcdef0123456789-_'), ...ODD])}`,
      () => `resolution=${random.pick(['1h', '1d', '12h', ...ODD])}`,
      () => `buckets_count=${random.pick(['1', '50', ...ODD])}`,
      () => `full_reports=${random.pick(['true', 'false', ...ODD])}`,
      () => random.pick(ODD),
    ])())
  }
  return parts.join('&')
}

describe('Data Access API queries, fuzzed', () => {
  it.each(fuzzSeeds(6))('seed %i: every query answers 2xx or a 4xx naming the problem, never a 5xx', async (seed) => {
    const random = new Random(seed)
    for (let round = 0; round < 40; round++) {
      const url = `${pathOf(random, seeded.project.id)}?${queryOf(random)}`
      const res = await ctx.request(url, { token: seeded.user.token })
      const described = `seed ${seed} round ${round}: GET ${url.slice(0, 500)} answered ${res.status}`
      expect(res.status, described).toBeLessThan(500)
      if (res.status >= 400) {
        const body = (await res.json()) as { errors?: unknown }
        expect(Array.isArray(body.errors) && body.errors.length > 0 && body.errors.every((e) => typeof e === 'string'), described).toBe(true)
      } else await res.arrayBuffer()
    }
  })
})
