// Webhook deliveries to receivers that never finish answering, as the job runner runs them: they
// hold neither the other jobs (privacy requests) nor a stopping process, and a stop hands them back.
import { eq } from 'drizzle-orm'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { filtersToParams } from '../../contract/filters.ts'
import type { Webhook, WebhookDelivery } from '../../contract/webhooks.ts'
import { jobs, webhookDeliveries } from '../db/schema.ts'
import { JobRunner } from '../jobs/job-runner.ts'
import { parseAllowList } from '../outbound/allow-list.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { startSlowServer, type SlowServer } from '../test-support/slow-server.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'
import { startWebhookReceiver } from '../test-support/webhook-receiver.ts'
import { webhookJobHandlers } from './webhook.jobs.ts'

let ctx: TestContext
let seeded: SeededProject
let slow: SlowServer

beforeEach(async () => {
  slow = await startSlowServer()
  // Deliveries as long as they like: only a stop (or the test's end) ends them.
  ctx = await createTestContext({ webhookAllow: parseAllowList('127.0.0.1') }, { webhooks: { timeoutMs: 600_000 } })
  seeded = await seedProject(ctx, { user: 'Hook Admin', organization: 'Slow Hook Org', project: 'Slow' })
})
afterEach(async () => {
  await ctx?.close()
  await slow?.close()
})

async function until(condition: () => boolean | Promise<boolean>, failure: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(failure())
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function webhookTo(url: string): Promise<Webhook> {
  const res = await ctx.request(`/api/projects/${seeded.project.id}/webhooks`, { method: 'POST', token: seeded.user.token, json: { url, triggers: ['exception'] } })
  expect(res.status).toBe(201)
  return (await res.json()) as Webhook
}

async function testDelivery(hook: Webhook): Promise<WebhookDelivery> {
  const res = await ctx.request(`/api/webhooks/${hook.id}/test`, { method: 'POST', token: seeded.user.token })
  expect(res.status).toBe(201)
  return (await res.json()) as WebhookDelivery
}

describe('webhook deliveries in flight', () => {
  it('do not hold privacy jobs back, however many are waiting on slow receivers', { timeout: 120_000 }, async () => {
    const hook = await webhookTo(slow.url('/silent'))
    for (let i = 0; i < 6; i++) await testDelivery(hook)
    ctx.jobs.start()
    await until(
      () => slow.received.length >= 2,
      () => `the receiver got ${slow.received.length} deliveries`,
    )
    const params = filtersToParams({ 'user.id': [{ type: 'eq', value: 'nobody' }] }, new URLSearchParams({ skip_confirmation: 'true' }))
    const org = `/api/organizations/${seeded.organization.id}/event_data_deletions`
    const res = await ctx.request(`${org}?${params}`, { method: 'POST', token: seeded.user.token })
    expect(res.status).toBe(201)
    const { id } = (await res.json()) as { id: string }
    let status = ''
    await until(
      async () => (status = ((await (await ctx.request(`${org}/${id}`, { token: seeded.user.token })).json()) as { status: string }).status) === 'COMPLETED',
      () => `the deletion is ${status} while deliveries wait on a slow receiver`,
    )
  })

  it('are aborted by a stop and handed back, unrecorded, for the next start to send', { timeout: 120_000 }, async () => {
    const hook = await webhookTo(slow.url('/drip'))
    const delivery = await testDelivery(hook)
    ctx.jobs.start()
    await until(
      () => slow.received.includes('/drip'),
      () => 'the delivery never reached the receiver',
    )
    await ctx.jobs.stop()
    await slow.closedBy('/drip')
    const db = ctx.deps.database.db
    const [job] = await db.select().from(jobs).where(eq(jobs.id, delivery.id))
    expect(job).toMatchObject({ state: 'queued', attempts: 0 })
    const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery.id))
    expect(row).toMatchObject({ state: 'pending', attempts: 0 })

    // The next start sends it (to a receiver that answers by then).
    const receiver = await startWebhookReceiver()
    try {
      expect((await ctx.request(`/api/webhooks/${hook.id}`, { method: 'PATCH', token: seeded.user.token, json: { url: receiver.url } })).status).toBe(200)
      const { database, logger, webhooks } = ctx.deps
      const next = new JobRunner({ database, logger, handlers: webhookJobHandlers(database.db, webhooks!, logger) })
      await next.drain()
      await next.stop()
      expect(receiver.received.map((r) => r.headers['x-errata-delivery'])).toEqual([delivery.id])
      const [after] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery.id))
      expect(after).toMatchObject({ state: 'delivered', attempts: 1 })
    } finally {
      await receiver.close()
    }
  })
})
