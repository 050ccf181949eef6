// A real HTTP receiver on 127.0.0.1 for webhook tests: records every request (headers and raw
// body) and answers with the statuses queued by the test (200 once the queue is empty).
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ReceivedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: string
  json: Record<string, unknown>
}

export interface WebhookReceiver {
  url: string
  received: ReceivedRequest[]
  /** The answers that reached a client still connected, in order. */
  answered: { deliveryId: string; status: number }[]
  /** Answers the next requests with these statuses, in order. */
  respondWith(...statuses: number[]): void
  /** The next request is answered only once `until` resolves (to cut off the sender meanwhile). */
  holdNext(until: () => Promise<void>): void
  /** Resolves once `count` requests have arrived in all (polling, no fixed sleep). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>
  close(): Promise<void>
}

export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = []
  const statuses: number[] = []
  const answered: { deliveryId: string; status: number }[] = []
  let hold: (() => Promise<void>) | null = null
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      let json: Record<string, unknown> = {}
      try {
        json = JSON.parse(body) as Record<string, unknown>
      } catch {
        // Recorded as received; the test decides.
      }
      received.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body, json })
      const answer = () => {
        if (request.socket.destroyed) return
        const status = statuses.shift() ?? 200
        answered.push({ deliveryId: String(request.headers['x-errata-delivery']), status })
        response.writeHead(status, { 'content-type': 'text/plain' })
        response.end(status < 300 ? 'ok' : `failure ${status}`)
      }
      if (hold && statuses.length === 0) {
        const wait = hold
        hold = null
        void wait().then(answer)
      } else answer()
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const address = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${address.port}/hooks/errata`,
    received,
    answered,
    holdNext: (until) => (hold = until),
    respondWith: (...next) => statuses.push(...next),
    async waitFor(count, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`the receiver got ${received.length} of ${count} requests`)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      return received
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
