// kill -9 of Errata while a webhook delivery is being retried: after a restart the delivery
// arrives, under the same X-Errata-Delivery id, and is accepted exactly once.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { startWebhookReceiver, type WebhookReceiver } from '../../server/test-support/webhook-receiver.ts'
import { errataProcesses, until } from './errata-process.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'errata-webhook-crash-'))
const port = 20_000 + Math.floor(Math.random() * 20_000)
const base = `http://127.0.0.1:${port}`
const adminToken = 'w'.repeat(40)
const errata = errataProcesses(port, dataDir, {
  ERRATA_ADMIN_EMAIL: 'ops@example.com',
  ERRATA_ADMIN_TOKEN: adminToken,
  // The receiver runs on loopback: allowed by the operator's list, as an internal target would be.
  ERRATA_WEBHOOK_ALLOW: '127.0.0.1',
})
let receiver: WebhookReceiver | undefined

afterAll(async () => {
  errata.killAll()
  await receiver?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(`${base}/api${path}`, {
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
