// Slow clients cannot take the server from everyone else: connections are bounded per client
// address (past its share a connection is closed at once) and in all (past the bound a new
// connection replaces the one that has waited longest without a request in progress), request
// headers must arrive within a bound, and a slow /notify body is cut with 408 after a few seconds
// instead of being held for minutes.
import { request } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { createLimitedServer } from './connection-limits.ts'
import { notifierEvent } from '../test-support/ingest.ts'
import { seedProject } from '../test-support/seed.ts'
import { createTestContext, listen, type TestContext } from '../test-support/test-app.ts'

let ctx: TestContext
let server: Awaited<ReturnType<typeof listen>>
let port: number
let apiKey: string
const sockets: Socket[] = []

beforeAll(async () => {
  ctx = await createTestContext({
    limits: { ...loadConfig({}).limits, connections: 40, connectionsPerAddress: 16, headersTimeoutMs: 120_000, ingestBodyTimeoutMs: 3000 },
  })
  apiKey = (await seedProject(ctx, { project: 'Slow clients' })).project.api_key
  server = await listen(ctx)
  port = Number(new URL(server.url).port)
})
afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  await server.close()
  await ctx.close()
})

interface SlowClient {
  socket: Socket
  closed: boolean
  received: string
}

/** A connection from `localAddress` (another loopback address is another client) that sends `text` and then nothing. */
function slowClient(localAddress: string, text: string, to = port): Promise<SlowClient> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: to, localAddress })
    sockets.push(socket)
    const client: SlowClient = { socket, closed: false, received: '' }
    socket.on('data', (chunk: Buffer) => (client.received += chunk.toString()))
    socket.on('close', () => (client.closed = true))
    socket.on('error', () => undefined)
    socket.once('connect', () => {
      socket.write(text)
      resolve(client)
    })
    socket.once('error', reject)
  })
}

/** `count` slow clients from `localAddress`, connected one after the other (the server sees them in this order). */
async function slowClients(localAddress: string, count: number, text = SLOW_HEADERS): Promise<SlowClient[]> {
  const clients: SlowClient[] = []
  for (let i = 0; i < count; i++) clients.push(await slowClient(localAddress, text))
  return clients
}

/** A request on a connection of its own, closed after the answer (fetch would keep it open, counted by the server). */
function statusOf(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method, headers, agent: false }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const until = async (condition: () => boolean, what: string) => {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 30_000) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Headers started and never finished: the connection stays open as long as the server lets it. */
const SLOW_HEADERS = 'GET /healthz HTTP/1.1\r\nHost: errata.test\r\nX-Slow: '
/** A whole request on a kept-alive connection. */
const HEALTH_REQUEST = 'GET /healthz HTTP/1.1\r\nHost: errata.test\r\n\r\n'
const answers = (client: SlowClient) => client.received.match(/HTTP\/1\.1 200 /g)?.length ?? 0

describe('connection limits', () => {
  it('closes connections past the share of one address at once, and keeps serving other clients', async () => {
    const slow = await Promise.all(Array.from({ length: 30 }, () => slowClient('127.0.0.2', SLOW_HEADERS)))
    // 16 stay open (the bound per address); the other 14 are closed at once.
    await until(() => slow.filter((c) => c.closed).length === 14, '14 of 30 slow connections are closed')
    expect(slow.filter((c) => !c.closed)).toHaveLength(16)

    // With the 16 slow ones still open, a client at another address is served as usual: health and ingestion.
    expect(await statusOf('GET', '/healthz')).toBe(200)
    const notify = await statusOf(
      'POST',
      '/notify',
      { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': apiKey },
      JSON.stringify({ events: [notifierEvent('ServedBesideSlowClients')] }),
    )
    expect(notify).toBe(200)
    expect(slow.filter((c) => !c.closed)).toHaveLength(16)

    // Once they go, connections are let in again.
    for (const client of slow) client.socket.destroy()
    await until(() => server.connections.open('127.0.0.2') === 0, 'the server saw the slow connections go')
    const again = await slowClients('127.0.0.2', 10)
    await until(() => server.connections.open('127.0.0.2') === 10, 'new connections from that address are let in')
    expect(again.every((c) => !c.closed)).toBe(true)
    for (const client of again) client.socket.destroy()
    await until(() => server.connections.open() === 0, 'the server saw them go')
  })

  it('when all connections are taken, lets a new one in in place of the one waiting longest, never one with a request in progress', async () => {
    // A request in progress: headers complete, body still arriving (cut with 408 after 3 s).
    const inProgress = await slowClient(
      '127.0.0.7',
      `POST /notify HTTP/1.1\r\nHost: errata.test\r\nContent-Type: application/json\r\nBugsnag-Api-Key: ${apiKey}\r\nContent-Length: 1000\r\n\r\n{"events": [`,
    )
    // 38 slow connections from three addresses, and a client that keeps its connection alive: 40, all there is.
    const first = await slowClients('127.0.0.2', 16)
    const second = await slowClients('127.0.0.3', 16)
    const third = await slowClients('127.0.0.4', 6)
    const keptAlive = await slowClient('127.0.0.5', HEALTH_REQUEST)
    await until(() => answers(keptAlive) === 1, 'the kept-alive client has its answer')
    expect(server.connections.open()).toBe(40)

    // 10 more: each takes the place of the connection that has waited longest (the first address's, in order).
    const newcomers = await slowClients('127.0.0.6', 10)
    await until(() => first.filter((c) => c.closed).length === 10, 'the 10 longest waiting connections are closed')
    await until(() => server.connections.open('127.0.0.6') === 10, 'the newcomers are let in')
    expect(first.slice(0, 10).every((c) => c.closed)).toBe(true)
    expect([...first.slice(10), ...second, ...third, ...newcomers].some((c) => c.closed)).toBe(false)
    expect(server.connections.open()).toBe(40)

    // The client that just had its answer and the request in progress were not cut: the one asks
    // again on the same connection, the other gets its answer (408, its body never comes).
    keptAlive.socket.write(HEALTH_REQUEST)
    await until(() => answers(keptAlive) === 2, 'the kept-alive client has its second answer')
    expect(keptAlive.closed).toBe(false)
    await until(() => inProgress.closed, 'the request in progress is answered')
    expect(inProgress.received).toMatch(/^HTTP\/1\.1 408 /)

    // Another client is served as usual.
    expect(await statusOf('GET', '/healthz')).toBe(200)
    for (const client of [...first, ...second, ...third, ...newcomers, keptAlive]) client.socket.destroy()
    await until(() => server.connections.open() === 0, 'the server saw them go')
  })

  it('answers 408 and closes a connection whose request headers do not arrive in time', async () => {
    const impatient = await listen({ app: ctx.app, deps: { ...ctx.deps, config: { ...ctx.deps.config, limits: { ...ctx.deps.config.limits, headersTimeoutMs: 300 } } } })
    try {
      const to = Number(new URL(impatient.url).port)
      const [halfSent, silent] = await Promise.all([slowClient('127.0.0.8', SLOW_HEADERS, to), slowClient('127.0.0.8', '', to)])
      await until(() => halfSent.closed && silent.closed, 'both connections are closed')
      expect(halfSent.received).toMatch(/^HTTP\/1\.1 408 /)
      expect(silent.received).toMatch(/^HTTP\/1\.1 408 /)
    } finally {
      await impatient.close()
    }
  })

  it('keeps a share of connections per address well below the bound in all, and headers within 10 s, by default', () => {
    expect(loadConfig({}).limits).toMatchObject({ connections: 4096, connectionsPerAddress: 64, headersTimeoutMs: 10_000 })
  })

  it('cuts a /notify body that does not arrive in time with 408 and closes the connection', async () => {
    const client = await slowClient(
      '127.0.0.4',
      `POST /notify HTTP/1.1\r\nHost: errata.test\r\nContent-Type: application/json\r\nBugsnag-Api-Key: ${apiKey}\r\nContent-Length: 1000\r\n\r\n{"events": [`,
    )
    await until(() => client.closed, 'the slow body is cut')
    expect(client.received).toMatch(/^HTTP\/1\.1 408 /)
    expect(client.received).toMatch(/connection: close/i)
    expect(client.received).toContain('{"errors":["the request body did not arrive within 3000 ms"]}')
  })
})

describe('ingestion paths on the server listener', () => {
  it('answers other methods 405 with Allow, with or without a trailing slash', async () => {
    for (const path of ['/notify', '/notify/', '/sessions', '/sessions/', '/notify?apiKey=x']) {
      const res = await fetch(`${server.url}${path}`)
      expect([path, res.status, res.headers.get('Allow')]).toEqual([path, 405, 'OPTIONS, POST'])
    }
    const posted = await fetch(`${server.url}/notify/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': apiKey },
      body: JSON.stringify({ events: [notifierEvent('TrailingSlash')] }),
    })
    expect(posted.status).toBe(200)
    expect((await ctx.app.request('http://errata.test/notify/')).status).toBe(405)
  })
})

describe('stopping', () => {
  it('cuts a connection whose request is still in progress at the grace period\'s end, and says how many it cut', async () => {
    const limited = createLimitedServer((req, res) => {
      if (req.url === '/hang') return // never answered
      res.end('ok')
    }, { connections: 10, connectionsPerAddress: 10, headersTimeoutMs: 10_000 })
    await new Promise<void>((resolve) => limited.server.listen(0, '127.0.0.1', resolve))
    const { port: limitedPort } = limited.server.address() as { port: number }
    const hanging = await slowClient('127.0.0.1', 'GET /hang HTTP/1.1\r\nHost: x\r\n\r\n', limitedPort)
    await expect.poll(() => limited.open()).toBe(1)
    expect(await limited.close(200)).toEqual({ cut: 1 })
    await expect.poll(() => hanging.closed).toBe(true)
  })

  it('cuts nothing when every request was answered in time', async () => {
    const limited = createLimitedServer((_req, res) => res.end('ok'), { connections: 10, connectionsPerAddress: 10, headersTimeoutMs: 10_000 })
    await new Promise<void>((resolve) => limited.server.listen(0, '127.0.0.1', resolve))
    const { port: limitedPort } = limited.server.address() as { port: number }
    const client = await slowClient('127.0.0.1', 'GET / HTTP/1.1\r\nHost: x\r\n\r\n', limitedPort)
    await expect.poll(() => client.received).toContain('ok')
    expect(await limited.close(5_000)).toEqual({ cut: 0 })
  })
})
