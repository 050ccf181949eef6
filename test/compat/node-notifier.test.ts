import Bugsnag, { type Event as BugsnagEvent } from '@bugsnag/node'
import type { ErrorEvent } from '../../contract/events.ts'
import { stabilitySchema } from '../../contract/stability.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedProject } from '../../server/test-support/seed.ts'
import { createTestContext, listen, type TestContext, type TestUser } from '../../server/test-support/test-app.ts'

// The real @bugsnag/node 9 client, sending over real HTTP to the app on an ephemeral port;
// each event is then read back through the Events API.

let ctx: TestContext
let server: { url: string; close(): Promise<void> }
let user: TestUser
let projectId: string
let apiKey: string

beforeAll(async () => {
  ctx = await createTestContext()
  server = await listen(ctx)
  const seeded = await seedProject(ctx, { user: 'Node Compat', organization: 'Node Compat', project: 'Node app' })
  user = seeded.user
  const { project } = seeded
  projectId = project.id
  apiKey = project.api_key
  Bugsnag.start({
    apiKey: project.api_key,
    endpoints: { notify: `${server.url}/notify`, sessions: `${server.url}/sessions` },
    appVersion: '4.5.6',
    releaseStage: 'staging',
    appType: 'worker',
    autoDetectErrors: false,
    autoTrackSessions: false,
    user: { id: 'user-7', email: 'grace@example.com', name: 'Grace Hopper' },
    metadata: { company: { name: 'Acme Inc.', plan: 'enterprise' } },
    featureFlags: [{ name: 'checkout-v2', variant: 'treatment' }, { name: 'dark-mode' }],
    logger: null,
  })
})
afterAll(async () => {
  await server?.close()
  await ctx?.close()
})

/** Notifies and waits for the client's own delivery callback (it fires once the server answered). */
function notify(error: Error, onError?: (event: BugsnagEvent) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    Bugsnag.notify(error, onError, (err) => (err ? reject(err) : resolve()))
  })
}

/** Polls the Events API (bounded) until an event with this message is listed. */
async function findEvent(message: string): Promise<ErrorEvent> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const res = await ctx.request(`/api/projects/${projectId}/events?per_page=100`, { token: user.token })
    expect(res.status).toBe(200)
    const match = (await res.json()).find((e: ErrorEvent) => e.exceptions[0]?.message === message)
    if (match) {
      const detail = await ctx.request(`/api/events/${match.id}`, { token: user.token })
      expect(detail.status).toBe(200)
      return detail.json()
    }
    if (Date.now() > deadline) throw new Error(`event "${message}" did not arrive within 10 s`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

function failInCheckout(): never {
  throw new TypeError('cart total is undefined')
}

describe('@bugsnag/node 9.0.0 against Errata', () => {
  it('delivers a handled error with metadata, user, breadcrumbs, feature flags and app version intact', async () => {
    Bugsnag.leaveBreadcrumb('User clicked checkout', { cartItems: 3 }, 'user')
    let thrown: Error | undefined
    try {
      failInCheckout()
    } catch (err) {
      thrown = err as Error
    }
    await notify(thrown!, (event) => {
      event.context = 'POST /checkout'
      event.addMetadata('order', { id: 'ord_123', total: 42.5 })
      event.addFeatureFlag('new-pricing', 'v3')
    })

    const event = await findEvent('cart total is undefined')
    expect(event.exceptions).toHaveLength(1)
    const exception = event.exceptions[0]!
    expect(exception.class).toBe('TypeError')
    expect(exception.type).toBe('nodejs')
    const top = exception.stacktrace[0]!
    expect(top.method).toBe('failInCheckout')
    expect(top.file).toMatch(/node-notifier\.test\.ts$/)
    expect(Number.isInteger(top.line)).toBe(true)
    expect(Number.isInteger(top.column)).toBe(true)
    expect(exception.stacktrace.length).toBeGreaterThan(1)

    expect(event).toMatchObject({
      severity: 'warning',
      unhandled: false,
      severity_reason: 'handledException',
      context: 'POST /checkout',
      app_version: '4.5.6',
      release_stage: 'staging',
      user_id: 'user-7',
      user: { id: 'user-7', email: 'grace@example.com', name: 'Grace Hopper' },
      app: { version: '4.5.6', releaseStage: 'staging', type: 'worker' },
      notifier: { name: 'Bugsnag Node', version: '9.0.0' },
    })
    expect(event.os_version).toEqual(expect.any(String))
    expect(event.meta_data).toMatchObject({ company: { name: 'Acme Inc.', plan: 'enterprise' }, order: { id: 'ord_123', total: 42.5 } })
    expect(event.breadcrumbs).toContainEqual(
      expect.objectContaining({ name: 'User clicked checkout', type: 'user', meta_data: { cartItems: 3 }, timestamp: expect.any(String) }),
    )
    expect(event.feature_flags).toEqual([
      { name: 'checkout-v2', variant: 'treatment' },
      { name: 'dark-mode', variant: null },
      { name: 'new-pricing', variant: 'v3' },
    ])
  })

  it('splits one error by the grouping discriminator the client sets, and keeps the value on the event', async () => {
    const fail = () => new Error('tenant import failed')
    await notify(fail(), (event) => void event.setGroupingDiscriminator('tenant-a'))
    await notify(fail(), (event) => void event.setGroupingDiscriminator('tenant-b'))
    const deadline = Date.now() + 10_000
    let found: ErrorEvent[] = []
    for (;;) {
      const res = await ctx.request(`/api/projects/${projectId}/events?per_page=100`, { token: user.token })
      found = ((await res.json()) as ErrorEvent[]).filter((e) => e.exceptions[0]?.message === 'tenant import failed')
      if (found.length === 2 || Date.now() > deadline) break
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(found.map((e) => e.grouping_discriminator).sort()).toEqual(['tenant-a', 'tenant-b'])
    expect(new Set(found.map((e) => e.error_id)).size).toBe(2)
  })

  it('delivers a cause chain as several exceptions, outermost first, grouped as one error', async () => {
    const inner = new RangeError('quantity out of range')
    const middle = new TypeError('could not price line item', { cause: inner })
    await notify(new Error('checkout failed', { cause: middle }))
    await notify(new Error('checkout failed', { cause: middle }))

    const event = await findEvent('checkout failed')
    expect(event.exceptions.map((e) => [e.class, e.message])).toEqual([
      ['Error', 'checkout failed'],
      ['TypeError', 'could not price line item'],
      ['RangeError', 'quantity out of range'],
    ])
    for (const exception of event.exceptions) expect(exception.stacktrace.length).toBeGreaterThan(0)

    const deadline = Date.now() + 10_000
    for (;;) {
      const list = await ctx.request(`/api/errors/${event.error_id}/events`, { token: user.token })
      if (list.headers.get('X-Total-Count') === '2') break
      if (Date.now() > deadline) throw new Error('both cause-chain events were not grouped into one error')
      await new Promise((r) => setTimeout(r, 100))
    }
  })

  it('puts the session on an unhandled event, which counts as a crashed session of its release', async () => {
    // A client of its own that tracks sessions and sends their counts every 100 ms
    // (sessionSummaryInterval: a configuration option the client reads but does not declare).
    const client = Bugsnag.createClient({
      apiKey,
      endpoints: { notify: `${server.url}/notify`, sessions: `${server.url}/sessions` },
      appVersion: '7.0.0',
      releaseStage: 'canary',
      autoDetectErrors: false,
      autoTrackSessions: true,
      logger: null,
      ...({ sessionSummaryInterval: 100 } as object),
    })
    const send = (error: Error, unhandled: boolean) =>
      new Promise<void>((resolve, reject) => {
        client.notify(error, (event) => void (event.unhandled = unhandled), (err) => (err ? reject(err) : resolve()))
      })
    client.startSession()
    await send(new Error('session crashed'), true)
    await send(new Error('session crashed again'), true)
    client.startSession()
    await send(new Error('handled in a healthy session'), false)

    const crashedEvent = await findEvent('session crashed')
    const again = await findEvent('session crashed again')
    const healthy = await findEvent('handled in a healthy session')
    expect(typeof crashedEvent.session?.id).toBe('string')
    expect(again.session?.id).toBe(crashedEvent.session?.id)
    expect(healthy.session?.id).not.toBe(crashedEvent.session?.id)

    // Two sessions started, one crashed (twice): 50 % crash-free.
    const deadline = Date.now() + 10_000
    for (;;) {
      const res = await ctx.request(`/api/projects/${projectId}/stability?filters[app.release_stage][][type]=eq&filters[app.release_stage][][value]=canary`, { token: user.token })
      expect(res.status).toBe(200)
      const stability = stabilitySchema.parse(await res.json())
      if (stability.total.sessions >= 2) {
        expect(stability.releases.map((r) => [r.release_stage, r.app_version, r.sessions, r.crashed_sessions, r.crash_free_rate])).toEqual([
          ['canary', '7.0.0', 2, 1, 0.5],
        ])
        break
      }
      if (Date.now() > deadline) throw new Error('the client did not send its session counts within 10 s')
      await new Promise((r) => setTimeout(r, 100))
    }
  })
})
