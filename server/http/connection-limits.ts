import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

export interface ConnectionLimits {
  /** Open connections in all. */
  connections: number
  /** Open connections from one client address. */
  connectionsPerAddress: number
  /** How long a request's headers may take to arrive (from its first byte, or from connecting) before 408. */
  headersTimeoutMs: number
}

/** An HTTP server that bounds its connections and stops without cutting requests. */
export interface LimitedServer {
  readonly server: Server
  /** Open connections in all, or from one client address. */
  open(address?: string): number
  /**
   * Answers requests in progress, and for up to a second new ones, with `Connection: close`; then
   * stops accepting connections and closes each one once it has no request in progress. Whatever
   * is left after `graceMs` is cut: resolves with how many connections were.
   */
  close(graceMs: number): Promise<{ cut: number }>
}

/** How long a closing server still answers new requests (with `Connection: close`) before it closes idle connections. */
const CLOSE_LINGER_MS = 1000

interface Connection {
  address: string
  /** Requests whose headers arrived and whose response is not finished. */
  requests: number
}

/**
 * An HTTP server for `handler` whose connections are bounded, in all and per client address, so
 * that a few clients holding thousands of slow connections can neither use up the process's file
 * descriptors nor keep other clients out (docs/operations.md, "Connections and slow clients"):
 *
 * - a connection from an address that has its share open is closed as soon as it is accepted;
 * - when all are taken, a new connection takes the place of the one that has waited longest
 *   without a request in progress (its headers not complete yet, or kept alive idle since its
 *   last answer): a request in progress is never cut, and a client that just got an answer is the
 *   last to go; when every connection has a request in progress, the new one is closed;
 * - request headers must arrive within `headersTimeoutMs`, or the answer is 408.
 *
 * Behind a reverse proxy every connection comes from the proxy's address: the per-address bound
 * must then be at least the proxy's connection pool.
 */
export function createLimitedServer(handler: RequestListener, limits: ConnectionLimits): LimitedServer {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      // Node checks the headers timeout on this interval (30 s by default, which would let slow
      // headers stay that much longer).
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
      // The whole request, body included (source map uploads are large): Node's default.
      requestTimeout: 300_000,
    },
    handler,
  )
  // Node closes an idle kept-alive connection after 5 s, which races with a client sending its
  // next request on it (ECONNRESET, and an event lost by a notifier that does not retry).
  // Proxies and HTTP clients keep idle connections up to a minute; outlast them.
  server.keepAliveTimeout = 65_000

  const connections = new Map<Socket, Connection>()
  const perAddress = new Map<string, number>()
  // Connections without a request in progress, in the order they started waiting (Set keeps
  // insertion order): the first is the one a new connection replaces when all are taken.
  const waiting = new Set<Socket>()
  const inProgress = new Set<ServerResponse>()
  let closing = false

  const forget = (socket: Socket) => {
    const connection = connections.get(socket)
    if (!connection) return
    connections.delete(socket)
    waiting.delete(socket)
    const left = (perAddress.get(connection.address) ?? 1) - 1
    if (left === 0) perAddress.delete(connection.address)
    else perAddress.set(connection.address, left)
  }

  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown'
    if ((perAddress.get(address) ?? 0) >= limits.connectionsPerAddress) return void socket.destroy()
    if (connections.size >= limits.connections) {
      const longestWaiting = waiting.values().next()
      if (longestWaiting.done) return void socket.destroy()
      forget(longestWaiting.value)
      longestWaiting.value.destroy()
    }
    connections.set(socket, { address, requests: 0 })
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1)
    waiting.add(socket)
    socket.once('close', () => forget(socket))
  })

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket
    const connection = connections.get(socket)
    if (!connection) return
    connection.requests += 1
    waiting.delete(socket)
    inProgress.add(response)
    if (closing) response.setHeader('Connection', 'close')
    response.once('close', () => {
      inProgress.delete(response)
      connection.requests -= 1
      if (connection.requests > 0 || socket.destroyed || !connections.has(socket)) return
      waiting.add(socket)
      // An answer whose headers were sent before the server began to close keeps its connection
      // alive: close it now that it is idle.
      if (closing) socket.end()
    })
  })

  return {
    server,
    open: (address) => (address === undefined ? connections.size : (perAddress.get(address) ?? 0)),
    close: (graceMs) =>
      new Promise<{ cut: number }>((resolve) => {
        closing = true
        let cut = 0
        for (const response of inProgress) if (!response.headersSent) response.setHeader('Connection', 'close')
        const cutOff = setTimeout(() => {
          cut = connections.size
          server.closeAllConnections()
        }, graceMs)
        // For a moment the server still reads and answers, every answer now with `Connection:
        // close`: a request a client sent just before the close began, or sends on a connection
        // whose last answer did not say close, is answered rather than reset with a connection
        // closed as idle. Then it stops accepting and closes the connections with no request in
        // progress (Node counts a request whose headers are half sent as one).
        setTimeout(() => {
          server.close(() => {
            clearTimeout(cutOff)
            resolve({ cut })
          })
        }, Math.min(graceMs, CLOSE_LINGER_MS))
      }),
  }
}
