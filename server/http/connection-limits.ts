import type { Server } from 'node:http'
import type { Socket } from 'node:net'

export interface ConnectionLimits {
  /** Open connections in all. */
  connections: number
  /** Open connections from one client address. */
  connectionsPerAddress: number
}

/**
 * Bounds a server's open connections, in all and per client address: a connection past either
 * bound is closed as soon as it is accepted, before anything is read from it. Without bounds a
 * few clients holding thousands of slow connections would use up the process's file
 * descriptors (and memory), and every other client would be refused. Behind a reverse proxy
 * every connection comes from the proxy's address: the per-address bound must then be at least
 * the proxy's connection pool (docs/operations.md).
 */
export function limitConnections(server: Server, limits: ConnectionLimits): { open(address?: string): number } {
  const perAddress = new Map<string, number>()
  let total = 0
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown'
    const fromAddress = perAddress.get(address) ?? 0
    if (total >= limits.connections || fromAddress >= limits.connectionsPerAddress) {
      socket.destroy()
      return
    }
    total += 1
    perAddress.set(address, fromAddress + 1)
    socket.once('close', () => {
      total -= 1
      const left = (perAddress.get(address) ?? 1) - 1
      if (left === 0) perAddress.delete(address)
      else perAddress.set(address, left)
    })
  })
  return { open: (address) => (address === undefined ? total : (perAddress.get(address) ?? 0)) }
}
