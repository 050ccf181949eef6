import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorGroup } from '../../contract/errors.ts'
import type { ErrorEvent } from '../../contract/events.ts'
import { FILTER_FIELDS, filtersToParams, type FilterCondition, type Filters } from '../../contract/filters.ts'
import { queryRows } from '../db/client.ts'
import { migrate } from '../db/migrate.ts'
import { rollupsFromEvents } from '../rollups/rollups.ts'
import { ingestAt, notifierEvent } from '../test-support/ingest.ts'
import { seedProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

// Every event field with every type against a reference evaluation written in plain
// TypeScript: an error matches when one of its events matches every condition; per field,
// eq values are OR-ed, ne values AND-ed; `ne` and `empty=true` match a missing value.

type EventValues = Partial<Record<string, string>>

/** The dataset: per error class, its events' values by filter field. */
const DATA: Record<string, EventValues[]> = {
  Alpha: [
    { 'app.release_stage': 'production', 'app.version': '1.0', 'user.id': 'u1', 'user.name': 'Alice Liddell', 'user.email': 'alice@example.com', 'event.context': '/checkout', 'device.os_name': 'linux', 'device.os_version': '6.1', 'device.browser_name': 'Chrome', 'device.model': 'ThinkPad', 'request.url': 'https://shop.test/checkout' },
    { 'app.release_stage': 'staging', 'app.version': '1.1', 'user.id': 'u2', 'user.name': 'Bob Dylan', 'user.email': 'bob@example.org', 'event.context': '/cart', 'device.os_name': 'windows', 'device.os_version': '11' },
  ],
  Beta: [
    { 'app.release_stage': 'production', 'app.version': '1.1', 'device.os_name': 'macos', 'device.browser_name': 'Safari', 'request.url': 'https://shop.test/cart' },
  ],
  Gamma: [
    { 'app.release_stage': 'development', 'app.version': '2.0', 'user.id': 'u1', 'user.name': 'Alice Liddell', 'user.email': 'alice@example.com', 'device.model': 'Pixel 8', 'device.os_name': 'android', 'device.os_version': '14' },
    { 'app.release_stage': 'production', 'app.version': '2.0', 'user.id': 'u3', 'user.email': 'carol@example.net', 'event.context': '/checkout' },
  ],
  Delta: [{ 'app.release_stage': 'production' }],
  // An anonymous class with no message (errorClass null, message ""), stored as "".
  '': [{ 'app.release_stage': 'staging', 'user.id': 'u2' }],
}

/** The values a test tries per field: present ones, a substring, and one nobody has. */
const PROBES: Record<string, string[]> = {
  'app.release_stage': ['production', 'staging', 'qa'],
  'app.version': ['1.0', '1.1', '2.0', '9.9'],
  'user.id': ['u1', 'u2', 'u9'],
  'user.name': ['alice', 'DYLAN', 'zed'],
  'user.email': ['@example.com', 'carol', 'nobody'],
  'event.class': ['Alpha', 'Delta', 'Omega'],
  'event.message': ['alpha happ', 'HAPPENED', 'nothing'],
  'event.context': ['/checkout', '/cart', '/none'],
  'device.os_name': ['linux', 'android', 'beos'],
  'device.os_version': ['11', '14', '3.1'],
  'device.browser_name': ['Chrome', 'Safari', 'Lynx'],
  'device.model': ['ThinkPad', 'Pixel 8', 'Nokia'],
  'request.url': ['https://shop.test/checkout', 'https://shop.test/cart', 'https://elsewhere'],
  // Free text over class, message and context.
  search: ['alpha', 'HAPPENED', 'checkout', 'zzz'],
}

const EVENT_FIELDS = FILTER_FIELDS.filter((f) => f.scope === 'event')

function toNotifierEvent(errorClass: string, values: EventValues): Record<string, unknown> {
  const v = (field: string) => values[field]
  const anonymous = errorClass === '' ? { exceptions: [{ errorClass: null, message: '', stacktrace: [] }] } : {}
  return notifierEvent(errorClass, {
    ...anonymous,
    app: { releaseStage: v('app.release_stage'), version: v('app.version') },
    ...(v('user.id') || v('user.email') ? { user: { id: v('user.id'), name: v('user.name'), email: v('user.email') } } : {}),
    ...(v('event.context') ? { context: v('event.context') } : {}),
    device: { osName: v('device.os_name'), osVersion: v('device.os_version'), browserName: v('device.browser_name'), model: v('device.model') },
    ...(v('request.url') ? { request: { url: v('request.url') } } : {}),
  })
}

/** The reference: does one event (its values plus class and message) meet a field's conditions? */
function eventMeets(errorClass: string, values: EventValues, fieldId: string, conditions: FilterCondition[]): boolean {
  const definition = EVENT_FIELDS.find((f) => f.display_id === fieldId)!
  // A blank class or message is a missing one.
  const all: EventValues = { ...values, 'event.class': errorClass || undefined, 'event.message': errorClass ? `${errorClass} happened` : undefined }
  const value = all[fieldId] ?? null
  const holds = (text: string | undefined, wanted: string) => text !== undefined && text.toLowerCase().includes(wanted.toLowerCase())
  const matches = (wanted: string) =>
    fieldId === 'search'
      ? ['event.class', 'event.message', 'event.context'].some((searched) => holds(all[searched], wanted))
      : value !== null &&
        (definition.match === 'substring' ? value.toLowerCase().includes(wanted.toLowerCase()) : value === wanted)
  const eq = conditions.filter((c) => c.type === 'eq')
  const ne = conditions.filter((c) => c.type === 'ne')
  const empty = conditions.filter((c) => c.type === 'empty')
  return (
    (eq.length === 0 || eq.some((c) => matches(c.value))) &&
    ne.every((c) => !matches(c.value)) &&
    empty.every((c) => (c.value === 'true' ? value === null : value !== null))
  )
}

function expectedClasses(filters: Filters): string[] {
  return Object.entries(DATA)
    .filter(([errorClass, events]) =>
      events.some((values) =>
        Object.entries(filters).every(([field, conditions]) => eventMeets(errorClass, values, field, conditions)),
      ),
    )
    .map(([errorClass]) => errorClass)
    .sort()
}

function expectedEventCount(filters: Filters, ofClass?: string): number {
  return Object.entries(DATA).filter(([errorClass]) => ofClass === undefined || errorClass === ofClass).reduce(
    (sum, [errorClass, events]) =>
      sum +
      events.filter((values) =>
        Object.entries(filters).every(([field, conditions]) => eventMeets(errorClass, values, field, conditions)),
      ).length,
    0,
  )
}

let ctx: TestContext
let owner: TestUser
let projectId: string

beforeAll(async () => {
  ctx = await createTestContext()
  owner = await ctx.createUser('Owner')
  projectId = (await seedProject(ctx, { user: owner, organization: 'Fields Org', project: 'Fields' })).project.id
  const now = Date.now()
  await ingestAt(
    ctx,
    projectId,
    Object.entries(DATA).flatMap(([errorClass, events]) =>
      events.map((values, i) => ({ at: new Date(now - i * 60_000), event: toNotifierEvent(errorClass, values) })),
    ),
  )
  const stored = await queryRows<{ n: number }>(
    ctx.deps.database.db,
    sql`SELECT count(*)::int AS n FROM events WHERE project_id = ${projectId}`,
  )
  expect(stored[0]!.n).toBe(expectedEventCount({}))
})
afterAll(() => ctx.close())

async function apiClasses(filters: Filters): Promise<string[]> {
  const res = await ctx.request(`/api/projects/${projectId}/errors?${filtersToParams(filters)}`, { token: owner.token })
  expect(res.status, await res.clone().text()).toBe(200)
  const listed = (await res.json()) as ErrorGroup[]
  // Each listed error's matching events, however they are counted (rollup rows or events).
  for (const error of listed) {
    const expected = expectedEventCount(filters, error.error_class)
    expect(error.matching_events, `${JSON.stringify(filters)}: matching events of ${error.error_class}`).toBe(expected)
  }
  return listed.map((e) => e.error_class).sort()
}

async function apiEventCount(filters: Filters): Promise<number> {
  const res = await ctx.request(`/api/projects/${projectId}/events?per_page=100&${filtersToParams(filters)}`, {
    token: owner.token,
  })
  expect(res.status, await res.clone().text()).toBe(200)
  const body = (await res.json()) as ErrorEvent[]
  expect(Number(res.headers.get('X-Total-Count'))).toBe(body.length)
  return body.length
}

describe('every event field and type, against the reference', () => {
  for (const field of EVENT_FIELDS) {
    it(`${field.display_id}: ${field.types.join(', ')}`, async () => {
      const probes = PROBES[field.display_id]!
      const cases: Filters[] = []
      for (const value of probes) {
        if (field.types.includes('eq')) cases.push({ [field.display_id]: [{ type: 'eq', value }] })
        if (field.types.includes('ne')) cases.push({ [field.display_id]: [{ type: 'ne', value }] })
      }
      // OR of eq values, AND of ne values, and eq with ne together.
      cases.push({ [field.display_id]: [{ type: 'eq', value: probes[0]! }, { type: 'eq', value: probes[1]! }] })
      if (field.types.includes('ne')) {
        cases.push({ [field.display_id]: [{ type: 'ne', value: probes[0]! }, { type: 'ne', value: probes[1]! }] })
        cases.push({ [field.display_id]: [{ type: 'eq', value: probes[0]! }, { type: 'ne', value: probes[1]! }] })
      }
      if (field.types.includes('empty')) {
        cases.push({ [field.display_id]: [{ type: 'empty', value: 'true' }] })
        cases.push({ [field.display_id]: [{ type: 'empty', value: 'false' }] })
      }
      for (const filters of cases) {
        const label = JSON.stringify(filters)
        expect(await apiClasses(filters), label).toEqual(expectedClasses(filters))
        expect(await apiEventCount(filters), label).toBe(expectedEventCount(filters))
      }
    })
  }

  it('ANDs pairs of fields within one event', async () => {
    const pairs: Filters[] = [
      { 'app.release_stage': [{ type: 'eq', value: 'production' }], 'user.id': [{ type: 'eq', value: 'u1' }] },
      { 'app.release_stage': [{ type: 'eq', value: 'staging' }], 'device.os_name': [{ type: 'eq', value: 'linux' }] },
      { 'user.email': [{ type: 'eq', value: 'example' }], 'event.context': [{ type: 'eq', value: '/checkout' }] },
      { 'app.version': [{ type: 'ne', value: '2.0' }], 'device.browser_name': [{ type: 'empty', value: 'true' }] },
      { 'event.class': [{ type: 'ne', value: 'Alpha' }], 'user.id': [{ type: 'empty', value: 'false' }] },
    ]
    for (const filters of pairs) {
      expect(await apiClasses(filters), JSON.stringify(filters)).toEqual(expectedClasses(filters))
      expect(await apiEventCount(filters), JSON.stringify(filters)).toBe(expectedEventCount(filters))
    }
  })
})

describe('filters answered from the rollup rows', () => {
  let rowsProjectId: string
  const long = (prefix: string) => `${prefix} ${'x'.repeat(600)} needle at the end`
  const hour = 3_600_000

  beforeAll(async () => {
    rowsProjectId = (await seedProject(ctx, { user: owner, organization: 'Rows Org', project: 'Rows' })).project.id
    const now = Date.now()
    const event = (errorClass: string, message: string, extra: Record<string, unknown>) => {
      const built = notifierEvent(errorClass, extra)
      ;(built.exceptions as Array<{ message: string }>)[0]!.message = message
      return built
    }
    await ingestAt(ctx, rowsProjectId, [
      // A message and an email longer than a row holds, the needle past the cut.
      { at: new Date(now - 3 * hour), event: event('Long', long('first'), { user: { id: 'l1', email: `${'y'.repeat(600)}needle@example.com` } }) },
      { at: new Date(now - 2 * hour), event: event('Long', 'short one', { device: { browserName: 'Chrome' } }) },
      // An error with a browser-less event long ago, and a browser event lately.
      { at: new Date(now - 48 * hour), event: event('Old', 'old', {}) },
      { at: new Date(now - 1 * hour), event: event('Old', 'old', { device: { browserName: 'Firefox' } }) },
      { at: new Date(now - 1 * hour), event: event('Fresh', 'fresh', {}) },
    ])
  })

  async function listed(filters: Filters): Promise<Record<string, number>> {
    const res = await ctx.request(`/api/projects/${rowsProjectId}/errors?${filtersToParams(filters)}`, { token: owner.token })
    expect(res.status, await res.clone().text()).toBe(200)
    return Object.fromEntries(((await res.json()) as ErrorGroup[]).map((e) => [e.error_class, e.matching_events!]))
  }
  const eq = (value: string): FilterCondition => ({ type: 'eq', value })
  const ne = (value: string): FilterCondition => ({ type: 'ne', value })

  it('reads past the characters a row keeps: a cut text sends its error to the events', async () => {
    expect(await listed({ 'event.message': [eq('needle')] })).toEqual({ Long: 1 })
    expect(await listed({ search: [eq('NEEDLE AT')] })).toEqual({ Long: 1 })
    expect(await listed({ 'user.email': [eq('needle@')] })).toEqual({ Long: 1 })
    // "does not contain": only Long's short message qualifies there.
    expect(await listed({ 'event.message': [ne('needle')] })).toEqual({ Long: 1, Old: 2, Fresh: 1 })
    expect(await listed({ 'event.message': [{ type: 'exact', value: long('first') }] })).toEqual({ Long: 1 })
    expect(await listed({ 'event.message': [{ type: 'exact', value: long('first').slice(0, 500) }] })).toEqual({})
    // With a second field, the rows narrow and the events decide.
    expect(await listed({ 'event.message': [eq('needle')], 'device.browser_name': [{ type: 'empty', value: 'true' }] })).toEqual({ Long: 1 })
    expect(await listed({ 'event.message': [eq('needle')], 'device.browser_name': [eq('Chrome')] })).toEqual({})
  })

  it('answers ne and empty over the events without a value, within a time bound too', async () => {
    expect(await listed({ 'device.browser_name': [{ type: 'empty', value: 'true' }] })).toEqual({ Long: 1, Old: 1, Fresh: 1 })
    expect(await listed({ 'device.browser_name': [ne('Firefox')] })).toEqual({ Long: 2, Old: 1, Fresh: 1 })
    expect(await listed({ 'device.browser_name': [{ type: 'empty', value: 'false' }] })).toEqual({ Long: 1, Old: 1 })
    // In the last day, Old has only its Firefox event.
    const lastDay = { 'event.since': [eq('24h')] }
    expect(await listed({ ...lastDay, 'device.browser_name': [{ type: 'empty', value: 'true' }] })).toEqual({ Long: 1, Fresh: 1 })
    expect(await listed({ ...lastDay, 'device.browser_name': [ne('Chrome')] })).toEqual({ Long: 1, Old: 1, Fresh: 1 })
    expect(await listed({ 'event.before': [eq('24h')], 'device.browser_name': [{ type: 'empty', value: 'true' }] })).toEqual({ Old: 1 })
  })

  it('stays exact after the events behind a row are deleted', async () => {
    const res = await ctx.request(`/api/projects/${rowsProjectId}/events?per_page=100&${filtersToParams({ 'event.class': [eq('Fresh')] })}`, {
      token: owner.token,
    })
    const [fresh] = (await res.json()) as ErrorEvent[]
    expect((await ctx.request(`/api/events/${fresh!.id}`, { method: 'DELETE', token: owner.token })).status).toBe(204)
    expect(await listed({ 'device.browser_name': [{ type: 'empty', value: 'true' }] })).toEqual({ Long: 1, Old: 1 })
    expect(await listed({ search: [eq('fresh')] })).toEqual({})
    expect(await listed({ 'event.since': [eq('24h')], 'device.browser_name': [{ type: 'empty', value: 'true' }] })).toEqual({ Long: 1 })
  })
})

describe('migration 0004', () => {
  it('adds the text rows and the rows of events without a value, for the events folded before it', async () => {
    const database = ctx.deps.database
    const rows = () =>
      queryRows<{ error_id: string; field: string; value: string; events: number }>(
        database.db,
        sql`SELECT error_id, field, value, events::int AS events FROM pivot_counts WHERE project_id = ${projectId} ORDER BY 1, 2, 3`,
      )
    const expected = await rollupsFromEvents(database.db, projectId)
    expect(await rows()).toEqual(expected)
    // The database as 0003 left it: no such rows, no such indexes, 0004 not applied.
    await database.execScript(`
      DELETE FROM pivot_counts WHERE field IN ('event.class', 'event.message', 'user.email', 'user.name') OR value = '';
      DROP INDEX pivot_counts_text_idx; DROP INDEX pivot_counts_cut_idx; DROP STATISTICS pivot_counts_field_value;
      DELETE FROM schema_migrations WHERE name = '0004-filter-rows.sql';`)
    expect((await rows()).length).toBeLessThan(expected.length)
    expect(await migrate(database)).toEqual(['0004-filter-rows.sql'])
    expect(await rows()).toEqual(expected)
  })
})
