// Webhooks end to end in one process: configuration and its refusals, every trigger's document
// as a real HTTP receiver on 127.0.0.1 gets it (signature checked with the snippet of
// docs/webhooks.md), retries after 5xx, the delivery log, redelivery and test notifications.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { and, eq, inArray, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { filtersToParams } from '../../contract/filters.ts'
import type { Webhook, WebhookDelivery } from '../../contract/webhooks.ts'
import { collaborators, events, jobs, webhookDeliveries } from '../db/schema.ts'
import { JobRunner } from '../jobs/job-runner.ts'
import { privacyJobHandlers } from '../privacy/privacy.jobs.ts'
import { notifierEvent } from '../test-support/ingest.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../test-support/webhook-receiver.ts'
import { parseAllowList } from '../outbound/allow-list.ts'
import { expandDeliveries, type ExpandJobPayload } from './queue-deliveries.ts'
import { WEBHOOK_EXPAND_JOB } from './webhook-job-kinds.ts'

/** A received document, read member by member (each member's shape is what the assertions check). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>

/** The verification snippet exactly as docs/webhooks.md shows it. */
function documentedVerifier(): (secret: string, body: string, header: string) => boolean {
  const doc = readFileSync(join(import.meta.dirname, '../../docs/webhooks.md'), 'utf8')
  const code = /<!-- signature-snippet -->\n```js\n([\s\S]*?)```/.exec(doc)?.[1]
  if (!code) throw new Error('docs/webhooks.md has no signature snippet')
  return new Function('require', `${code}\nreturn verifyErrataSignature`)(createRequire(import.meta.url)) as never
}

/** No member anywhere in the document is null (optional members are left out instead). */
function nullPaths(value: unknown, path = '$'): string[] {
  if (value === null) return [path]
  if (Array.isArray(value)) return value.flatMap((v, i) => nullPaths(v, `${path}[${i}]`))
  if (typeof value === 'object') return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => nullPaths(v, `${path}.${k}`))
  return []
}

let ctx: TestContext
let seeded: SeededProject
let receiver: WebhookReceiver
let member: TestUser
let outsider: TestUser
let webhook: Webhook
const verify = documentedVerifier()

const richEvent = (errorClass: string, extra: Record<string, unknown> = {}) =>
  notifierEvent(errorClass, {
    context: 'GET /cart',
    unhandled: true,
    severity: 'error',
    app: { version: '1.2.0', releaseStage: 'production', type: 'node', id: 'shop', duration: 1200, inForeground: true },
    device: { hostname: 'web-1', osName: 'linux', osVersion: '6.1', freeMemory: 1024, batteryLevel: 0.5, time: '2031-01-01T00:00:00.000Z' },
    user: { id: 'u-1', name: 'Alice', email: 'alice@example.com' },
    metaData: { order: { id: 42, lines: { count: 3 } } },
    request: { url: 'https://shop.example.com/cart', httpMethod: 'GET' },
    breadcrumbs: [
      { name: 'first', type: 'navigation', timestamp: '2031-01-01T00:00:00.000Z', metaData: { to: '/a' } },
      { name: 'second', type: 'user', timestamp: '2031-01-01T00:00:01.000Z' },
    ],
    featureFlags: [{ featureFlag: 'new-checkout', variant: 'b' }, { featureFlag: 'dark-mode' }],
    exceptions: [
      {
        errorClass,
        message: `${errorClass} happened`,
        type: 'nodejs',
        stacktrace: [
          {
            file: 'src/cart.js',
            method: 'total',
            lineNumber: 10,
            columnNumber: 4,
            inProject: true,
            code: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [String(5 + i), `line ${5 + i}`])),
          },
          { file: 'node_modules/x.js', method: 'call', lineNumber: 1, inProject: false },
        ],
      },
      { errorClass: 'CauseError', message: 'the cause', type: 'nodejs', stacktrace: [] },
    ],
    ...extra,
  })

async function notify(events: Record<string, unknown>[]): Promise<void> {
  const res = await ctx.request('/notify', {
    method: 'POST',
    headers: { 'Bugsnag-Api-Key': seeded.project.api_key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ payloadVersion: '5', events }),
  })
  expect(res.status).toBe(200)
}

/** Runs the queued deliveries and answers what the receiver got since `from`. */
async function deliver(from: number): Promise<ReceivedRequest[]> {
  await ctx.jobs.drain()
  return receiver.received.slice(from)
}

const db = () => ctx.deps.database.db

const byTrigger = (requests: ReceivedRequest[], type: string) => requests.filter((r) => (r.json.trigger as { type: string }).type === type)

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  ctx = await createTestContext({ webhookAllow: parseAllowList('127.0.0.1') }, { webhooks: { retryDelayMs: () => 0 } })
  seeded = await seedProject(ctx, { user: 'Hook Admin', organization: 'Hook Org', project: 'Shop' })
  member = await ctx.createUser('Member')
  outsider = await ctx.createUser('Outsider')
  await ctx.deps.database.db.insert(collaborators).values({ organizationId: seeded.organization.id, userId: member.id, isAdmin: false })
})
afterAll(async () => {
  await ctx?.close()
  await receiver?.close()
})

const hooksPath = () => `/api/projects/${seeded.project.id}/webhooks`

describe('webhook configuration', () => {
  it('creates a webhook with every trigger and shows its secret only once', async () => {
    const res = await ctx.request(hooksPath(), {
      method: 'POST',
      token: seeded.user.token,
      json: {
        url: receiver.url,
        triggers: ['firstException', 'exception', 'powerTen', 'reopened', 'comment', 'errorStateManualChange', 'release', 'errorEventFrequency'],
        settings: { errorEventFrequency: { threshold: 3, unit: 'events', hours: 1 } },
      },
    })
    expect(res.status).toBe(201)
    webhook = (await res.json()) as Webhook
    expect(webhook.secret).toMatch(/^whsec_[0-9a-f]{64}$/)
    expect(webhook.enabled).toBe(true)
    const listed = (await (await ctx.request(hooksPath(), { token: member.token })).json()) as Webhook[]
    expect(listed.map((w) => w.id)).toEqual([webhook.id])
    expect(listed[0]).not.toHaveProperty('secret')
    const one = (await (await ctx.request(`/api/webhooks/${webhook.id}`, { token: member.token })).json()) as Webhook
    expect(one).not.toHaveProperty('secret')
  })

  it('answers 404 to outsiders and 403 to members who try to change', async () => {
    expect((await ctx.request(hooksPath(), { token: outsider.token })).status).toBe(404)
    expect((await ctx.request(`/api/webhooks/${webhook.id}`, { token: outsider.token })).status).toBe(404)
    expect((await ctx.request(`/api/webhooks/${webhook.id}/deliveries`, { token: outsider.token })).status).toBe(404)
    expect((await ctx.request(`/api/webhooks/${webhook.id}`, { method: 'DELETE', token: outsider.token })).status).toBe(404)
    const create = await ctx.request(hooksPath(), { method: 'POST', token: member.token, json: { url: receiver.url, triggers: ['exception'] } })
    expect(create.status).toBe(403)
    expect((await ctx.request(`/api/webhooks/${webhook.id}`, { method: 'PATCH', token: member.token, json: { enabled: false } })).status).toBe(403)
    expect((await ctx.request(`/api/webhooks/${webhook.id}`, { method: 'DELETE', token: member.token })).status).toBe(403)
    expect((await ctx.request(`/api/webhooks/${webhook.id}/test`, { method: 'POST', token: member.token })).status).toBe(403)
    expect((await ctx.request(`/api/webhooks/${webhook.id}/deliveries`, { token: member.token })).status).toBe(200)
  })

  it('refuses bad input, naming the field', async () => {
    const post = (json: unknown) => ctx.request(hooksPath(), { method: 'POST', token: seeded.user.token, json })
    const errorsOf = async (json: unknown) => {
      const res = await post(json)
      expect(res.status).toBe(400)
      return ((await res.json()) as { errors: string[] }).errors.join('; ')
    }
    expect(await errorsOf({ url: 'ftp://example.com/x', triggers: ['exception'] })).toMatch(/^url: must be an http or https URL/)
    expect(await errorsOf({ url: 'not a url', triggers: ['exception'] })).toMatch(/^url: is not a URL/)
    expect(await errorsOf({ url: receiver.url, triggers: [] })).toMatch(/^triggers: choose at least one trigger/)
    expect(await errorsOf({ url: receiver.url, triggers: ['sometimes'] })).toMatch(/^triggers\.0:/)
    expect(await errorsOf({ url: receiver.url, triggers: ['errorEventFrequency'] })).toMatch(/^settings\.errorEventFrequency: required/)
    expect(await errorsOf({ url: receiver.url, triggers: ['exception'], filters: { 'event.since': [{ type: 'eq', value: '7d' }] } })).toMatch(
      /filters\[event\.since\]: time filters do not apply/,
    )
    expect(await errorsOf({ url: receiver.url, triggers: ['powerTen'], filters: { 'app.release_stage': [{ type: 'eq', value: 'production' }] } })).toMatch(
      /^filters: none of the chosen triggers takes filters/,
    )
  })

  it('refuses loopback, link-local and private targets unless ERRATA_WEBHOOK_ALLOW lists them', async () => {
    for (const url of ['http://10.1.2.3/hook', 'http://169.254.169.254/latest', 'http://192.168.0.1/', 'http://[::1]:9/x', 'http://127.0.0.2:9/x']) {
      const res = await ctx.request(hooksPath(), { method: 'POST', token: seeded.user.token, json: { url, triggers: ['exception'] } })
      expect(res.status, url).toBe(400)
      expect(((await res.json()) as { errors: string[] }).errors[0]).toMatch(/^url: .* loopback, link-local or private address; an operator may allow it with ERRATA_WEBHOOK_ALLOW/)
    }
    // A host name is checked on what it resolves to: localhost is loopback.
    const other = await createTestContext()
    try {
      const owner = await seedProject(other)
      const res = await other.request(`/api/projects/${owner.project.id}/webhooks`, {
        method: 'POST',
        token: owner.user.token,
        json: { url: 'http://localhost:9/hook', triggers: ['exception'] },
      })
      expect(res.status).toBe(400)
      expect(((await res.json()) as { errors: string[] }).errors[0]).toMatch(/^url: localhost resolves to .*loopback/)
    } finally {
      await other.close()
    }
  })
})

describe('triggers and payloads', () => {
  let first: ReceivedRequest[] = []

  it('a new error sends exception and firstException, signed, with every member of the spec', async () => {
    const from = receiver.received.length
    await notify([richEvent('TypeError')])
    first = await deliver(from)
    expect(first.map((r) => (r.json.trigger as { type: string }).type).sort()).toEqual(['exception', 'firstException', 'release'])
    for (const request of first) {
      expect(request.method).toBe('POST')
      expect(request.headers['content-type']).toBe('application/json')
      expect(request.headers['x-errata-delivery']).toMatch(/^[0-9a-f]{24}$/)
      expect(verify(webhook.secret!, request.body, String(request.headers['x-errata-signature']))).toBe(true)
      expect(verify('whsec_wrong', request.body, String(request.headers['x-errata-signature']))).toBe(false)
      expect(verify(webhook.secret!, request.body + ' ', String(request.headers['x-errata-signature']))).toBe(false)
      expect(nullPaths(request.json)).toEqual([])
    }
    const doc = byTrigger(first, 'exception')[0]!.json as Doc
    expect(doc.account).toEqual({ id: seeded.organization.id, name: 'Hook Org', url: `http://errata.test/organizations/${seeded.organization.id}` })
    expect(doc.project).toEqual({ id: seeded.project.id, name: 'Shop', url: `http://errata.test/projects/${seeded.project.id}/errors` })
    expect(doc.trigger).toEqual({ type: 'exception', message: 'TypeError occurred' })
    expect(doc).not.toHaveProperty('comment')
    expect(doc).not.toHaveProperty('user')
    expect(doc).not.toHaveProperty('release')
    const error = doc.error
    const [listed] = (await (await ctx.request(`/api/projects/${seeded.project.id}/errors`, { token: seeded.user.token })).json()) as Array<{ id: string; first_seen: string }>
    expect(error.errorId).toBe(listed!.id)
    expect(error.id).toMatch(/^[0-9a-f]{24}$/)
    expect(error.exceptionClass).toBe('TypeError')
    expect(error.message).toBe('TypeError happened')
    expect(error.context).toBe('GET /cart')
    expect(error.firstReceived).toBe(listed!.first_seen)
    expect(Date.parse(error.receivedAt)).toBeGreaterThan(0)
    expect(error.requestUrl).toBe('https://shop.example.com/cart')
    expect(error.url).toBe(`http://errata.test/projects/${seeded.project.id}/errors/${listed!.id}/events/${error.id}`)
    expect(error.severity).toBe('error')
    expect(error.status).toBe('open')
    expect(error.unhandled).toBe(true)
    expect(error).not.toHaveProperty('assignedUserId')
    expect(error).not.toHaveProperty('linkedIssues')
    expect(error).not.toHaveProperty('createdIssue')
    expect(error.user).toEqual({ id: 'u-1', name: 'Alice', email: 'alice@example.com' })
    expect(error.app).toEqual({ id: 'shop', version: '1.2.0', type: 'node', duration: 1200, inForeground: true, releaseStage: 'production' })
    expect(error.device).toEqual({ hostname: 'web-1', osName: 'linux', osVersion: '6.1', freeMemory: 1024, batteryLevel: 0.5, time: '2031-01-01T00:00:00.000Z' })
    expect(error.metaData).toEqual({
      user: { id: 'u-1', name: 'Alice', email: 'alice@example.com' },
      app: { version: '1.2.0', releaseStage: 'production', type: 'node', id: 'shop', duration: 1200, inForeground: true },
      device: { hostname: 'web-1', osName: 'linux', osVersion: '6.1', freeMemory: 1024, batteryLevel: 0.5, time: '2031-01-01T00:00:00.000Z' },
      order: { id: 42, lines: { count: 3 } },
    })
    expect(error.breadcrumbs).toEqual([
      { name: 'second', type: 'user', timestamp: '2031-01-01T00:00:01.000Z' },
      { name: 'first', type: 'navigation', timestamp: '2031-01-01T00:00:00.000Z', metaData: { to: '/a' } },
    ])
    expect(error.featureFlags).toEqual([{ featureFlag: 'new-checkout', variant: 'b' }, { featureFlag: 'dark-mode' }])
    expect(error.exceptions).toHaveLength(2)
    const [frame, libraryFrame] = error.exceptions[0].stacktrace
    expect(frame).toEqual({
      inProject: true,
      lineNumber: '10',
      columnNumber: '4',
      file: 'src/cart.js',
      method: 'total',
      code: Object.fromEntries(Array.from({ length: 7 }, (_, i) => [String(7 + i), `line ${7 + i}`])),
    })
    expect(libraryFrame).toEqual({ inProject: false, lineNumber: '1', file: 'node_modules/x.js', method: 'call' })
    expect(error.exceptions[0]).toMatchObject({ errorClass: 'TypeError', message: 'TypeError happened', type: 'nodejs' })
    expect(error.exceptions[1]).toEqual({ errorClass: 'CauseError', message: 'the cause', type: 'nodejs', stacktrace: [] })
    expect(error.stackTrace).toEqual(error.exceptions[0].stacktrace)

    const release = byTrigger(first, 'release')[0]!.json as Doc
    expect(release.trigger).toEqual({ type: 'release', message: 'New release 1.2.0 in production' })
    expect(release).not.toHaveProperty('error')
    expect(release.release).toMatchObject({ id: 'production@1.2.0', version: '1.2.0', releaseStage: 'production' })
    expect(release.release.url).toContain(`http://errata.test/projects/${seeded.project.id}/errors?`)
    expect(Date.parse(release.release.releaseTime)).toBeGreaterThan(0)
  })

  it('the same error in a new release stage sends firstException again; in a known one, not', async () => {
    const from = receiver.received.length
    await notify([richEvent('TypeError', { app: { version: '1.2.0', releaseStage: 'staging' } })])
    await notify([richEvent('TypeError')])
    const got = await deliver(from)
    expect(byTrigger(got, 'firstException').map((r) => (r.json.trigger as { message: string }).message)).toEqual(['First occurrence in staging'])
    expect(byTrigger(got, 'exception')).toHaveLength(2)
    expect(byTrigger(got, 'release').map((r) => (r.json.release as { releaseStage: string }).releaseStage)).toEqual(['staging'])
  })

  it('a release created by sessions or by a build report sends release once; one already known, nothing', async () => {
    const from = receiver.received.length
    const sessions = await ctx.request('/sessions', {
      method: 'POST',
      headers: { 'Bugsnag-Api-Key': seeded.project.api_key, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        notifier: { name: 'Bugsnag Node', version: '8.0.0', url: 'https://github.com/bugsnag/bugsnag-js' },
        app: { version: '3.0.0', releaseStage: 'production' },
        device: {},
        sessionCounts: [{ startedAt: new Date().toISOString(), sessionsStarted: 2 }],
      }),
    })
    expect(sessions.status).toBe(202)
    const build = (appVersion: string) =>
      ctx.request('/build', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ apiKey: seeded.project.api_key, appVersion, releaseStage: 'production', builderName: 'ci' }),
      })
    expect((await build('3.1.0')).status).toBe(200)
    // Known already (from the sessions, then from the build before): no second notification.
    expect((await build('3.0.0')).status).toBe(200)
    expect((await build('3.1.0')).status).toBe(200)
    const got = byTrigger(await deliver(from), 'release').map((r) => r.json.release as { version: string; releaseStage: string })
    expect(got.map((r) => `${r.releaseStage}@${r.version}`).sort()).toEqual(['production@3.0.0', 'production@3.1.0'])
  })

  it('errorEventFrequency sends once per window; powerTen at 10', async () => {
    const from = receiver.received.length
    // 3 TypeErrors so far; 7 more reach 10 (powerTen), and the frequency window (3 in an hour) was met at the third.
    await notify(Array.from({ length: 7 }, () => richEvent('TypeError')))
    const got = await deliver(from)
    expect(byTrigger(got, 'powerTen').map((r) => (r.json.trigger as { message: string }).message)).toEqual(['Error has occurred 10 times'])
    expect(byTrigger(got, 'exception')).toHaveLength(7)
    const all = receiver.received.filter((r) => (r.json.trigger as { type: string }).type === 'errorEventFrequency')
    expect(all.map((r) => (r.json.trigger as { message: string }).message)).toEqual(['Error occurred 3 times within 1 hour'])
  })

  it('a status change sends errorStateManualChange with the collaborator; an event after a fix sends reopened', async () => {
    const errorId = ((byTrigger(first, 'exception')[0]!.json as Doc).error as { errorId: string }).errorId
    let from = receiver.received.length
    const fixed = await ctx.request(`/api/projects/${seeded.project.id}/errors/${errorId}`, { method: 'PATCH', token: member.token, json: { operation: 'fix' } })
    expect(fixed.status).toBe(200)
    let got = await deliver(from)
    expect(got).toHaveLength(1)
    const change = got[0]!.json as Doc
    expect(change.trigger).toEqual({ type: 'errorStateManualChange', message: 'Error marked as fixed', stateChange: 'fixed' })
    expect(change.user).toEqual({ id: member.id, name: 'Member', email: member.email })
    expect(change.error.errorId).toBe(errorId)
    expect(change.error.status).toBe('fixed')
    expect(nullPaths(change)).toEqual([])

    from = receiver.received.length
    await notify([richEvent('TypeError')])
    got = await deliver(from)
    const reopened = byTrigger(got, 'reopened')
    expect(reopened).toHaveLength(1)
    expect((reopened[0]!.json as Doc).trigger).toEqual({ type: 'reopened', message: 'Error reopened (it was fixed)' })
    expect((reopened[0]!.json as Doc).error.status).toBe('open')

    from = receiver.received.length
    await ctx.request(`/api/projects/${seeded.project.id}/errors/${errorId}`, {
      method: 'PATCH',
      token: member.token,
      json: { operation: 'snooze', reopen_rules: { reopen_if: 'n_additional_occurrences', additional_occurrences: 1 } },
    })
    await notify([richEvent('TypeError')])
    got = await deliver(from)
    expect((byTrigger(got, 'errorStateManualChange')[0]!.json as Doc).trigger).toEqual({
      type: 'errorStateManualChange',
      message: 'Error snoozed',
      stateChange: 'snoozed',
      snoozeRule: { type: 'occurrences', ruleValue: 1 },
    })
    expect((byTrigger(got, 'reopened')[0]!.json as Doc).trigger).toEqual({
      type: 'reopened',
      message: 'Error reopened (it was snoozed)',
      snoozeRule: { type: 'occurrences', ruleValue: 1 },
    })
  })

  it('a comment sends comment with the comment and its author', async () => {
    const errorId = ((byTrigger(first, 'exception')[0]!.json as Doc).error as { errorId: string }).errorId
    const from = receiver.received.length
    const res = await ctx.request(`/api/projects/${seeded.project.id}/errors/${errorId}/comments`, {
      method: 'POST',
      token: member.token,
      json: { message: 'Looking into it' },
    })
    expect(res.status).toBe(201)
    const comment = (await res.json()) as { id: string; created_at: string }
    const got = await deliver(from)
    expect(got).toHaveLength(1)
    const doc = got[0]!.json as Doc
    expect(doc.trigger).toEqual({ type: 'comment', message: 'New comment' })
    expect(doc.comment).toEqual({ id: comment.id, message: 'Looking into it', createdAt: comment.created_at })
    expect(doc.user).toEqual({ id: member.id, name: 'Member', email: member.email })
    expect(doc.error.errorId).toBe(errorId)
  })

  it("a status change's document shows the error as the change left it, though a later change came before delivery", async () => {
    const errorId = ((byTrigger(first, 'exception')[0]!.json as Doc).error as { errorId: string }).errorId
    const from = receiver.received.length
    const patch = (json: Record<string, unknown>) =>
      ctx.request(`/api/projects/${seeded.project.id}/errors/${errorId}`, { method: 'PATCH', token: member.token, json })
    expect((await patch({ operation: 'fix' })).status).toBe(200)
    expect((await patch({ operation: 'assign', assigned_collaborator_id: member.id })).status).toBe(200)
    expect((await patch({ operation: 'open' })).status).toBe(200)
    const got = byTrigger(await deliver(from), 'errorStateManualChange').map((r) => r.json as Doc)
    const fixed = got.find((d) => d.trigger.stateChange === 'fixed')!
    const reopened = got.find((d) => d.trigger.stateChange === 'reopened')!
    expect(fixed.error.status).toBe('fixed')
    expect(fixed.error).not.toHaveProperty('assignedUserId')
    expect(reopened.error.status).toBe('open')
    expect(reopened.error.assignedUserId).toBe(member.id)
    expect((await patch({ operation: 'assign', assigned_collaborator_id: null })).status).toBe(200)

    // An event's notification, fired in the index step, shows the error as indexing left it.
    const next = receiver.received.length
    await notify([richEvent('TypeError')])
    await ctx.deps.ingestWriter.indexed()
    expect((await patch({ operation: 'fix' })).status).toBe(200)
    const exception = byTrigger(await deliver(next), 'exception')[0]!.json as Doc
    expect(exception.error.errorId).toBe(errorId)
    expect(exception.error.status).toBe('open')
    expect((await patch({ operation: 'open' })).status).toBe(200)
  })

  it('a linked issue reaches the document as linkedIssues and the deprecated createdIssue', async () => {
    const errorId = ((byTrigger(first, 'exception')[0]!.json as Doc).error as { errorId: string }).errorId
    const from = receiver.received.length
    const url = 'https://tracker.example.com/issues/7'
    const linked = await ctx.request(`/api/projects/${seeded.project.id}/errors/${errorId}`, {
      method: 'PATCH',
      token: member.token,
      json: { operation: 'link_issue', issue_url: url },
    })
    expect(linked.status).toBe(200)
    await ctx.request(`/api/projects/${seeded.project.id}/errors/${errorId}/comments`, { method: 'POST', token: member.token, json: { message: 'Tracked' } })
    const doc = byTrigger(await deliver(from), 'comment')[0]!.json as Doc
    expect(doc.error.linkedIssues).toEqual([{ type: 'url', url }])
    expect(doc.error.createdIssue).toEqual({ type: 'url', url })
    await ctx.request(`/api/projects/${seeded.project.id}/errors/${errorId}`, { method: 'PATCH', token: member.token, json: { operation: 'unlink_issue' } })
  })

  it('a snooze rule of n occurrences in m hours reaches the document as that rule', async () => {
    const errorId = ((byTrigger(first, 'exception')[0]!.json as Doc).error as { errorId: string }).errorId
    const from = receiver.received.length
    const snoozed = await ctx.request(`/api/projects/${seeded.project.id}/errors/${errorId}`, {
      method: 'PATCH',
      token: member.token,
      json: { operation: 'snooze', reopen_rules: { reopen_if: 'n_occurrences_in_m_hours', occurrences: 5, hours: 24 } },
    })
    expect(snoozed.status).toBe(200)
    const doc = byTrigger(await deliver(from), 'errorStateManualChange')[0]!.json as Doc
    expect(doc.trigger.snoozeRule).toEqual({ type: 'occurrence_per_hour', ruleValue: 5, hours: 24 })
    await ctx.request(`/api/projects/${seeded.project.id}/errors/${errorId}`, { method: 'PATCH', token: member.token, json: { operation: 'open' } })
  })

  it("a release created by a build report carries the build's details", async () => {
    const from = receiver.received.length
    const res = await ctx.request('/build', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        apiKey: seeded.project.api_key,
        appVersion: '4.0.0',
        releaseStage: 'production',
        builderName: 'ci',
        appVersionCode: 42,
        appBundleVersion: '4.0.0.1',
        sourceControl: { repository: 'git@github.com:acme/shop.git', revision: 'abc123' },
        metadata: { team: 'web' },
      }),
    })
    expect(res.status).toBe(200)
    const doc = byTrigger(await deliver(from), 'release')[0]!.json as Doc
    expect(doc.release).toMatchObject({
      id: 'production@4.0.0',
      versionCode: '42',
      bundleVersion: '4.0.0.1',
      releasedBy: 'ci',
      sourceControl: { provider: 'github', revision: 'abc123', revisionUrl: 'https://github.com/acme/shop/commit/abc123' },
      metadata: { team: 'web' },
    })
  })

  it('a burst of 1,200 events of a new error sends one firstException and powerTen at 10, 100 and 1,000', async () => {
    await ctx.request(`/api/webhooks/${webhook.id}`, { method: 'PATCH', token: seeded.user.token, json: { triggers: ['firstException', 'powerTen'] } })
    const from = receiver.received.length
    const events = Array.from({ length: 100 }, () => notifierEvent('BurstError', { app: { version: '1.2.0', releaseStage: 'production' } }))
    for (let i = 0; i < 12; i++) {
      const res = await ctx.app.request('http://errata.test/notify', {
        method: 'POST',
        headers: { 'Bugsnag-Api-Key': seeded.project.api_key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ payloadVersion: '5', events }),
      })
      expect(res.status).toBe(200)
    }
    await ctx.deps.ingestWriter.indexed()
    const got = await deliver(from)
    expect(byTrigger(got, 'firstException')).toHaveLength(1)
    // The job runner delivers two at a time: they arrive in either order.
    expect(byTrigger(got, 'powerTen').map((r) => (r.json.trigger as { message: string }).message).sort()).toEqual(
      ['Error has occurred 10 times', 'Error has occurred 100 times', 'Error has occurred 1,000 times'].sort(),
    )
    expect(got).toHaveLength(4)
  })
})

describe('delivery', () => {
  it('retries after 5xx with the same delivery id, then succeeds; the log shows each attempt', async () => {
    await ctx.request(`/api/webhooks/${webhook.id}`, { method: 'PATCH', token: seeded.user.token, json: { triggers: ['exception'] } })
    const from = receiver.received.length
    receiver.respondWith(500, 503)
    await notify([richEvent('RetryError')])
    const got = await deliver(from)
    expect(got).toHaveLength(3)
    expect(new Set(got.map((r) => r.headers['x-errata-delivery'])).size).toBe(1)
    expect(new Set(got.map((r) => r.body)).size).toBe(1)
    const deliveries = (await (await ctx.request(`/api/webhooks/${webhook.id}/deliveries`, { token: member.token })).json()) as WebhookDelivery[]
    const delivery = deliveries.find((d) => d.id === got[0]!.headers['x-errata-delivery'])!
    expect(delivery).toMatchObject({ state: 'delivered', attempts: 3, last_status: 200, last_error: null, trigger: 'exception' })
    expect(delivery.attempt_log.map((a) => [a.status, a.error, a.response_excerpt])).toEqual([
      [500, 'HTTP 500', 'failure 500'],
      [503, 'HTTP 503', 'failure 503'],
      [200, null, 'ok'],
    ])
    expect(delivery.payload).toEqual(got[2]!.json)
    const hook = (await (await ctx.request(`/api/webhooks/${webhook.id}`, { token: member.token })).json()) as Webhook
    expect(hook.failing_since).toBeNull()
  })

  it('a 4xx fails at once; redeliver sends the same document under the same id', async () => {
    const from = receiver.received.length
    receiver.respondWith(410)
    await notify([richEvent('GoneError')])
    const [failedRequest] = await deliver(from)
    const id = String(failedRequest!.headers['x-errata-delivery'])
    const [row] = await ctx.deps.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id))
    expect(row).toMatchObject({ state: 'failed', attempts: 1, lastStatus: 410 })
    const hook = (await (await ctx.request(`/api/webhooks/${webhook.id}`, { token: member.token })).json()) as Webhook
    expect(hook.failing_since).not.toBeNull()

    expect((await ctx.request(`/api/webhooks/${webhook.id}/deliveries/${id}/redeliver`, { method: 'POST', token: member.token })).status).toBe(403)
    const res = await ctx.request(`/api/webhooks/${webhook.id}/deliveries/${id}/redeliver`, { method: 'POST', token: seeded.user.token })
    expect(res.status).toBe(202)
    const again = await deliver(from + 1)
    expect(again).toHaveLength(1)
    expect(again[0]!.headers['x-errata-delivery']).toBe(id)
    expect(again[0]!.body).toBe(failedRequest!.body)
    const [after] = await ctx.deps.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id))
    expect(after).toMatchObject({ state: 'delivered', attempts: 2, lastStatus: 200 })
    expect((await ctx.request(`/api/webhooks/${webhook.id}/deliveries/nope/redeliver`, { method: 'POST', token: seeded.user.token })).status).toBe(404)
  })

  it('sends a test notification, even while disabled; a disabled webhook sends nothing else', async () => {
    await ctx.request(`/api/webhooks/${webhook.id}`, { method: 'PATCH', token: seeded.user.token, json: { enabled: false } })
    const from = receiver.received.length
    await notify([richEvent('QuietError')])
    const res = await ctx.request(`/api/webhooks/${webhook.id}/test`, { method: 'POST', token: seeded.user.token })
    expect(res.status).toBe(201)
    const queued = (await res.json()) as WebhookDelivery
    expect(queued.state).toBe('pending')
    expect(queued.test).toBe(true)
    const got = await deliver(from)
    expect(got).toHaveLength(1)
    const doc = got[0]!.json as Doc
    expect(doc.trigger).toEqual({ type: 'exception', message: 'This is a test notification from Errata.' })
    expect(doc.user).toEqual({ id: seeded.user.id, name: 'Hook Admin', email: seeded.user.email })
    expect(doc).not.toHaveProperty('error')
    expect(got[0]!.headers['x-errata-delivery']).toBe(queued.id)
    // The log marks the test, and only the test: the deliveries triggers sent before are not.
    const log = (await (await ctx.request(`/api/webhooks/${webhook.id}/deliveries`, { token: seeded.user.token })).json()) as WebhookDelivery[]
    expect(log.filter((delivery) => delivery.test).map((delivery) => delivery.id)).toEqual([queued.id])
    expect(log.length).toBeGreaterThan(1)
  })

  it('filters narrow the filtered triggers', async () => {
    await ctx.request(`/api/webhooks/${webhook.id}`, {
      method: 'PATCH',
      token: seeded.user.token,
      json: { enabled: true, triggers: ['exception'], filters: { 'event.class': [{ type: 'eq', value: 'WantedError' }] } },
    })
    const from = receiver.received.length
    await notify([richEvent('UnwantedError'), richEvent('WantedError'), richEvent('UnwantedError')])
    const got = await deliver(from)
    expect(got.map((r) => (r.json.error as { exceptionClass: string }).exceptionClass)).toEqual(['WantedError'])
  })

  it("a batch's notifications are one job until the runner expands them; expanding again adds nothing", async () => {
    await ctx.request(`/api/webhooks/${webhook.id}`, { method: 'PATCH', token: seeded.user.token, json: { triggers: ['exception'], filters: {} } })
    const from = receiver.received.length
    await notify([richEvent('ExpandedError'), richEvent('ExpandedError')])
    // Indexed: the notifications are durable as one queued job, and no delivery row exists yet.
    const queued = await db().select().from(jobs).where(and(eq(jobs.kind, WEBHOOK_EXPAND_JOB), eq(jobs.state, 'queued')))
    expect(queued).toHaveLength(1)
    const payload = queued[0]!.payload as ExpandJobPayload
    expect(payload.deliveries.map((d) => [d.webhookId, d.trigger])).toEqual([
      [webhook.id, 'exception'],
      [webhook.id, 'exception'],
    ])
    expect(await db().select().from(webhookDeliveries).where(inArray(webhookDeliveries.id, payload.deliveries.map((d) => d.id)))).toEqual([])
    const got = await deliver(from)
    expect(got.map((r) => r.headers['x-errata-delivery']).sort()).toEqual(payload.deliveries.map((d) => d.id).sort())
    // A run cut off after its commit runs again: the deliveries it wrote are not written twice.
    const deliverJobs = async () => (await db().select().from(jobs).where(eq(jobs.kind, 'webhook.deliver'))).length
    const before = await deliverJobs()
    expect(await expandDeliveries(db(), sql`SELECT id, payload FROM jobs WHERE id = ${queued[0]!.id}`)).toEqual({ held: true, written: 0 })
    expect(await deliverJobs()).toBe(before)
    expect(await db().select().from(webhookDeliveries).where(inArray(webhookDeliveries.id, payload.deliveries.map((d) => d.id)))).toHaveLength(2)
  })

  it('an event deleted before its notification is expanded is never sent; a deleted webhook sends nothing', async () => {
    const from = receiver.received.length
    await notify([richEvent('DoomedError'), richEvent('KeptError')])
    const [doomed] = await db().select({ id: events.id }).from(events).where(and(eq(events.projectId, seeded.project.id), eq(events.errorClass, 'DoomedError')))
    expect((await ctx.request(`/api/events/${doomed!.id}`, { method: 'DELETE', token: seeded.user.token })).status).toBe(204)
    const got = await deliver(from)
    expect(got.map((r) => (r.json.error as { exceptionClass: string }).exceptionClass)).toEqual(['KeptError'])
    expect(await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, doomed!.id))).toEqual([])

    const other = (await (
      await ctx.request(hooksPath(), { method: 'POST', token: seeded.user.token, json: { url: `${receiver.url}/gone`, triggers: ['exception'] } })
    ).json()) as Webhook
    await notify([richEvent('OrphanError')])
    expect((await ctx.request(`/api/webhooks/${other.id}`, { method: 'DELETE', token: seeded.user.token })).status).toBe(204)
    const after = await deliver(from)
    expect(after.map((r) => r.path)).not.toContain('/hooks/errata/gone')
    expect(await db().select().from(jobs).where(and(eq(jobs.kind, WEBHOOK_EXPAND_JOB), eq(jobs.state, 'failed')))).toEqual([])
  })

  it('a privacy deletion that completes before the notifications are expanded leaves its events unsent', async () => {
    const from = receiver.received.length
    await notify([richEvent('ErasedError', { user: { id: 'erase-me' } }), richEvent('SparedError', { user: { id: 'keep-me' } })])
    const params = filtersToParams({ 'user.id': [{ type: 'eq', value: 'erase-me' }] }, new URLSearchParams({ skip_confirmation: 'true' }))
    const res = await ctx.request(`/api/organizations/${seeded.organization.id}/event_data_deletions?${params}`, { method: 'POST', token: seeded.user.token })
    expect(res.status).toBe(201)
    const { id } = (await res.json()) as { id: string }
    // The privacy jobs alone first: the deletion completes while the batch's notifications wait.
    const { database, logger, privacy } = ctx.deps
    const privacyOnly = new JobRunner({ database, logger, handlers: privacyJobHandlers(database.db, privacy!, logger) })
    await privacyOnly.drain()
    await privacyOnly.stop()
    const deletion = (await (await ctx.request(`/api/organizations/${seeded.organization.id}/event_data_deletions/${id}`, { token: seeded.user.token })).json()) as {
      status: string
    }
    expect(deletion.status).toBe('COMPLETED')
    const got = await deliver(from)
    expect(got.map((r) => (r.json.error as { exceptionClass: string }).exceptionClass)).toEqual(['SparedError'])
  })

  it('deleting an event removes the deliveries that carry its data', async () => {
    const [row] = await ctx.deps.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.trigger, 'exception')).limit(1)
    const res = await ctx.request(`/api/events/${row!.eventId}`, { method: 'DELETE', token: seeded.user.token })
    expect(res.status).toBe(204)
    expect(await ctx.deps.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, row!.id))).toEqual([])
  })

  it('deleting a webhook removes it and its deliveries', async () => {
    expect((await ctx.request(`/api/webhooks/${webhook.id}`, { method: 'DELETE', token: seeded.user.token })).status).toBe(204)
    expect((await ctx.request(`/api/webhooks/${webhook.id}`, { token: seeded.user.token })).status).toBe(404)
    expect(await ctx.deps.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhook.id))).toEqual([])
  })
})
