// A real HTTP server on 127.0.0.1 that misbehaves the ways an outbound request must survive
// (server/outbound/request.ts): it answers at once and then drips the body a byte at a
// time, sends a body without end, never answers, or redirects for ever. It records when a client
// lets go of a request, so tests can await that rather than sleep.
import { pipeline } from 'node:stream/promises'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createGzip, constants as zlib } from 'node:zlib'

export interface SlowServer {
  /** `http://127.0.0.1:PORT` + path. Paths: /drip, /drip-gzip, /huge, /silent, /loop (anything after them is ignored). */
  url(path: string): string
  /** Requests received, by path. */
  received: string[]
  /** Resolves once the client has closed `count` connections of requests to `path` (the server never ends them itself). */
  closedBy(path: string, count?: number, timeoutMs?: number): Promise<void>
  /** Body bytes /huge managed to write before its client let go. */
  hugeWritten(): number
  close(): Promise<void>
}

const DRIP_MS = 50

export async function startSlowServer(): Promise<SlowServer> {
  const received: string[] = []
  const closed = new Map<string, number>()
  const timers = new Set<NodeJS.Timeout>()
  let hugeWritten = 0

  const drip = (response: ServerResponse, write: (byte: Buffer) => void) => {
    const timer = setInterval(() => write(Buffer.from('x')), DRIP_MS)
    timers.add(timer)
    response.on('close', () => {
      clearInterval(timer)
      timers.delete(timer)
    })
  }

  const server = createServer((request, response) => {
    const path = '/' + (request.url ?? '/').split('/')[1]!.split('?')[0]!
    received.push(path)
    request.resume()
    response.on('close', () => closed.set(path, (closed.get(path) ?? 0) + 1))
    if (path === '/drip') {
      response.writeHead(200, { 'content-type': 'text/plain' })
      drip(response, (byte) => response.write(byte))
    } else if (path === '/drip-gzip') {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' })
      const gzip = createGzip()
      void pipeline(gzip, response).catch(() => {})
      // Flushed after each byte, so the client gets compressed bytes steadily and never an end.
      drip(response, (byte) => gzip.write(byte, () => gzip.flush(zlib.Z_SYNC_FLUSH)))
    } else if (path === '/huge') {
      response.writeHead(200, { 'content-type': 'text/plain' })
      const chunk = Buffer.alloc(64 * 1024, 'y')
      const pump = () => {
        // Up to 1 GiB: far more than any limit, so only a client that stops reading ends it early.
        while (!response.destroyed && hugeWritten < 1024 ** 3) {
          hugeWritten += chunk.length
          if (!response.write(chunk)) return void response.once('drain', pump)
        }
        if (!response.destroyed) response.end()
      }
      pump()
    } else if (path === '/loop') {
      response.writeHead(302, { location: '/loop' })
      response.end()
    }
    // /silent: never answered.
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: (path) => `${origin}${path}`,
    received,
    async closedBy(path, count = 1, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs
      while ((closed.get(path) ?? 0) < count) {
        if (Date.now() > deadline) throw new Error(`the client let go of ${closed.get(path) ?? 0} of ${count} requests to ${path}`)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },
    hugeWritten: () => hugeWritten,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer)
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
