import { loadConfig } from '../config.ts'
import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { and, eq } from 'drizzle-orm'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errors, events, projects, sessionCounts } from '../db/schema.ts'
import { seedProject } from '../test-support/seed.ts'
import { createTestContext, listen, type TestContext, type TestUser } from '../test-support/test-app.ts'
import type { LogAppender } from './log/accepted-log.ts'
import { createGroupCommit } from './log/group-commit.ts'
import { tableAppender } from './log/table-log.ts'
import { acceptedPayload, tableIndexer } from '../test-support/ingest.ts'
import { atWallClock } from '../test-support/wall-clock.ts'

const WIRE = join(import.meta.dirname, '../../test/fixtures/wire')
const fixture = (name: string) => JSON.parse(readFileSync(join(WIRE, name), 'utf8')) as { headers: Record<string, string>; json: Record<string, unknown> }
const NOTIFY_LIMIT = 64 * 1024

let ctx: TestContext
let owner: TestUser
let projectId: string
let apiKey: string

beforeAll(async () => {
  ctx = await createTestContext({
    limits: { ...loadConfig({}).limits, notifyBytes: NOTIFY_LIMIT, sessionsBytes: 16 * 1024, apiBodyBytes: 256 * 1024 },
  })
  owner = await ctx.createUser('Owner')
  const { project } = await seedProject(ctx, { user: owner, organization: 'Ingest Org', project: 'Ingest' })
  projectId = project.id
  apiKey = project.api_key
})
afterAll(() => ctx.close())

/** A minimal valid event with a distinct error class (so each test owns its error group). */
function event(errorClass: string, extra: Record<string, unknown> = {}) {
  return {
    payloadVersion: '4',
    exceptions: [{ errorClass, errorMessage: `${errorClass} happened`, type: 'nodejs', stacktrace: [{ file: 'src/app.js', method: 'run', lineNumber: 3, columnNumber: 7, inProject: true }] }],
    app: { releaseStage: 'production', version: '1.0.0' },
    ...extra,
  }
}

function notify(body: unknown, headers: Record<string, string> = { 'Bugsnag-Api-Key': apiKey }) {
  return ctx.request('/notify', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Bugsnag-Payload-Version': '4', ...headers },
    body: typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body),
  })
}

/** A chunked body with no Content-Length, as the notifiers send; counts how much was pulled. */
function chunkedBody(chunks: Uint8Array[], endless = false) {
  const state = { pulled: 0 }
  let i = 0
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++] ?? (endless ? chunks[0] : undefined)
      if (!chunk || state.pulled > 100) return controller.close()
      state.pulled += 1
      controller.enqueue(chunk)
    },
  })
  return { stream, state }
}

const errorRow = async (errorClass: string) =>
  (await ctx.deps.database.db.select().from(errors).where(and(eq(errors.projectId, projectId), eq(errors.errorClass, errorClass))))[0]
const eventCount = async (errorClass: string) =>
  (await ctx.deps.database.db.select({ id: events.id }).from(events).where(and(eq(events.projectId, projectId), eq(events.errorClass, errorClass)))).length

describe('POST /notify', () => {
  it('records which rule grouped each error, and shows it on the error resource', async () => {
    const custom = event('GroupedByHash', { groupingHash: 'checkout-timeout' })
    const libraryOnly = event('GroupedByTopFrame')
    libraryOnly.exceptions[0]!.stacktrace[0]!.inProject = false
    const noFrames = event('GroupedByMessage')
    noFrames.exceptions[0]!.stacktrace = []
    expect((await notify({ events: [custom, event('GroupedByFrame'), libraryOnly, noFrames] })).status).toBe(200)
    const reasons: Record<string, string> = {}
    for (const errorClass of ['GroupedByHash', 'GroupedByFrame', 'GroupedByTopFrame', 'GroupedByMessage']) {
      const row = await errorRow(errorClass)
      const res = await ctx.request(`/api/projects/${projectId}/errors/${row!.id}`, { token: owner.token })
      reasons[errorClass] = (await res.json()).grouping_reason
    }
    expect(reasons).toEqual({
      GroupedByHash: 'grouping_hash',
      GroupedByFrame: 'in_project_frame',
      GroupedByTopFrame: 'top_frame',
      GroupedByMessage: 'error_class_and_message',
    })
  })

  it('stores every captured notifier payload, chunked with no Content-Length, and answers 200 OK after commit', async () => {
    for (const name of ['node-notify-cause-chain', 'node-notify-handled', 'node-notify-cjs-inproject', 'browser-notify-handled', 'browser-notify-uncaught']) {
      const capture = fixture(`${name}.request.json`)
      const body = new TextEncoder().encode(JSON.stringify(capture.json))
      const { stream } = chunkedBody([body.slice(0, 1000), body.slice(1000)])
      const res = await ctx.request('/notify', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': apiKey, 'Transfer-Encoding': 'chunked' },
        body: stream,
        duplex: 'half',
      } as RequestInit)
      expect(res.status, name).toBe(200)
      expect(await res.text()).toBe('OK')
    }
    // Committed before the answer: visible at once.
    const outer = await errorRow('Error')
    expect(outer).toBeDefined()
    const typeErrors = await ctx.deps.database.db.select().from(events).where(eq(events.projectId, projectId))
    expect(typeErrors.length).toBeGreaterThanOrEqual(5)
    const browser = typeErrors.find((e) => e.message === 'Browser handled error')!
    expect(browser).toMatchObject({ browserName: 'jsdom', osName: 'Linux', requestUrl: 'http://localhost:8080/checkout?step=2', releaseStage: 'staging', appVersion: '1.2.3', userId: 'user-42' })
  })

  it('takes the API key from the body when the header is absent', async () => {
    const res = await notify({ apiKey, events: [event('BodyKeyError')] }, {})
    expect(res.status).toBe(200)
    expect(await eventCount('BodyKeyError')).toBe(1)
  })

  it('takes the API key from the query string, as @bugsnag/browser\'s XDomainRequest delivery sends it', async () => {
    const res = await ctx.request(`/notify?apiKey=${apiKey}&payloadVersion=4&sentAt=2026-11-23T00:00:00.000Z`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: JSON.stringify({ events: [event('QueryKeyError')] }),
    })
    expect(res.status).toBe(200)
    expect(await eventCount('QueryKeyError')).toBe(1)
    // Sessions of another project: the session tests below count this one's.
    const other = await seedProject(ctx, { user: owner, organization: 'XDR Org', project: 'XDR' })
    const sessions = await ctx.request(`/sessions?apiKey=${other.project.api_key}&payloadVersion=1`, {
      method: 'POST',
      body: JSON.stringify({ app: { releaseStage: 'production' }, sessions: [{ id: 's1', startedAt: '2026-11-23T00:00:00Z' }] }),
    })
    expect(sessions.status).toBe(202)
    const counted = await ctx.deps.database.db.select().from(sessionCounts).where(eq(sessionCounts.projectId, other.project.id))
    expect(counted.map((row) => row.sessions)).toEqual([1])
  })

  it('answers 401 for a missing or unknown API key', async () => {
    const missing = await notify({ events: [event('NoKey')] }, {})
    expect(missing.status).toBe(401)
    expect((await missing.json()).errors[0]).toMatch(/missing API key/)
    const unknown = await notify({ events: [event('NoKey')] }, { 'Bugsnag-Api-Key': '0'.repeat(32) })
    expect(unknown.status).toBe(401)
    expect((await unknown.json()).errors[0]).toMatch(/invalid API key/)
    const unknownInBody = await notify({ apiKey: 'f'.repeat(32), events: [event('NoKey')] }, {})
    expect(unknownInBody.status).toBe(401)
    for (const wrongType of [123, true, { key: apiKey }]) {
      const res = await notify({ apiKey: wrongType, events: [event('NoKey')] }, {})
      expect(res.status).toBe(401)
      expect((await res.json()).errors[0]).toMatch(/^invalid API key/)
    }
    expect(await eventCount('NoKey')).toBe(0)
  })

  it('answers 400 for a body that is not JSON', async () => {
    const res = await notify('{"events": [', { 'Bugsnag-Api-Key': apiKey })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ errors: ['request body is not valid JSON'] })
  })

  it('answers 400 naming the field for a payload that fails validation, and stores none of its events', async () => {
    const res = await notify({ events: [event('HalfValid'), { exceptions: [] }] })
    expect(res.status).toBe(400)
    expect((await res.json()).errors).toEqual([expect.stringMatching(/^events\.1\.exceptions: /)])
    expect(await eventCount('HalfValid')).toBe(0)

    const noClass = await notify({ events: [{ exceptions: [{ errorMessage: 'no class' }] }] })
    expect(noClass.status).toBe(400)
    expect((await noClass.json()).errors[0]).toMatch(/^events\.0\.exceptions\.0\.errorClass: /)
  })

  it('answers 413 while streaming a chunked body over the limit, without reading the rest', async () => {
    const chunk = new TextEncoder().encode(' '.repeat(16 * 1024))
    const { stream, state } = chunkedBody([chunk], true)
    const res = await ctx.request('/notify', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': apiKey },
      body: stream,
      duplex: 'half',
    } as RequestInit)
    expect(res.status).toBe(413)
    expect((await res.json()).errors[0]).toMatch(/larger than the limit of 65536 bytes/)
    // The limit is 4 chunks; reading stopped right after the one that crossed it.
    expect(state.pulled).toBeLessThanOrEqual(6)
  })

  it('answers 413 at once for a declared Content-Length over the limit', async () => {
    const res = await notify('x'.repeat(NOTIFY_LIMIT + 1))
    expect(res.status).toBe(413)
  })

  it('accepts a gzip body, and refuses one that expands past the limit', async () => {
    const gz = gzipSync(JSON.stringify({ events: [event('GzipError')] }))
    const res = await notify(gz, { 'Bugsnag-Api-Key': apiKey, 'Content-Encoding': 'gzip' })
    expect(res.status).toBe(200)
    expect(await eventCount('GzipError')).toBe(1)

    const bomb = gzipSync(JSON.stringify({ events: [event('Bomb', { metaData: { pad: { x: 'a'.repeat(NOTIFY_LIMIT * 4) } } })] }))
    expect(bomb.length).toBeLessThan(NOTIFY_LIMIT)
    const tooBig = await notify(bomb, { 'Bugsnag-Api-Key': apiKey, 'Content-Encoding': 'gzip' })
    expect(tooBig.status).toBe(413)
    const garbage = await notify('not gzip', { 'Bugsnag-Api-Key': apiKey, 'Content-Encoding': 'gzip' })
    expect(garbage.status).toBe(400)
  })

  it('stores several events of one payload together and groups them', async () => {
    const res = await notify({
      events: [
        event('MultiA', { user: { id: 'u1' }, app: { releaseStage: 'staging', version: '2.0.0' } }),
        event('MultiA', { user: { id: 'u2' }, app: { releaseStage: 'production', version: '2.1.0' } }),
        event('MultiB'),
      ],
    })
    expect(res.status).toBe(200)
    expect(await eventCount('MultiA')).toBe(2)
    expect(await eventCount('MultiB')).toBe(1)
    expect(await errorRow('MultiA')).toMatchObject({ eventsCount: 2, usersCount: 2, releaseStages: ['staging', 'production'], appVersions: ['2.0.0', '2.1.0'] })
  })

  it('keeps the order of one payload\'s events: the last one sent is the latest event and heads the lists', async () => {
    // Sent twice, so the second request's ties with the first are decided the same way.
    for (const round of [1, 2]) {
      const res = await notify({
        events: Array.from({ length: 12 }, (_, i) => event('Ordered', { context: `round ${round} #${i}`, groupingHash: 'ordered' })),
      })
      expect(res.status).toBe(200)
      const error = (await errorRow('Ordered'))!
      expect(error.context).toBe(`round ${round} #11`)
      const latest = await ctx.request(`/api/projects/${projectId}/errors/${error.id}/latest_event`, { token: owner.token })
      expect(((await latest.json()) as { context: string }).context).toBe(`round ${round} #11`)
      const list = await ctx.request(`/api/projects/${projectId}/errors/${error.id}/events?per_page=12`, { token: owner.token })
      const contexts = ((await list.json()) as { context: string }[]).map((e) => e.context)
      expect(contexts).toEqual(Array.from({ length: 12 }, (_, i) => `round ${round} #${11 - i}`))
    }
  })

  it('keeps native crash addresses through the Events API, and groups one crash from two installs together', async () => {
    const ndk = JSON.parse(readFileSync(join(import.meta.dirname, '../../test/fixtures/native/android-ndk-event.json'), 'utf8')) as {
      exceptions: Array<{ stacktrace: Array<Record<string, unknown>> }>
    }
    // The same build on another device: another install path, another load address.
    const otherInstall = structuredClone(ndk.exceptions)
    for (const frame of otherInstall[0]!.stacktrace) {
      frame.file = '/data/app/~~Zz9==/com.example-Kp0==/lib/arm64/libcrash.aarch64.so'
      frame.frameAddress = (frame.frameAddress as number) - 0x1000000
      frame.loadAddress = (frame.loadAddress as number) - 0x1000000
    }
    const registers = [{ frameIndex: 0, registerValues: [{ registerName: 'pc', registerValue: ndk.exceptions[0]!.stacktrace[0]!.frameAddress }] }]
    const res = await notify({
      events: [
        event('SIGSEGV', { exceptions: ndk.exceptions.map((e) => ({ ...e, registers })) }),
        event('SIGSEGV', { exceptions: otherInstall }),
      ],
    })
    expect(res.status).toBe(200)
    const error = (await errorRow('SIGSEGV'))!
    expect(error.eventsCount).toBe(2)
    const list = await ctx.request(`/api/projects/${projectId}/errors/${error.id}/events`, { token: owner.token })
    const [second, first] = (await list.json()) as Array<{ exceptions: Array<{ stacktrace: Array<{ native?: Record<string, unknown> }>; registers?: unknown }> }>
    expect(first!.exceptions[0]!.stacktrace[0]!.native).toMatchObject({
      type: 'c',
      relative_address: '0x1698',
      frame_address: '0x784396f698',
      is_pc: true,
      code_identifier: 'c4c3e67882c5ae90748762b6ccaf46f60a4db16a',
    })
    expect(first!.exceptions[0]!.registers).toEqual([{ frame_index: 0, values: [{ name: 'pc', value: '0x784396f698' }] }])
    expect(second!.exceptions[0]!.stacktrace[1]!.native).toMatchObject({ relative_address: '0x16b8', frame_address: '0x784296f6b8' })
  })

  it('keeps error counters current: events, users, release stages, app versions, first and last seen', async () => {
    const send = (extra: Record<string, unknown>) => notify({ events: [event('Counted', extra)] })
    // The first a minute ago, so the later ones' last seen is after it.
    const sent = await atWallClock(Date.now() - 60_000, () => send({ user: { id: 'u1' }, app: { releaseStage: 'beta', version: '1.0' } }))
    expect(sent.status).toBe(200)
    const first = await errorRow('Counted')
    expect(first).toMatchObject({ eventsCount: 1, usersCount: 1, releaseStages: ['beta'], appVersions: ['1.0'], status: 'open', severity: 'warning' })
    await send({ user: { id: 'u1' }, app: { releaseStage: 'beta', version: '1.1' } })
    await send({ user: { email: 'x@example.com' }, severity: 'error', context: 'GET /checkout', app: { version: '1.1' } })
    await send({ device: { id: 'device-9' } })
    await send({})
    const row = (await errorRow('Counted'))!
    expect(row).toMatchObject({
      eventsCount: 5,
      usersCount: 3, // u1, x@example.com, device-9; the anonymous event counts no one
      releaseStages: ['beta', 'production'],
      appVersions: ['1.0', '1.1', '1.0.0'],
      severity: 'warning', // from the newest event
    })
    expect(row.firstSeen.getTime()).toBe(first!.firstSeen.getTime())
    expect(row.lastSeen.getTime()).toBeGreaterThan(first!.lastSeen.getTime())
    const latest = await ctx.deps.database.db.select().from(events).where(eq(events.id, row.lastEventId!))
    expect(latest[0]!.errorId).toBe(row.id)
    const project = await ctx.deps.database.db.select().from(projects).where(eq(projects.id, projectId))
    expect(project[0]!.releaseStages).toEqual(expect.arrayContaining(['beta', 'production', 'staging']))
  })

  it('indexes an event whose pivoted values are too long for an index entry, keeping them whole in the event', async () => {
    // Random text does not compress: 3,000 characters of it are past a B-tree entry's ~2,700 bytes.
    let random = ''
    while (random.length < 3000) random += Math.random().toString(36).slice(2)
    const url = `https://app.example.com/callback?state=${random}`
    const emoji = '🔥'.repeat(800) // 1,600 UTF-16 units, 3,200 bytes
    const cjk = '错误'.repeat(600) // 1,200 units, 3,600 bytes
    const response = await notify({
      events: [event('HugePivots', { request: { url }, context: emoji, user: { id: cjk, email: 'a@example.com' }, app: { version: random, releaseStage: cjk } })],
    })
    expect(response.status).toBe(200)
    const listed = await ctx.request(`/api/projects/${projectId}/events?per_page=1`, { token: owner.token })
    const [stored] = (await listed.json()) as { id: string; url: string; context: string; user_id: string }[]
    const detail = (await (await ctx.request(`/api/projects/${projectId}/events/${stored!.id}`, { token: owner.token })).json()) as {
      request: { url: string }
      context: string
    }
    expect(detail.request.url).toBe(url)
    expect(detail.context).toBe(emoji)

    // Filters and pivots see a prefix that fits: at most 1,024 characters and 2,048 bytes, whole characters.
    const values = (await (await ctx.request(`/api/projects/${projectId}/pivots/request.url/values`, { token: owner.token })).json()) as {
      event_field_value: string
    }[]
    const cutUrl = values.map((v) => v.event_field_value).find((v) => v.startsWith('https://app.example.com/callback'))!
    expect(url.startsWith(cutUrl)).toBe(true)
    expect(cutUrl.length).toBe(1024)
    const contexts = (await (await ctx.request(`/api/projects/${projectId}/pivots/event.context/values`, { token: owner.token })).json()) as {
      event_field_value: string
    }[]
    const cutContext = contexts.map((v) => v.event_field_value).find((v) => v.startsWith('🔥'))!
    expect(cutContext).toBe('🔥'.repeat(512))
    const row = (await errorRow('HugePivots'))!
    expect(row).toMatchObject({ eventsCount: 1, usersCount: 1 })
    expect(Buffer.byteLength(row.releaseStages[0]!)).toBeLessThanOrEqual(2048)
    expect(cjk.startsWith(row.releaseStages[0]!)).toBe(true)
  })

  it('treats an empty context, version, user id or URL as no value: pivots do not list ""', async () => {
    expect((await notify({ events: [event('EmptyValues', { context: '', app: { version: '' }, user: { id: '' }, request: { url: '' } })] })).status).toBe(200)
    for (const field of ['event.context', 'app.version', 'user.id', 'request.url']) {
      const response = await ctx.request(`/api/projects/${projectId}/pivots/${field}/values?per_page=100`, { token: owner.token })
      expect(response.status).toBe(200)
      const values = (await response.json()) as { event_field_value: string }[]
      expect(values.map((v) => v.event_field_value)).not.toContain('')
    }
  })

  it('reopens a fixed error on a new event and leaves snoozed and ignored errors alone', async () => {
    await notify({ events: [event('Reopened')] })
    await notify({ events: [event('Snoozed')] })
    await notify({ events: [event('Ignored')] })
    const db = ctx.deps.database.db
    await db.update(errors).set({ status: 'ignored' }).where(eq(errors.errorClass, 'Ignored'))
    await db.update(errors).set({ status: 'fixed' }).where(eq(errors.errorClass, 'Reopened'))
    await db.update(errors).set({ status: 'snoozed' }).where(eq(errors.errorClass, 'Snoozed'))
    await notify({ events: [event('Reopened'), event('Snoozed'), event('Ignored')] })
    expect((await errorRow('Ignored'))!.status).toBe('ignored')
    expect((await errorRow('Reopened'))!.eventsCount).toBe(2)
    expect((await errorRow('Reopened'))!.status).toBe('open')
    expect((await errorRow('Snoozed'))!.status).toBe('snoozed')
  })

  it('counts correctly under concurrent requests (group commit)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => notify({ events: [event('Concurrent', { user: { id: `u${i % 7}` } })] })),
    )
    expect(answers.map((r) => r.status)).toEqual(Array(30).fill(200))
    expect(await errorRow('Concurrent')).toMatchObject({ eventsCount: 30, usersCount: 7 })
    expect(await eventCount('Concurrent')).toBe(30)
  })
})

describe('group commit (the log\'s appending half)', () => {
  const silent = pino({ level: 'silent' })
  const noWake = () => {}
  /** Indexes what waits in ingest_log (on PGlite nothing else reads it). */
  async function indexTableLog() {
    const indexer = tableIndexer(ctx, { batchSize: 100 })
    await indexer.idle()
    await indexer.close()
  }

  it('retries a failed batch request by request: the bad request fails whole, the others commit', async () => {
    // Into ingest_log, whose foreign key refuses the bad request at once.
    const writer = createGroupCommit(tableAppender(ctx.deps.database), { batchSize: 100, flushMs: 20 }, silent, noWake)
    const payload = (cls: string) => ({ events: [event(cls), event(`${cls}2`)] })
    const good = acceptedPayload(projectId, payload('WriterGood'))
    // This request points at a project that does not exist: a foreign-key failure in the batch.
    const bad = acceptedPayload('no-such-project', payload('WriterBad'))
    const results = await Promise.allSettled([writer.write(good), writer.write(bad)])
    await writer.close()
    await indexTableLog()
    expect(results[0].status).toBe('fulfilled')
    expect(results[1].status).toBe('rejected')
    expect(await eventCount('WriterGood')).toBe(1)
    expect(await eventCount('WriterGood2')).toBe(1)
    expect(await eventCount('WriterBad')).toBe(0)
    expect(await errorRow('WriterBad')).toBeUndefined()
  })

  it('answers 503 while the database is unreachable, logging it once rather than per request', async () => {
    const refused = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))
    const unreachable = { ...ctx.deps.database.db, execute: refused } as unknown as typeof ctx.deps.database.db
    const lines: string[] = []
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) })
    const writer = createGroupCommit(tableAppender({ db: unreachable, maxWriters: 4 }), { batchSize: 2, flushMs: 1 }, logger, noWake)
    const requests = Array.from({ length: 6 }, (_, i) =>
      writer.write(acceptedPayload(projectId, { events: [event(`Unreachable${i}`)] })),
    )
    const results = await Promise.allSettled(requests)
    await writer.close()
    expect(results.map((r) => r.status === 'rejected' && (r.reason as { kind?: string }).kind)).toEqual(Array(6).fill('unavailable'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('the database is unavailable; answering 503 until it is back')
  })

  it('answers 503 to every request of a batch the journal\'s disk refused, logging it once, without retrying each', async () => {
    let appends = 0
    const full: LogAppender = {
      concurrentAppends: 1,
      dir: '/nowhere',
      close: async () => {},
      append: async () => {
        appends += 1
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' })
      },
    }
    const lines: string[] = []
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) })
    const writer = createGroupCommit(full, { batchSize: 10, flushMs: 5 }, logger, noWake)
    const requests = Array.from({ length: 6 }, (_, i) =>
      writer.write(acceptedPayload(projectId, { events: [event(`Full${i}`)] })),
    )
    const results = await Promise.allSettled(requests)
    await writer.close()
    expect(results.map((r) => r.status === 'rejected' && (r.reason as { kind?: string }).kind)).toEqual(Array(6).fill('unavailable'))
    expect(appends).toBe(1)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('appending to the ingest journal failed; answering 503')
  })

  it('keeps exact counts when several processes append and index the same errors at once', async () => {
    const indexers = [0, 1, 2].map(() => tableIndexer(ctx, { batchSize: 16, lingerMs: 5 }))
    const writers = indexers.map((indexer) => createGroupCommit(tableAppender(ctx.deps.database), { batchSize: 8, flushMs: 1 }, silent, (n) => indexer.wake(n)))
    // 3 writers x 40 requests, each touching the same 5 errors in different orders, 11 distinct users.
    const writes = writers.flatMap((writer, w) =>
      Array.from({ length: 40 }, (_, i) => {
        const classes = [0, 1, 2, 3, 4].map((k) => `Shared${(k + i + w) % 5}`)
        const body = { events: classes.map((cls) => event(cls, { user: { id: `u${(i * 3 + w) % 11}` } })) }
        return writer.write(acceptedPayload(projectId, body))
      }),
    )
    await Promise.all(writes)
    await Promise.all(writers.map((writer) => writer.close()))
    await Promise.all(indexers.map((indexer) => indexer.idle()))
    await Promise.all(indexers.map((indexer) => indexer.close()))
    for (let k = 0; k < 5; k++) {
      expect(await errorRow(`Shared${k}`)).toMatchObject({ eventsCount: 120, usersCount: 11 })
      expect(await eventCount(`Shared${k}`)).toBe(120)
    }
  })

  it('flushes queued writes on close and refuses writes afterwards', async () => {
    const writer = createGroupCommit(tableAppender(ctx.deps.database), { batchSize: 1000, flushMs: 1000 }, silent, noWake)
    const pending = writer.write(acceptedPayload(projectId, { events: [event('OnClose')] }))
    await writer.close()
    await pending
    await indexTableLog()
    expect(await eventCount('OnClose')).toBe(1)
    await expect(writer.write(acceptedPayload(projectId, { events: [event('OnClose')] }))).rejects.toThrow(/shutting down/)
  })
})

describe('CORS for browser notifiers', () => {
  it('answers the preflight for /notify and /sessions with 204 and the requested headers', async () => {
    const preflight = fixture('browser-preflight-sessions.request.json')
    for (const path of ['/notify', '/sessions']) {
      const res = await ctx.request(path, {
        method: 'OPTIONS',
        headers: {
          Origin: preflight.headers.origin!,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': preflight.headers['access-control-request-headers']!,
        },
      })
      expect(res.status).toBe(204)
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe('http://localhost:8080')
      expect(res.headers.get('Access-Control-Allow-Methods')).toMatch(/POST/)
      expect(res.headers.get('Access-Control-Allow-Headers')).toBe('Bugsnag-Api-Key, Bugsnag-Payload-Version, Bugsnag-Sent-At')
      expect(Number(res.headers.get('Access-Control-Max-Age'))).toBeGreaterThan(0)
    }
  })

  it('puts Access-Control-Allow-Origin on every POST answer, errors included', async () => {
    const origin = { Origin: 'http://localhost:8080' }
    const ok = await notify({ events: [event('CorsOk')] }, { 'Bugsnag-Api-Key': apiKey, ...origin })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('Access-Control-Allow-Origin')).toBe('http://localhost:8080')
    const unauthorized = await notify({ events: [event('CorsOk')] }, origin)
    expect(unauthorized.status).toBe(401)
    expect(unauthorized.headers.get('Access-Control-Allow-Origin')).toBe('http://localhost:8080')
    const invalid = await notify({ events: [] }, { 'Bugsnag-Api-Key': apiKey, ...origin })
    expect(invalid.status).toBe(400)
    expect(invalid.headers.get('Access-Control-Allow-Origin')).toBe('http://localhost:8080')
    const noOrigin = await notify({ events: [event('CorsOk')] })
    expect(noOrigin.headers.get('Access-Control-Allow-Origin')).toBe('*')
  })
})

describe('POST /sessions', () => {
  const sessions = (body: unknown, headers: Record<string, string> = { 'Bugsnag-Api-Key': apiKey }) =>
    ctx.request('/sessions', { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) })
  const counts = () => ctx.deps.database.db.select().from(sessionCounts).where(eq(sessionCounts.projectId, projectId))

  it('adds Node sessionCounts per minute, release stage and app version, and answers 202', async () => {
    const node = fixture('node-sessions.request.json').json
    const res = await sessions(node)
    expect(res.status).toBe(202)
    expect(await res.text()).toBe('Accepted')
    await sessions({ ...node, sessionCounts: [{ startedAt: '2026-11-22T11:01:00.000Z', sessionsStarted: 4 }] })
    const rows = await counts()
    expect(rows).toEqual([
      { projectId, minute: new Date('2026-11-22T11:01:00.000Z'), releaseStage: 'staging', appVersion: '1.2.3', sessions: 5 },
    ])
  })

  it('counts browser sessions[] entries, truncated to the minute', async () => {
    const browser = fixture('browser-sessions.request.json').json
    expect((await sessions(browser)).status).toBe(202)
    const more = { ...browser, app: { releaseStage: 'staging', version: '9.9' }, sessions: [{ id: 'a', startedAt: '2026-11-22T11:02:30.000Z' }, { id: 'b', startedAt: '2026-11-22T11:02:59.999Z' }] }
    expect((await sessions(more)).status).toBe(202)
    const rows = await counts()
    expect(rows).toContainEqual({ projectId, minute: new Date('2026-11-22T11:02:00.000Z'), releaseStage: 'staging', appVersion: '1.2.3', sessions: 1 })
    expect(rows).toContainEqual({ projectId, minute: new Date('2026-11-22T11:02:00.000Z'), releaseStage: 'staging', appVersion: '9.9', sessions: 2 })
  })

  it('refuses bad session payloads and keys', async () => {
    expect((await sessions({ sessions: [{ id: 'x' }] })).status).toBe(400)
    // Text with a number in it is not a start time (it used to be counted in 2001).
    const garbage = await sessions({ sessionCounts: [{ startedAt: 'session 12', sessionsStarted: 7 }] })
    expect(garbage.status).toBe(400)
    expect(await garbage.json()).toEqual({ errors: [expect.stringContaining('sessionCounts.0.startedAt')] })
    expect((await sessions({ sessions: [] }, {})).status).toBe(401)
    const big = await sessions({ sessions: [], pad: 'x'.repeat(20 * 1024) })
    expect(big.status).toBe(413)
  })
})

describe('over real HTTP (the Node request stream path)', () => {
  /** POSTs a chunked body (no Content-Length) chunk by chunk until the server answers. */
  function postChunked(url: string, chunks: Iterable<Buffer>, headers: Record<string, string> = {}) {
    return new Promise<{ status: number; body: string; chunksSent: number; headers: Record<string, unknown> }>((resolve, reject) => {
      let chunksSent = 0
      let answered = false
      const req = httpRequest(url, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': apiKey, ...headers } }, (res) => {
        answered = true
        let body = ''
        res.on('data', (d: Buffer) => (body += d.toString()))
        res.on('end', () => resolve({ status: res.statusCode!, body, chunksSent, headers: res.headers }))
      })
      req.on('error', (err) => (answered ? undefined : reject(err)))
      const iterator = chunks[Symbol.iterator]()
      const pump = () => {
        if (answered) return req.destroy()
        const next = iterator.next()
        if (next.done) return req.end()
        chunksSent += 1
        req.write(next.value, () => setTimeout(pump, 2))
      }
      pump()
    })
  }

  it('stores a chunked payload and answers 413 mid-stream for an oversized one', async () => {
    const server = await listen(ctx)
    try {
      const body = Buffer.from(JSON.stringify({ events: [event('OverHttp')] }))
      const ok = await postChunked(`${server.url}/notify`, [body.subarray(0, 100), body.subarray(100)])
      expect(ok).toMatchObject({ status: 200, body: 'OK' })
      await ctx.deps.ingestWriter.indexed()
      expect(await eventCount('OverHttp')).toBe(1)

      function* endless() {
        for (let i = 0; i < 1000; i++) yield Buffer.alloc(8 * 1024, 0x20)
      }
      const tooBig = await postChunked(`${server.url}/notify`, endless(), { Origin: 'http://localhost:8080' })
      expect(tooBig.status).toBe(413)
      expect(JSON.parse(tooBig.body).errors[0]).toMatch(/larger than the limit/)
      expect(tooBig.headers['access-control-allow-origin']).toBe('http://localhost:8080')
      // 64 KiB limit in 8 KiB chunks: answered while the client was still sending (how many chunks
      // it got out before the answer depends on the machine's load, not on the server).
      expect(tooBig.chunksSent).toBeLessThan(1000)

      const gz = gzipSync(JSON.stringify({ events: [event('OverHttpGzip')] }))
      const zipped = await postChunked(`${server.url}/notify`, [gz], { 'Content-Encoding': 'gzip' })
      expect(zipped.status).toBe(200)
      await ctx.deps.ingestWriter.indexed()
      expect(await eventCount('OverHttpGzip')).toBe(1)
    } finally {
      await server.close()
    }
  })
})
