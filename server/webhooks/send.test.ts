// One delivery attempt against receivers that misbehave: each attempt ends by its total deadline
// and reads at most its byte cap, whatever the receiver does, and lets go when it is aborted.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseAllowList } from '../outbound/allow-list.ts'
import { startSlowServer, type SlowServer } from '../test-support/slow-server.ts'
import { sendDelivery, type SendOptions } from './send.ts'

let server: SlowServer
beforeEach(async () => {
  server = await startSlowServer()
})
afterEach(() => server.close())

const delivery = { id: 'd-1', body: '{"trigger":{"type":"exception"}}', secret: 's', trigger: 'exception' }
const options = (more: Partial<SendOptions> = {}): SendOptions => ({ allow: parseAllowList('127.0.0.1'), timeoutMs: 300, maxResponseBytes: 4096, ...more })

describe('sendDelivery', () => {
  it('gives up on a receiver that drips its answer at the total deadline, not after it stops sending', { timeout: 30_000 }, async () => {
    const outcome = await sendDelivery(server.url('/drip'), delivery, new Date(), options())
    expect(outcome).toMatchObject({ status: null, error: 'no complete answer within 300 ms', responseExcerpt: null, retryable: true })
    await server.closedBy('/drip')
  })

  it('reads at most its byte cap of an answer without end, and keeps the status', { timeout: 30_000 }, async () => {
    const outcome = await sendDelivery(server.url('/huge'), delivery, new Date(), options({ timeoutMs: 20_000 }))
    expect(outcome).toMatchObject({ status: 200, error: null, responseExcerpt: 'y'.repeat(1000) })
    await server.closedBy('/huge')
    expect(server.hugeWritten()).toBeLessThan(1024 ** 3)
  })

  it('when aborted (the job runner stopping), rejects with the reason and closes the connection', { timeout: 30_000 }, async () => {
    const controller = new AbortController()
    const sending = sendDelivery(server.url('/drip'), delivery, new Date(), options({ timeoutMs: 600_000, signal: controller.signal }))
    const rejected = expect(sending).rejects.toThrow('stopping')
    while (!server.received.includes('/drip')) await new Promise((resolve) => setTimeout(resolve, 10))
    controller.abort(new Error('stopping'))
    await rejected
    await server.closedBy('/drip')
  })
})
