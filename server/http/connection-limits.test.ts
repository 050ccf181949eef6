// Slow clients cannot take the server from everyone else: connections are bounded per client
// address and in all (past a bound a connection is closed at once), and a slow /notify body is
// cut with 408 after a few seconds instead of being held for minutes.
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
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
    limits: { ...loadConfig({}).limits, connections: 150, connectionsPerAddress: 100, ingestBodyTimeoutMs: 500 },
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
function slowClient(localAddress: string, text: string): Promise<SlowClient> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress })
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

const until = async (condition: () => boolean, what: string) => {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 30_000) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Headers started and never finished: the connection stays open as long as the server lets it. */
const SLOW_HEADERS = 'GET /healthz HTTP/1.1\r\nHost: errata.test\r\nX-Slow: '

describe('connection limits', () => {
  it('closes connections past the bound per address and in all, and keeps serving other clients', async () => {
    const slow = await Promise.all(Array.from({ length: 300 }, () => slowClient('127.0.0.2', SLOW_HEADERS)))
    // 100 stay open (the bound per address); the other 200 are closed at once.
    await until(() => slow.filter((c) => c.closed).length === 200, '200 of 300 slow connections are closed')
    expect(slow.filter((c) => !c.closed)).toHaveLength(100)

    // 150 in all: of 60 more from a third address, 50 are let in.
    const more = await Promise.all(Array.from({ length: 60 }, () => slowClient('127.0.0.3', SLOW_HEADERS)))
    await until(() => more.filter((c) => c.closed).length === 10, '10 of 60 more connections are closed')
    expect(more.filter((c) => !c.closed)).toHaveLength(50)
    for (const client of more) client.socket.destroy()
    await until(() => server.connections.open('127.0.0.3') === 0, 'the server saw them go')

    // With the 100 slow ones still open, a client at another address is served as usual: health and ingestion.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
    const notify = await fetch(`${server.url}/notify`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': apiKey },
      body: JSON.stringify({ events: [notifierEvent('ServedBesideSlowClients')] }),
    })
    expect(notify.status).toBe(200)
    expect(slow.filter((c) => !c.closed)).toHaveLength(100)

    // Once they go, connections are let in again.
    for (const client of slow) client.socket.destroy()
    await until(() => server.connections.open('127.0.0.2') === 0, 'the server saw the slow connections go')
    const again = await Promise.all(Array.from({ length: 10 }, () => slowClient('127.0.0.2', SLOW_HEADERS)))
    await until(() => server.connections.open('127.0.0.2') === 10, 'new connections from that address are let in')
    expect(again.every((c) => !c.closed)).toBe(true)
  })

  it('cuts a /notify body that does not arrive in time with 408 and closes the connection', async () => {
    const client = await slowClient(
      '127.0.0.4',
      `POST /notify HTTP/1.1\r\nHost: errata.test\r\nContent-Type: application/json\r\nBugsnag-Api-Key: ${apiKey}\r\nContent-Length: 1000\r\n\r\n{"events": [`,
    )
    await until(() => client.closed, 'the slow body is cut')
    expect(client.received).toMatch(/^HTTP\/1\.1 408 /)
    expect(client.received).toMatch(/connection: close/i)
    expect(client.received).toContain('{"errors":["the request body did not arrive within 500 ms"]}')
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
