import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventSchema, type ErrorEvent } from '../../contract/events.ts'
import { queryRows } from '../db/client.ts'
import { errors, events } from '../db/schema.ts'
import { encodeCursor } from '../http/cursor.ts'
import { seedProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'
import { INGEST_LIMITS } from './process/normalize.ts'

/**
 * What a hostile or sloppy client sends: odd payload shapes, odd types, huge and deeply
 * nested values, odd query strings and ids, other organizations' data. Never a 500;
 * bad input is a 4xx naming the field, and a valid event is never refused for one odd field.
 */

let ctx: TestContext
let alice: TestUser
let mallory: TestUser
let projectId: string
let organizationId: string
let apiKey: string
let malloryProjectId: string
let malloryApiKey: string

beforeAll(async () => {
  // Default limits: the 2 MiB notify body limit is part of what is probed.
  ctx = await createTestContext()
  alice = await ctx.createUser('Alice')
  mallory = await ctx.createUser('Mallory')
  const { project, organization } = await seedProject(ctx, { user: alice, organization: 'Adversarial Org', project: 'Adversarial Org' })
  organizationId = organization.id
  projectId = project.id
  apiKey = project.api_key
  const { project: other } = await seedProject(ctx, { user: mallory, organization: 'Mallory Org', project: 'Mallory Org' })
  malloryProjectId = other.id
  malloryApiKey = other.api_key
})
afterAll(() => ctx.close())

function notify(body: unknown, headers: Record<string, string> = {}) {
  return ctx.request('/notify', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': apiKey, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

function baseEvent(errorClass: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    exceptions: [{ errorClass, errorMessage: 'boom', stacktrace: [{ file: 'src/a.js', method: 'run', lineNumber: 1, inProject: true }] }],
    ...extra,
  }
}

async function expectOk(res: Response) {
  const text = await res.text()
  expect(res.status, text).toBe(200)
}

/** The stored events of an error class, through the Events API (as alice). */
async function storedEvents(errorClass: string): Promise<ErrorEvent[]> {
  const rows = await ctx.deps.database.db
    .select({ id: events.id })
    .from(events)
    .where(and(eq(events.projectId, projectId), eq(events.errorClass, errorClass)))
  const out: ErrorEvent[] = []
  for (const row of rows) {
    const res = await ctx.request(`/api/events/${row.id}`, { token: alice.token })
    expect(res.status).toBe(200)
    const text = await res.text()
    // Whatever was sent, what is served parses with the contract the dashboard uses.
    out.push(eventSchema.parse(JSON.parse(text)))
  }
  return out
}

async function storedEvent(errorClass: string): Promise<ErrorEvent> {
  const list = await storedEvents(errorClass)
  expect(list).toHaveLength(1)
  return list[0]!
}

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

describe('POST /notify: characters PostgreSQL cannot store', () => {
  it('stores an event with NUL characters in every kind of string, with the NULs removed', async () => {
    const nul = '\u0000'
    const res = await notify({
      events: [
        {
          exceptions: [
            {
              errorClass: `Nul${nul}Class`,
              errorMessage: `mess${nul}age`,
              type: `node${nul}js`,
              stacktrace: [{ file: `src/${nul}a.js`, method: `m${nul}`, lineNumber: 1, code: { '1': `co${nul}de` } }],
            },
          ],
          context: `ctx${nul}`,
          groupingHash: `hash${nul}`,
          metaData: { [`ta${nul}b`]: { [`k${nul}ey`]: `va${nul}lue`, list: [`x${nul}`] } },
          breadcrumbs: [{ name: `crumb${nul}`, type: 'log', timestamp: '2026-01-01T00:00:00Z', metaData: { [`a${nul}`]: `b${nul}` } }],
          user: { id: `u${nul}1`, email: `e${nul}@x.io`, name: `N${nul}` },
          app: { version: `1.0${nul}`, releaseStage: `prod${nul}` },
          device: { osName: `os${nul}`, model: `m${nul}`, userAgent: `Mozilla${nul}` },
          request: { url: `https://x.io/${nul}`, headers: { [`X-${nul}`]: `v${nul}` } },
          featureFlags: [{ featureFlag: `flag${nul}`, variant: `v${nul}` }],
          threads: [{ id: `t${nul}`, name: `main${nul}`, stacktrace: [] }],
          session: { id: `s${nul}` },
        },
      ],
      notifier: { name: `n${nul}`, version: '1' },
    })
    await expectOk(res)
    const stored = await storedEvent('NulClass')
    const text = JSON.stringify(stored)
    expect(text).not.toContain('\\u0000')
    expect(stored.exceptions[0]!.message).toBe('message')
    expect(stored.meta_data).toEqual({ tab: { key: 'value', list: ['x'] } })
    expect(stored.breadcrumbs[0]!.meta_data).toEqual({ a: 'b' })
    expect(stored.user).toEqual({ id: 'u1', email: 'e@x.io', name: 'N' })
    expect(stored.release_stage).toBe('prod')
    expect(stored.request).toMatchObject({ url: 'https://x.io/', headers: { 'X-': 'v' } })
    expect(stored.feature_flags).toEqual([{ name: 'flag', variant: 'v' }])
  })

  it('stores lone UTF-16 surrogates as U+FFFD, also where a column cut would split a pair', async () => {
    const res = await notify({
      events: [
        baseEvent('LoneSurrogate', {
          context: 'a\ud800b',
          metaData: { 'k\udc00': 'v\ud800' },
          user: { id: '\udbff' },
          breadcrumbs: [{ name: 'x\ud800', type: 'log' }],
        }),
        // 4095 plain characters then a pair: a cut at 4096 characters would leave half a pair.
        baseEvent('SplitPair', { context: `${'a'.repeat(4095)}\u{1F600}tail` }),
      ],
    })
    await expectOk(res)
    const stored = await storedEvent('LoneSurrogate')
    expect(LONE.test(JSON.stringify(stored))).toBe(false)
    expect(JSON.stringify(stored)).not.toMatch(/\\ud[89a-f]/i)
    expect(stored.context).toBe('a\uFFFDb')
    expect(stored.meta_data).toEqual({ 'k\uFFFD': 'v\uFFFD' })
    const [row] = await ctx.deps.database.db.select({ context: events.context }).from(events).where(eq(events.errorClass, 'SplitPair'))
    expect(row!.context!.length).toBeLessThanOrEqual(4096)
    expect(LONE.test(row!.context!)).toBe(false)
  })
})

describe('POST /notify: large and deep payloads', () => {
  it('stores a 1 MB message, keeping a bounded prefix', async () => {
    const message = 'm'.repeat(1024 * 1024)
    await expectOk(await notify({ events: [{ exceptions: [{ errorClass: 'HugeMessage', errorMessage: message }] }] }))
    const stored = await storedEvent('HugeMessage')
    expect(stored.exceptions[0]!.message.length).toBeLessThanOrEqual(INGEST_LIMITS.stringChars + 20)
    expect(stored.exceptions[0]!.message.startsWith('mmmm')).toBe(true)
    const [row] = await ctx.deps.database.db.select({ message: errors.message }).from(errors).where(eq(errors.errorClass, 'HugeMessage'))
    expect(row!.message.length).toBe(4096)
  })

  it('stores deeply nested metaData (500 and 200,000 levels) without overflowing the stack', async () => {
    let deep: unknown = 'bottom'
    for (let i = 0; i < 500; i++) deep = { d: deep }
    await expectOk(await notify({ events: [baseEvent('Deep500', { metaData: { tab: deep }, app: { nested: deep } })] }))
    const stored = await storedEvent('Deep500')
    let depth = 0
    for (let node: unknown = stored.meta_data; node && typeof node === 'object'; node = Object.values(node)[0]) depth += 1
    expect(depth).toBeLessThanOrEqual(INGEST_LIMITS.depth + 1)

    // Built as text: JSON.stringify itself would overflow on this.
    const levels = 200_000
    const body = `{"events":[{"exceptions":[{"errorClass":"Deep200k"}],"metaData":{"tab":${'['.repeat(levels)}1${']'.repeat(levels)}},"breadcrumbs":[{"name":"b","metaData":{"x":${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}}}]}]}`
    await expectOk(await notify(body))
    expect(JSON.stringify((await storedEvent('Deep200k')).meta_data)).toContain('[truncated]')
  })

  it('stores 10,000 frames and 10,000 breadcrumbs, keeping the documented number', async () => {
    const frames = Array.from({ length: 10_000 }, (_, i) => ({ file: `f${i}.js`, method: `m${i}`, lineNumber: i }))
    const breadcrumbs = Array.from({ length: 10_000 }, (_, i) => ({ name: `crumb ${i}`, type: 'log', timestamp: new Date(i * 1000).toISOString() }))
    await expectOk(await notify({ events: [{ exceptions: [{ errorClass: 'ManyFrames', stacktrace: frames }], breadcrumbs }] }))
    const stored = await storedEvent('ManyFrames')
    expect(stored.exceptions[0]!.stacktrace).toHaveLength(INGEST_LIMITS.frames)
    expect(stored.exceptions[0]!.stacktrace[0]!.file).toBe('f0.js')
    expect(stored.breadcrumbs).toHaveLength(INGEST_LIMITS.breadcrumbs)
    // The newest breadcrumbs are the ones that explain the error.
    expect(stored.breadcrumbs.at(-1)!.name).toBe('crumb 9999')
  })

  it('stores a payload of 100 events, each in its own group', async () => {
    const list = Array.from({ length: 100 }, (_, i) => baseEvent(`Hundred${i}`))
    await expectOk(await notify({ events: list }))
    const rows = await ctx.deps.database.db.select({ id: events.id }).from(events).where(eq(events.projectId, projectId))
    expect(rows.length).toBeGreaterThanOrEqual(100)
    expect(await storedEvents('Hundred99')).toHaveLength(1)
  })

  it('reads a huge, pathological user agent in linear time', async () => {
    const userAgent = 'Version/1 '.repeat(60_000) + 'Trident/ '.repeat(60_000)
    const started = performance.now()
    await expectOk(await notify({ events: [baseEvent('HugeUserAgent', { device: { userAgent } })], notifier: { name: 'Bugsnag JavaScript' } }, { 'User-Agent': userAgent }))
    expect(performance.now() - started).toBeLessThan(5000)
  })
})

describe('POST /notify: the types notifiers vary', () => {
  it('reads odd line and column numbers as integers or null', async () => {
    const frames = [
      { lineNumber: '12', columnNumber: ' 7 ' },
      { lineNumber: 12.9, columnNumber: -3 },
      { lineNumber: null, columnNumber: 2 ** 40 },
      { lineNumber: '1e3', columnNumber: '99999999999999999999' },
      { lineNumber: true, columnNumber: { x: 1 } },
      { lineNumber: Number.MAX_SAFE_INTEGER, columnNumber: '0' },
    ]
    await expectOk(await notify({ events: [{ exceptions: [{ errorClass: 'OddLines', stacktrace: frames }] }] }))
    const stored = await storedEvent('OddLines')
    expect(stored.exceptions[0]!.stacktrace.map((f) => [f.line, f.column])).toEqual([
      [12, 7],
      [12, null],
      [null, null],
      [null, null],
      [null, null],
      [null, 0],
    ])
  })

  it('maps unknown severities to error and reads unhandled, inProject and errorReportingThread sent as strings', async () => {
    await expectOk(
      await notify({
        events: [
          baseEvent('SeverityFatal', { severity: 'fatal', unhandled: 'true' }),
          baseEvent('SeverityCritical', { severity: 'CRITICAL', unhandled: 'false' }),
          baseEvent('SeverityUpper', { severity: 'Warning', unhandled: 1 }),
          baseEvent('SeverityNumber', { severity: 3, unhandled: 'yes please' }),
          {
            exceptions: [{ errorClass: 'StringBooleans', stacktrace: [{ file: 'a.js', inProject: 'true' }, { file: 'b.js', inProject: 'false' }] }],
            threads: [{ id: 1, name: 'main', errorReportingThread: 'true' }],
          },
        ],
      }),
    )
    expect(await storedEvent('SeverityFatal')).toMatchObject({ severity: 'error', unhandled: true })
    expect(await storedEvent('SeverityCritical')).toMatchObject({ severity: 'error', unhandled: false })
    expect(await storedEvent('SeverityUpper')).toMatchObject({ severity: 'warning', unhandled: true })
    expect(await storedEvent('SeverityNumber')).toMatchObject({ severity: 'warning', unhandled: false })
    const flags = await storedEvent('StringBooleans')
    expect(flags.exceptions[0]!.stacktrace.map((f) => f.in_project)).toEqual([true, false])
    expect(flags.threads[0]).toMatchObject({ id: '1', error_reporting_thread: true })
  })

  it('reads numbers where strings are meant and ignores objects there, storing the event', async () => {
    await expectOk(
      await notify({
        events: [
          baseEvent('OddScalars', {
            app: { version: 2.5, releaseStage: { nope: 1 } },
            user: { id: 12345, email: ['a@b.c'], name: false },
            context: { route: '/x' },
            groupingHash: 42,
            device: { osName: 7, userAgent: { ua: 1 } },
            request: { url: 99 },
            severityReason: 'handledException',
          }),
          { exceptions: [{ errorClass: 404, errorMessage: { text: 'm' } }] },
        ],
      }),
    )
    const stored = await storedEvent('OddScalars')
    expect(stored).toMatchObject({
      app_version: '2.5',
      release_stage: 'production',
      user: { id: '12345', email: null, name: 'false' },
      context: null,
      grouping_hash: '42',
      severity_reason: null,
    })
    // The sections themselves are kept as sent.
    expect(stored.app).toEqual({ version: 2.5, releaseStage: { nope: 1 } })
    const numericClass = await storedEvent('404')
    expect(numericClass.exceptions[0]!.message).toBe('')
  })

  it('keeps metaData and sections of the wrong type in the invalid_fields tab instead of refusing the event', async () => {
    await expectOk(
      await notify({
        events: [
          baseEvent('MetaArray', { metaData: [1, 2, 3], app: 'my-app', device: [true], user: 'bob', request: 5, session: 'abc' }),
          baseEvent('MetaString', { metaData: 'just text', breadcrumbs: 'none', featureFlags: { a: 1 }, threads: 'x' }),
        ],
      }),
    )
    const array = await storedEvent('MetaArray')
    expect(array.meta_data).toEqual({ invalid_fields: { metaData: [1, 2, 3], app: 'my-app', device: [true], user: 'bob', request: 5, session: 'abc' } })
    expect(array.user).toEqual({ id: null, email: null, name: null })
    expect(array.app).toEqual({})
    const text = await storedEvent('MetaString')
    expect(text.meta_data).toEqual({ invalid_fields: { metaData: 'just text', breadcrumbs: 'none', featureFlags: { a: 1 }, threads: 'x' } })
    expect(text.breadcrumbs).toEqual([])
  })

  it('reads breadcrumbs with missing or odd timestamps, and skips feature flags without a name', async () => {
    await expectOk(
      await notify({
        events: [
          baseEvent('OddCrumbs', {
            breadcrumbs: [
              { name: 'no time' },
              { name: 'epoch ms', timestamp: 1767225600000 },
              { name: 'not a date', timestamp: 'yesterday-ish' },
              { name: 'offset', timestamp: '2026-01-01T01:00:00+01:00' },
              'a bare string',
              null,
              { name: 5, type: 7, metaData: 'text' },
            ],
            featureFlags: [{ featureFlag: 'ok', variant: 1 }, { variant: 'orphan' }, null, { featureFlag: '' }, { featureFlag: 9 }],
          }),
        ],
      }),
    )
    const stored = await storedEvent('OddCrumbs')
    expect(stored.breadcrumbs.map((b) => [b.name, b.timestamp])).toEqual([
      ['no time', null],
      ['epoch ms', '2026-01-01T00:00:00.000Z'],
      ['not a date', null],
      ['offset', '2026-01-01T00:00:00.000Z'],
      ['a bare string', null],
      ['5', null],
    ])
    expect(stored.breadcrumbs[2]!.meta_data).toEqual({ invalid_fields: { timestamp: 'yesterday-ish' } })
    expect(stored.breadcrumbs[5]).toMatchObject({ type: '7', meta_data: { invalid_fields: { metaData: 'text' } } })
    expect(stored.feature_flags).toEqual([
      { name: 'ok', variant: '1' },
      { name: '9', variant: null },
    ])
  })

  it('stores exceptions with no stacktrace, a null one, one sent as text, and frames that are not objects', async () => {
    await expectOk(
      await notify({
        events: [
          {
            exceptions: [
              { errorClass: 'NoFrames' },
              { errorClass: 'NullFrames', stacktrace: null },
              { errorClass: 'TextFrames', stacktrace: 'at x (a.js:1:1)' },
              { errorClass: 'MixedFrames', stacktrace: [null, 'at y', { file: 'ok.js' }] },
            ],
          },
        ],
      }),
    )
    const stored = await storedEvent('NoFrames')
    expect(stored.exceptions.map((e) => e.stacktrace.length)).toEqual([0, 0, 1, 2])
    // A stack sent as text keeps each line, as the frame's method.
    expect(stored.exceptions[2]!.stacktrace[0]).toMatchObject({ method: 'at x (a.js:1:1)', line: null })
    expect(stored.exceptions[3]!.stacktrace[0]).toMatchObject({ method: 'at y', file: null })
  })

  it('keeps __proto__ and constructor keys as plain data', async () => {
    const body = `{"events":[{"exceptions":[{"errorClass":"ProtoKeys"}],"metaData":{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}},"app":{"__proto__":{"isAdmin":true}}}]}`
    await expectOk(await notify(body))
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    const [row] = await ctx.deps.database.db.select({ id: events.id }).from(events).where(eq(events.errorClass, 'ProtoKeys'))
    // Read as the raw JSON text: a zod record (the contract) would itself drop "__proto__".
    const served = JSON.parse(await (await ctx.request(`/api/events/${row!.id}`, { token: alice.token })).text()) as ErrorEvent
    expect(Object.keys(served.meta_data).sort()).toEqual(['__proto__', 'constructor'])
    expect(Object.keys(served.app)).toEqual(['__proto__'])
  })
})

describe('POST /notify: bodies that are not a payload', () => {
  it('answers 400 naming the body for JSON that is not an object, an empty body and whitespace', async () => {
    for (const body of ['[]', '"x"', 'null', '123', 'true', '[{"exceptions":[]}]']) {
      const res = await notify(body)
      expect(res.status, body).toBe(400)
      expect((await res.json()).errors, body).toEqual([expect.stringMatching(/^body: must be a JSON object/)])
    }
    for (const body of ['', '   \n\t ']) {
      const res = await notify(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect((await res.json()).errors).toEqual(['body: is empty (send the Bugsnag JSON payload)'])
    }
  })

  it('answers 400 naming the field for an empty events list, events that are not objects, and exceptions missing', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ events: [] }, /^events: must hold at least one event/],
      [{ events: {} }, /^events: /],
      [{ events: [baseEvent('Fine'), 'text'] }, /^events\.1: /],
      [{ events: [{ exceptions: 'boom' }] }, /^events\.0\.exceptions: /],
      [{ events: [{ exceptions: [null] }] }, /^events\.0\.exceptions\.0: /],
      [{ events: [{ exceptions: [{ errorMessage: 'no class field' }] }] }, /^events\.0\.exceptions\.0\.errorClass: /],
      [{ events: [{ exceptions: [{ errorClass: { name: 'E' } }] }] }, /^events\.0\.exceptions\.0\.errorClass: /],
    ]
    for (const [body, pattern] of cases) {
      const res = await notify(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect((await res.json()).errors[0], JSON.stringify(body)).toMatch(pattern)
    }
    // All or nothing: the valid event of the refused payload was not stored.
    expect(await ctx.deps.database.db.select().from(events).where(eq(events.errorClass, 'Fine'))).toHaveLength(0)
  })

  it('accepts Content-Type text/plain (older browser notifiers) and no Content-Type at all', async () => {
    await expectOk(await notify({ events: [baseEvent('PlainText')] }, { 'Content-Type': 'text/plain;charset=UTF-8' }))
    const res = await ctx.request('/notify', { method: 'POST', headers: { 'Bugsnag-Api-Key': apiKey }, body: new Blob([JSON.stringify({ events: [baseEvent('NoType')] })]) })
    await expectOk(res)
    expect(await storedEvents('PlainText')).toHaveLength(1)
  })

  it('accepts a body with a UTF-8 byte order mark', async () => {
    await expectOk(await notify(`\uFEFF${JSON.stringify({ events: [baseEvent('WithBom')] })}`))
    expect(await storedEvents('WithBom')).toHaveLength(1)
  })
})

describe('POST /notify and /sessions: API keys that cannot be a project’s', () => {
  it('answers 401 naming the format for keys that are not 32 lowercase hex characters, in the header, query or body', async () => {
    const keys = ['ab\u0000cd', 'f'.repeat(100_000), 'F'.repeat(32), 'g'.repeat(32), "' OR 1=1 --"]
    for (const key of keys) {
      const body = JSON.stringify({ apiKey: key, events: [baseEvent('BadKey')] })
      for (const path of ['/notify', '/sessions']) {
        const inBody = await ctx.request(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })
        const inQuery = await ctx.request(`${path}?apiKey=${encodeURIComponent(key)}`, { method: 'POST', body })
        for (const res of [inBody, inQuery]) {
          expect(res.status, `${path} ${key.slice(0, 20)}`).toBe(401)
          expect((await res.json()).errors).toEqual(['invalid API key: an API key is 32 lowercase hexadecimal characters'])
        }
      }
    }
    expect(await storedEvents('BadKey')).toHaveLength(0)
  })
})

describe('POST /sessions: odd payloads', () => {
  const sessions = (body: unknown) =>
    ctx.request('/sessions', { method: 'POST', headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': apiKey }, body: typeof body === 'string' ? body : JSON.stringify(body) })

  it('stores counts whose release stage and version hold NUL or lone surrogates, or are not strings', async () => {
    const startedAt = '2026-01-01T00:00:00.000Z'
    for (const app of [{ releaseStage: 'st\u0000age', version: 'v\ud800' }, { releaseStage: 5, version: { x: 1 } }, 'text']) {
      const res = await sessions({ app, sessionCounts: [{ startedAt, sessionsStarted: 2 }] })
      expect(res.status, JSON.stringify(app)).toBe(202)
    }
  })

  it('stores a payload spanning more minutes than PostgreSQL takes bind parameters', async () => {
    const start = Date.UTC(2025, 0, 1)
    // 14,000 minutes as 5 parameters each would be 70,000; epoch-ms times keep the body under its limit.
    const list = Array.from({ length: 14_000 }, (_, i) => ({ startedAt: String(start + i * 60_000) }))
    const res = await sessions({ app: { releaseStage: 'many-minutes' }, sessions: list })
    expect(res.status, await res.clone().text()).toBe(202)
    const rows = await queryRows<{ minutes: number; total: number }>(
      ctx.deps.database.db,
      sql`SELECT count(*)::int AS minutes, sum(sessions)::int AS total FROM session_counts WHERE release_stage = 'many-minutes'`,
    )
    expect(rows[0]).toEqual({ minutes: 14_000, total: 14_000 })
  })

  it('answers 401 once the project is deleted, also while its key is still cached', async () => {
    const created = await (
      await ctx.request(`/api/organizations/${organizationId}/projects`, { method: 'POST', token: alice.token, json: { name: 'Short-lived' } })
    ).json()
    const send = () =>
      ctx.request('/sessions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': created.api_key },
        body: JSON.stringify({ sessionCounts: [{ startedAt: '2026-01-01T00:00:00Z', sessionsStarted: 1 }] }),
      })
    expect((await send()).status).toBe(202)
    expect((await ctx.request(`/api/projects/${created.id}`, { method: 'DELETE', token: alice.token })).status).toBe(204)
    const res = await send()
    expect(res.status).toBe(401)
    expect((await res.json()).errors).toEqual(['invalid API key: no project has this API key'])
  })

  it('answers 400 naming the field for times PostgreSQL cannot store, huge counts and bodies that are not objects', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ sessionCounts: [{ startedAt: '0000-01-01T00:00:00Z', sessionsStarted: 1 }] }, /^sessionCounts\.0\.startedAt: /],
      [{ sessions: [{ startedAt: '+275760-09-13T00:00:00.000Z' }] }, /^sessions\.0\.startedAt: /],
      [{ sessionCounts: [{ startedAt: '2026-01-01T00:00:00Z', sessionsStarted: 2 ** 53 }] }, /^sessionCounts\.0\.sessionsStarted: /],
      ['[]', /^body: must be a JSON object/],
      ['', /^body: is empty/],
    ]
    for (const [body, pattern] of cases) {
      const res = await sessions(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect((await res.json()).errors[0], JSON.stringify(body)).toMatch(pattern)
    }
  })
})

describe('Events API and errors API: odd queries and ids', () => {
  let eventId: string
  let errorId: string
  let malloryEventId: string
  let malloryErrorId: string

  beforeAll(async () => {
    await expectOk(await notify({ events: [baseEvent('ApiProbe'), baseEvent('ApiProbe')] }))
    await expectOk(await notify({ events: [baseEvent('MalloryError')] }, { 'Bugsnag-Api-Key': malloryApiKey }))
    const [row] = await ctx.deps.database.db.select().from(events).where(eq(events.errorClass, 'ApiProbe'))
    eventId = row!.id
    errorId = row!.errorId
    const [other] = await ctx.deps.database.db.select().from(events).where(eq(events.errorClass, 'MalloryError'))
    malloryEventId = other!.id
    malloryErrorId = other!.errorId
  })

  const get = (path: string, token = alice.token) => ctx.request(`/api${path}`, { token })

  async function expect400(path: string, field: string) {
    const res = await get(path)
    const body = await res.text()
    expect(res.status, `${path} → ${body}`).toBe(400)
    expect((JSON.parse(body) as { errors: string[] }).errors[0], path).toMatch(new RegExp(`^${field}: `))
  }

  it('answers 400 naming per_page for anything but plain decimal digits from 1 to 100', async () => {
    for (const value of ['0', '-1', '1e3', '1e2', 'abc', '1.5', '2.0', '0x0A', '0b11', '%207', '+5', '', 'Infinity', '101']) {
      await expect400(`/projects/${projectId}/events?per_page=${value}`, 'per_page')
      await expect400(`/projects/${projectId}/errors?per_page=${value}`, 'per_page')
      await expect400(`/errors/${errorId}/events?per_page=${value}`, 'per_page')
    }
  })

  it('answers 400 naming both when start_time is after end_time, and for timestamps that are not ISO 8601 or out of range', async () => {
    const res = await get(`/projects/${projectId}/events?start_time=2026-02-01T00:00:00Z&end_time=2026-01-01T00:00:00Z`)
    expect(res.status).toBe(400)
    expect((await res.json()).errors).toEqual(['start_time: must be before end_time', 'end_time: must be after start_time'])
    // Equal bounds are an empty window, not an error.
    const empty = await get(`/projects/${projectId}/events?start_time=2026-01-01T00:00:00Z&end_time=2026-01-01T00:00:00Z`)
    expect(empty.status).toBe(200)
    expect(await empty.json()).toEqual([])
    // A date alone or a time without offset is ISO 8601 and taken (contract/iso-time.ts); these are not.
    for (const value of ['yesterday', '1767225600', '2026-13-01T00:00:00Z', '0000-01-01T00:00:00Z', '2026-02-30', '2026-01-01T25:00:00Z']) {
      await expect400(`/projects/${projectId}/events?start_time=${encodeURIComponent(value)}`, 'start_time')
      await expect400(`/errors/${errorId}/events?end_time=${encodeURIComponent(value)}`, 'end_time')
    }
  })

  it('answers 400 naming the cursor for garbage, another endpoint’s cursor and out-of-range values', async () => {
    // Each keyset is sealed for the list it is sent to, so what is refused is its value.
    const lists: Array<[string, string]> = [
      [`/projects/${projectId}/events`, `events|project|${projectId}|desc`],
      [`/errors/${errorId}/events`, `events|error|${errorId}|desc`],
      [`/projects/${projectId}/errors`, `errors|${projectId}|last_seen|desc`],
      [`/projects/${projectId}/errors?sort=first_seen`, `errors|${projectId}|first_seen|desc`],
    ]
    const keysets = [
      { v: 12, id: eventId }, // an errors cursor for sort=events
      { v: 'yesterday', id: eventId },
      { v: '-271821-04-20T00:00:00.000Z', id: eventId },
      { v: '+275760-09-13T00:00:00.000Z', id: eventId },
      { v: '0000-01-01T00:00:00.000Z', id: eventId },
      { v: '2026-01-01T00:00:00.000Z', id: 'a\u0000b' },
      { v: 'Tue, 01 Jan 2030 00:00:00 GMT', id: eventId },
    ]
    for (const [path, list] of lists) {
      const join = path.includes('?') ? '&' : '?'
      for (const cursor of ['garbage', '%%%', Buffer.from('not json').toString('base64url'), ...keysets.map((k) => encodeCursor(k, list))]) {
        await expect400(`${path}${join}cursor=${encodeURIComponent(cursor)}`, 'cursor')
      }
    }
    await expect400(`/projects/${projectId}/errors?sort=events&cursor=${encodeCursor({ v: 1, id: 'a\u0000b' }, `errors|${projectId}|events|desc`)}`, 'cursor')
  })

  it('answers 400 for a cursor from another list: another project, error, sort, direction or pivot scope', async () => {
    // Real cursors, from the Link headers of one-row pages.
    const cursorOf = async (path: string) => {
      const res = await get(path)
      expect(res.status, path).toBe(200)
      const link = res.headers.get('Link')
      expect(link, path).toBeTruthy()
      return new URL(/<([^>]+)>/.exec(link!)![1]!).searchParams.get('cursor')!
    }
    const user = (id: string) => ({ user: { id } })
    await notify({ events: [baseEvent('CursorA', user('u1')), baseEvent('CursorA', user('u2')), baseEvent('CursorB', user('u1')), baseEvent('CursorB', user('u3'))] })
    const [a, b] = await Promise.all(['CursorA', 'CursorB'].map(async (cls) => (await ctx.deps.database.db.select().from(errors).where(eq(errors.errorClass, cls)))[0]!.id))
    const { project: sibling } = await seedProject(ctx, { user: alice, organization: 'Adversarial Org 2', project: 'Sibling' })
    const mismatches: Array<[string, string]> = [
      [`/projects/${projectId}/events?per_page=1`, `/errors/${a}/events?per_page=1`],
      [`/errors/${a}/events?per_page=1`, `/errors/${b}/events?per_page=1`],
      [`/errors/${a}/events?per_page=1`, `/errors/${a}/events?per_page=1&direction=asc`],
      [`/projects/${projectId}/errors?per_page=1`, `/projects/${projectId}/errors?per_page=1&sort=first_seen`],
      [`/projects/${projectId}/errors?per_page=1&sort=events`, `/projects/${projectId}/errors?per_page=1&sort=users`],
      [`/projects/${projectId}/errors?per_page=1`, `/projects/${projectId}/errors?per_page=1&direction=asc`],
      [`/projects/${projectId}/errors?per_page=1`, `/projects/${sibling.id}/errors?per_page=1`],
      [`/projects/${projectId}/errors/${a}/pivots/user.id/values?per_page=1`, `/projects/${projectId}/pivots/user.id/values?per_page=1`],
      [`/projects/${projectId}/errors/${a}/pivots/user.id/values?per_page=1`, `/projects/${projectId}/errors/${b}/pivots/user.id/values?per_page=1`],
    ]
    for (const [from, to] of mismatches) {
      const cursor = await cursorOf(from)
      await expect400(`${to}&cursor=${encodeURIComponent(cursor)}`, 'cursor')
      // The same cursor still pages the list that issued it.
      expect((await get(`${from}&cursor=${encodeURIComponent(cursor)}`)).status, from).toBe(200)
    }
  })

  it('ignores unknown query parameters', async () => {
    for (const path of [`/projects/${projectId}/events`, `/errors/${errorId}/events`, `/projects/${projectId}/errors`]) {
      const res = await get(`${path}?foo=bar&per_page=1&__proto__=1&constructor=2`)
      expect(res.status, path).toBe(200)
      // Filters are never ignored: a malformed one is a 400 naming it.
      await expect400(`${path}?filters[x]=1`, 'filters\\[x\\]')
    }
  })

  it('answers 404 for ids that are huge, hold NUL, SQL-ish or invalid escapes, never 500', async () => {
    const ids = ['x'.repeat(10_000), "' OR 1=1 --", '%00', 'a%00b', '%FF%FE', '%ED%A0%80', '..%2F..%2Fetc', '%E2%80%AE', 'null', '🙂']
    for (const id of ids) {
      const paths = [
        `/events/${id}`,
        `/projects/${projectId}/events/${id}`,
        `/projects/${id}/events`,
        `/projects/${id}/events/${eventId}`,
        `/errors/${id}/events`,
        `/projects/${projectId}/errors/${id}/events`,
        `/projects/${id}/errors`,
        `/projects/${projectId}/errors/${id}`,
        `/projects/${id}/errors/${errorId}`,
        `/projects/${projectId}/errors/${id}/latest_event`,
      ]
      for (const path of paths) {
        const res = await get(path)
        expect(res.status, `${path.slice(0, 80)} → ${(await res.clone().text()).slice(0, 200)}`).toBe(404)
        expect((await res.json()).errors).toHaveLength(1)
      }
      for (const path of [`/events/${id}`, `/projects/${projectId}/events/${id}`]) {
        const res = await ctx.request(`/api${path}`, { method: 'DELETE', token: alice.token })
        expect(res.status, path.slice(0, 80)).toBe(404)
      }
    }
  })

  it('answers 404 for another organization’s event and error on every endpoint, and deletes nothing', async () => {
    const paths = [
      `/events/${malloryEventId}`,
      `/projects/${projectId}/events/${malloryEventId}`,
      `/projects/${malloryProjectId}/events/${malloryEventId}`,
      `/projects/${malloryProjectId}/events`,
      `/errors/${malloryErrorId}/events`,
      `/projects/${projectId}/errors/${malloryErrorId}/events`,
      `/projects/${malloryProjectId}/errors/${malloryErrorId}/events`,
      `/projects/${malloryProjectId}/errors`,
      `/projects/${malloryProjectId}/errors/${malloryErrorId}`,
      `/projects/${projectId}/errors/${malloryErrorId}`,
      `/projects/${malloryProjectId}/errors/${malloryErrorId}/latest_event`,
      `/projects/${projectId}/errors/${malloryErrorId}/latest_event`,
    ]
    for (const path of paths) expect((await get(path)).status, path).toBe(404)
    for (const path of [`/events/${malloryEventId}`, `/projects/${projectId}/events/${malloryEventId}`, `/projects/${malloryProjectId}/events/${malloryEventId}`]) {
      const res = await ctx.request(`/api${path}`, { method: 'DELETE', token: alice.token })
      expect(res.status, path).toBe(404)
    }
    // Alice's own event through Mallory's project is not found either.
    expect((await ctx.request(`/api/projects/${malloryProjectId}/events/${eventId}`, { method: 'DELETE', token: mallory.token })).status).toBe(404)
    expect((await ctx.request(`/api/projects/${projectId}/events/${eventId}`, { method: 'DELETE', token: mallory.token })).status).toBe(404)
    const [kept] = await ctx.deps.database.db.select({ id: events.id }).from(events).where(eq(events.id, malloryEventId))
    expect(kept?.id).toBe(malloryEventId)
    const [count] = await ctx.deps.database.db.select({ n: errors.eventsCount }).from(errors).where(eq(errors.id, malloryErrorId))
    expect(count!.n).toBe(1)
    expect((await get(`/events/${malloryEventId}`, mallory.token)).status).toBe(200)
    expect((await get(`/events/${eventId}`)).status).toBe(200)
  })
})
