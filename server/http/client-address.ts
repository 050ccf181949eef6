import type { IncomingMessage } from 'node:http'
import { BlockList, isIPv4, isIPv6 } from 'node:net'
import type { Context } from 'hono'

/**
 * The address of the connection a request came on. Behind a reverse proxy that is the
 * proxy's: forwarded-for headers are not read, since any client can write them.
 */
export function clientAddress(c: Context): string {
  // @hono/node-server passes the Node request as env.incoming; app.request() in tests does not.
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  return incoming?.socket.remoteAddress ?? 'unknown'
}

// This machine and private networks (RFC 1918, RFC 4193, link-local): where a reverse proxy
// in front of Errata connects from.
const localNetworks = new BlockList()
for (const [network, prefix] of [['127.0.0.0', 8], ['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['169.254.0.0', 16]] as const) {
  localNetworks.addSubnet(network, prefix, 'ipv4')
}
for (const [network, prefix] of [['::1', 128], ['fc00::', 7], ['fe80::', 10]] as const) localNetworks.addSubnet(network, prefix, 'ipv6')

/** Whether an address is this machine's or a private network's (IPv4-mapped IPv6 included). */
export function isLocalNetworkAddress(address: string): boolean {
  const v4 = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address
  if (isIPv4(v4)) return localNetworks.check(v4, 'ipv4')
  return isIPv6(address) && localNetworks.check(address, 'ipv6')
}
