// kill -9 of Errata while a webhook delivery is being retried: after a restart the delivery
// arrives, under the same X-Errata-Delivery id, and is accepted exactly once. And SIGTERM while a
// delivery's receiver drips its answer: Errata stops within its grace and hands the delivery back.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { startSlowServer, type SlowServer } from '../../server/test-support/slow-server.ts'
import { startWebhookReceiver, type WebhookReceiver } from '../../server/test-support/webhook-receiver.ts'
import { errataProcesses, freePorts, until } from './errata-process.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'errata-webhook-crash-'))
// Ports of this file's own, from the system: one for each test's process.
const [port, stopPort] = (await freePorts(2)) as [number, number]
const base = `http://127.0.0.1:${port}`
const adminToken = 'w'.repeat(40)
const errata = errataProcesses(port, dataDir, {
  ERRATA_ADMIN_EMAIL: 'ops@example.com',
  ERRATA_ADMIN_TOKEN: adminToken,
  // The receiver runs on loopback: allowed by the operator's list, as an internal target would be.
  ERRATA_WEBHOOK_ALLOW: '127.0.0.1',
})
let receiver: WebhookReceiver | undefined
// The SIGTERM test's own process, data directory and port.
const stopDataDir = mkdtempSync(join(tmpdir(), 'errata-webhook-stop-'))
const stopping = errataProcesses(stopPort, stopDataDir, {
  ERRATA_ADMIN_EMAIL: 'ops@example.com',
  ERRATA_ADMIN_TOKEN: adminToken,
  ERRATA_WEBHOOK_ALLOW: '127.0.0.1',
  // As long as it likes: only the stop can end the delivery.
  ERRATA_WEBHOOK_TIMEOUT_MS: '600000',
})
let slow: SlowServer | undefined

afterAll(async () => {
  errata.killAll()
  stopping.killAll()
  await receiver?.close()
  await slow?.close()
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(stopDataDir, { recursive: true, force: true })
})

async function api<T>(path: string, init: RequestInit = {}, origin = base): Promise<T> {
  const res = await fetch(`${origin}/api${path}`, {
    ...init,
    headers: { Authorization: `token ${adminToken}`, 'X-Version': '2', 'Content-Type': 'application/json' },
  })
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path} answered ${res.status}: ${await res.text()}`)
  return (await res.json()) as T
}

describe('webhook deliveries across a crash', () => {
  it('a delivery cut off by kill -9 in the middle of its retry arrives once after a restart', { timeout: 240_000 }, async () => {
    receiver = await startWebhookReceiver()
    // First attempt: 500. The retry (about 30 s later) is held unanswered while Errata is killed.
    let releaseHeld: (() => void) | null = null
    receiver.respondWith(500)
    receiver.holdNext(() => new Promise<void>((resolve) => (releaseHeld = resolve)))
    let server = await errata.start()
    const org = await api<{ id: string }>('/user/organizations', { method: 'POST', body: JSON.stringify({ name: 'Hook Crash Org' }) })
    const project = await api<{ id: string; api_key: string }>(`/organizations/${org.id}/projects`, {
      method: 'POST',
      body: JSON.stringify({ name: 'Hook Crash Project', type: 'node' }),
    })
    const hook = await api<{ id: string }>(`/projects/${project.id}/webhooks`, {
      method: 'POST',
      body: JSON.stringify({ url: receiver.url, triggers: ['firstException'] }),
    })
    const notified = await fetch(`${base}/notify`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': project.api_key },
      body: JSON.stringify({ events: [{ exceptions: [{ errorClass: 'CrashHookError', message: 'boom', stacktrace: [] }] }] }),
    })
    expect(notified.status).toBe(200)

    await receiver.waitFor(2, 120_000)
    await errata.killHard(server)
    releaseHeld!()
    server = await errata.start()
    const received = await receiver.waitFor(3, 120_000)
    type Delivery = { id: string; state: string; attempt_log: { status: number | null }[] }
    let deliveries: Delivery[] = []
    await until(
      async () => (deliveries = await api<Delivery[]>(`/webhooks/${hook.id}/deliveries`)).every((d) => d.state === 'delivered'),
      () => `the delivery did not complete: ${JSON.stringify(deliveries)}`,
    )
    expect(deliveries).toHaveLength(1)
    const ids = new Set(received.map((r) => r.headers['x-errata-delivery']))
    expect([...ids]).toEqual([deliveries[0]!.id])
    // Accepted once: the first attempt failed, the held one was cut off by the kill, the third took.
    expect(receiver.answered.map((a) => a.status)).toEqual([500, 200])
    expect(deliveries[0]!.attempt_log.map((a) => a.status)).toEqual([500, 200])
    expect(new Set(received.map((r) => r.body)).size).toBe(1)
    await errata.stop(server)
  })
})

describe('webhook deliveries across a stop', () => {
  /** SIGTERM, then the exit, within a generous bound (the grace is 10 s for connections and 10 s for jobs). */
  async function terminate(child: ChildProcessWithoutNullStreams): Promise<void> {
    child.kill('SIGTERM')
    await until(
      () => child.exitCode !== null,
      () => 'Errata did not stop within 60 s of SIGTERM while a delivery was in flight',
      undefined,
      60_000,
    )
    expect(child.exitCode).toBe(0)
  }

  it('SIGTERM during a delivery whose receiver drips its answer stops Errata and hands the delivery to the next start', { timeout: 300_000 }, async () => {
    slow = await startSlowServer()
    const origin = `http://127.0.0.1:${stopPort}`
    const call = <T>(path: string, init: RequestInit = {}) => api<T>(path, init, origin)
    let server = await stopping.start()
    const org = await call<{ id: string }>('/user/organizations', { method: 'POST', body: JSON.stringify({ name: 'Hook Stop Org' }) })
    const project = await call<{ id: string }>(`/organizations/${org.id}/projects`, { method: 'POST', body: JSON.stringify({ name: 'Hook Stop Project', type: 'node' }) })
    const hook = await call<{ id: string }>(`/projects/${project.id}/webhooks`, {
      method: 'POST',
      body: JSON.stringify({ url: slow.url('/drip'), triggers: ['firstException'] }),
    })
    const delivery = await call<{ id: string }>(`/webhooks/${hook.id}/test`, { method: 'POST' })
    await until(
      () => slow!.received.includes('/drip'),
      () => 'the delivery never reached the receiver',
    )
    await terminate(server)
    await slow.closedBy('/drip')

    server = await stopping.start()
    await until(
      () => slow!.received.filter((path) => path === '/drip').length === 2,
      () => 'the next start did not send the delivery again',
    )
    type Delivery = { id: string; state: string; attempts: number; attempt_log: unknown[] }
    const [listed] = await call<Delivery[]>(`/webhooks/${hook.id}/deliveries`)
    // The attempt cut off by the stop is not recorded as one.
    expect(listed).toMatchObject({ id: delivery.id, state: 'pending', attempts: 0, attempt_log: [] })
    await terminate(server)
  })
})
