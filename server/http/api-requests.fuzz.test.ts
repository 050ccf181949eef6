import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fuzzSeeds, hostileNumber, mutate, randomString, seededRandom, type SeededRandom } from '../test-support/seeded-random.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'

// The query strings and JSON bodies of the Data Access API are parsed by hand-written code
// (Bugsnag's bracketed filters, keyset cursors, sorts, pagination, time ranges) and zod schemas
// before any query runs. Whatever a caller sends, each answers a 2xx, or a 4xx naming what is
// wrong in `{"errors": […]}`; never a 5xx.

let ctx: TestContext
let seeded: SeededProject
let errorId: string

beforeAll(async () => {
  ctx = await createTestContext()
  seeded = await seedProject(ctx, { user: 'Fuzzer', organization: 'Fuzz', project: 'Queries' })
  const notify = await ctx.request('/notify', {
    method: 'POST',
    headers: { 'Bugsnag-Api-Key': seeded.project.api_key },
    json: { notifier: { name: 'fuzz' }, events: [{ exceptions: [{ errorClass: 'Fuzzed', message: 'x', stacktrace: [] }], user: { id: 'u1' } }] },
  })
  expect(notify.status).toBe(200)
  const errors = (await (await ctx.request(`/api/projects/${seeded.project.id}/errors`, { token: seeded.user.token })).json()) as { id: string }[]
  errorId = errors[0]!.id
})
afterAll(async () => {
  await ctx?.close()
})

const FIELDS = ['error.status', 'app.release_stage', 'event.since', 'event.before', 'event.class', 'user.id', 'search', 'error.assigned_to', 'app.version', 'unknown.field', '']
const TYPES = ['eq', 'ne', 'empty', 'contains', 'gt', 'lt', '', 'x', '[]']
const ODD = ['', ' ', '%00', '%ff%fe', '%', '[', ']', '][', '[[]]', '-1', '0', '1e309', '9'.repeat(40), 'NaN', 'true', 'null', '%F0%9F%92%A9', 'a'.repeat(5000), "'; DROP TABLE errors; --", '2024-13-45T99:99:99Z', '1d', '-5h', '\\u0000']

function pathOf(random: SeededRandom, projectId: string): string {
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

function queryOf(random: SeededRandom): string {
  const parts: string[] = []
  for (let i = random.int(0, 7); i > 0; i--) {
    const field = random.pick(FIELDS)
    const index = random.pick(['[]', '[0]', '[1]', '[x]', '', '[][]', `[${hostileNumber(random)}]`])
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
      () => `cursor=${random.pick([randomString(random, random.int(0, 199), 'ABCDEFabcdef0123456789-_'), ...ODD])}`,
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
    const random = seededRandom(seed)
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

/** A JSON value of random shape: wrong types, deep nesting, long strings, hostile numbers. */
function jsonValue(random: SeededRandom, depth = 0): unknown {
  const leaf = () => random.pick<unknown>([null, true, false, '', 'open', 'fixed', 'x'.repeat(random.pick([1, 300, 70_000])), hostileNumber(random), -0, '2024-01-01T00:00:00Z', '<script>', '\u0000', []])
  if (depth > 4 || random.chance(0.4)) return leaf()
  if (random.chance(0.3)) return Array.from({ length: random.int(0, 4) }, () => jsonValue(random, depth + 1))
  const keys = ['operation', 'status', 'severity', 'name', 'url', 'events', 'filters', 'errors', 'assigned_collaborator_id', 'reopen_rules', 'message', 'apiKey', 'appVersion', 'builderName', 'sourceControl', 'metadata', 'all_events', 'report_type', 'skip_confirmation', 'events_per_minute', 'events_per_day', '__proto__', 'constructor', 'x']
  return Object.fromEntries(Array.from({ length: random.int(0, 5) }, () => [random.pick(keys), jsonValue(random, depth + 1)]))
}

/** A body of the shape an endpoint takes, with random values: past the first check, into the services. */
function nearlyValid(random: SeededRandom): unknown {
  const value = () => (random.chance(0.5) ? jsonValue(random, 3) : random.pick<unknown>(['open', 'fixed', 'error', 'ignore', 'snooze', 'fix', 'assign', 1, 60]))
  return random.pick([
    () => ({ operation: random.pick(['fix', 'open', 'ignore', 'snooze', 'discard', 'undiscard', 'assign', 'set_severity', 'delete', value()]), severity: value(), assigned_collaborator_id: value(), reopen_rules: random.chance(0.5) ? { reopen_if: value(), seconds: value(), occurrences: value(), additional_users: value() } : value() }),
    () => ({ operation: value(), errors: random.chance(0.5) ? [errorId, value()] : value() }),
    () => ({ message: value() }),
    () => ({ name: value(), url: random.pick(['https://hooks.example.com/x', 'http://127.0.0.1/x', 'http://[::127.0.0.1]/', 'ftp://x', value()]), events: value() }),
    () => ({ events_per_minute: value(), events_per_day: value() }),
    () => ({ filters: { 'error.status': [{ type: value(), value: value() }] }, report_type: value(), all_events: value(), skip_confirmation: value() }),
    () => ({ name: value(), scopes: value() }),
    () => ({ apiKey: random.pick([seeded.project.api_key, value()]), appVersion: value(), builderName: value(), releaseStage: value(), sourceControl: { provider: value(), repository: value(), revision: value() }, metadata: value() }),
  ])()
}

function bodyText(random: SeededRandom): string {
  return random.pick([
    () => JSON.stringify(nearlyValid(random)),
    () => JSON.stringify(nearlyValid(random)),
    () => JSON.stringify(jsonValue(random)),
    () => mutate(random, JSON.stringify(jsonValue(random))),
    () => `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    () => `{"a":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`,
    () => randomString(random, random.int(0, 199), '{}[]",:0123456789 \n'),
    () => '',
  ])()
}

describe('Data Access API and build API bodies, fuzzed', () => {
  it.each(fuzzSeeds(6))('seed %i: every body answers 2xx or a 4xx naming the problem, never a 5xx', async (seed) => {
    const random = seededRandom(seed)
    const projectId = seeded.project.id
    const organizationId = seeded.organization.id
    for (let round = 0; round < 30; round++) {
      const [method, path] = random.pick<[string, string]>([
        ['PATCH', `/api/projects/${projectId}/errors/${errorId}`],
        ['PATCH', `/api/projects/${projectId}/errors`],
        ['POST', `/api/projects/${projectId}/errors/${errorId}/comments`],
        ['POST', `/api/projects/${projectId}/webhooks`],
        ['PATCH', `/api/projects/${projectId}/rate_limit`],
        ['POST', `/api/projects/${projectId}/event_data_requests`],
        ['POST', `/api/organizations/${organizationId}/event_data_deletions`],
        ['POST', '/api/user/tokens'],
        ['POST', '/build'],
      ])
      const body = bodyText(random)
      const res = await ctx.request(path, { method, token: seeded.user.token, headers: { 'Content-Type': random.pick(['application/json', 'text/plain', 'application/json; charset=latin1']) }, body })
      const described = `seed ${seed} round ${round}: ${method} ${path} with ${body.slice(0, 300)} answered ${res.status}`
      expect(res.status, described).toBeLessThan(500)
      if (res.status >= 400) {
        const answer = (await res.json()) as { errors?: unknown }
        expect(Array.isArray(answer.errors) && answer.errors.length > 0 && answer.errors.every((e) => typeof e === 'string'), described).toBe(true)
      } else await res.arrayBuffer()
    }
  })
})
