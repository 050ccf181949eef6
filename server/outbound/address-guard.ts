// The guard on outgoing requests to addresses event data or users name (source maps fetched by
// URL, webhook targets): no loopback, link-local or private address unless the operator's
// allow-list names it, checked on the address actually connected to, after DNS, at connect time
// (outbound-request.ts gives every connection guardedLookup). An IPv6 address that carries an
// IPv4 address (::ffff:127.0.0.1, ::127.0.0.1, 64:ff9b::10.0.0.1, 2002:7f00:1::) is judged by
// the IPv4 address it reaches.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'
import type { AllowListEntry } from './allow-list.ts'

type Address = ipaddr.IPv4 | ipaddr.IPv6

/** Refused before anything is sent (an address the guard refuses, a URL that is not http or https): trying again will not help. */
export class RefusedRequestError extends Error {
  code = 'ERR_REQUEST_REFUSED'
}

const ipv4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])

/**
 * The IPv4 address an IPv6 address reaches, for the forms that carry one: IPv4-mapped
 * (::ffff:0:0/96), IPv4-compatible (::/96, but :: and ::1), IPv4-translated (::ffff:0:0:0/96),
 * NAT64's well-known prefix (64:ff9b::/96) and 6to4 (2002::/16). Other IPv6 addresses: null.
 */
function carriedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const [a, b, c, d, e, f, g, h] = address.parts as [number, number, number, number, number, number, number, number]
  const zeroTo = (parts: number[]) => parts.every((part) => part === 0)
  if (zeroTo([a, b, c, d, e]) && f === 0xffff) return ipv4(g, h)
  if (zeroTo([a, b, c, d, e, f]) && !(g === 0 && h <= 1)) return ipv4(g, h)
  if (zeroTo([a, b, c]) && d === 0xffff && zeroTo([e, f])) return ipv4(g, h)
  if (a === 0x64 && b === 0xff9b && zeroTo([c, d, e, f])) return ipv4(g, h)
  if (a === 0x2002) return ipv4(b, c)
  return null
}

/** The address a connection to `text` reaches: the IPv4 address an IPv6 form carries, else itself; null when not an address. */
function reachedAddress(text: string): Address | null {
  if (!ipaddr.isValid(text)) return null
  const parsed = ipaddr.parse(text)
  return parsed.kind() === 'ipv6' ? (carriedIPv4(parsed as ipaddr.IPv6) ?? parsed) : parsed
}

/** True for addresses on the public internet; loopback, link-local, private, multicast and other special ranges are not. */
export function isPublicAddress(address: string): boolean {
  return reachedAddress(address)?.range() === 'unicast'
}

function inNetwork(address: Address, [network, bits]: [Address, number]): boolean {
  return address.kind() === network.kind() && address.match(network, bits)
}

/**
 * Whether a request may connect to `address` (as resolved) for the URL host `host`: a public
 * address, or one the allow-list names (by host name, or by a network holding the address as
 * written or the IPv4 address it carries).
 */
export function mayConnect(allow: readonly AllowListEntry[], host: string, address: string): boolean {
  const reached = reachedAddress(address)
  if (!reached) return false
  if (reached.range() === 'unicast') return true
  const written = ipaddr.parse(address)
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '')
  return allow.some((entry) => ('host' in entry ? entry.host === name : inNetwork(reached, entry.network) || inNetwork(written, entry.network)))
}

/**
 * The refusal for a URL host that is an IP address the allow-list does not let through, or
 * null (host names are checked by guardedLookup when they resolve). `setting` names the
 * environment variable that allows it.
 */
export function refusedLiteral(allow: readonly AllowListEntry[], hostname: string, setting: string): RefusedRequestError | null {
  const host = hostname.replace(/^\[(.*)\]$/, '$1')
  if (isIP(host) && !mayConnect(allow, host, host)) {
    return new RefusedRequestError(`${host} is a loopback, link-local or private address (allow it with ${setting})`)
  }
  return null
}

/** A DNS lookup for http(s).request that refuses addresses the allow-list does not let through. */
export function guardedLookup(allow: readonly AllowListEntry[], host: string, setting: string): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 4)
      const allowed = addresses.filter((entry) => mayConnect(allow, host, entry.address))
      if (allowed.length === 0) {
        const refused = addresses[0]?.address ?? hostname
        return callback(new RefusedRequestError(`${host} resolves to ${refused}, a loopback, link-local or private address (allow it with ${setting})`), '', 4)
      }
      if (lookupOptions.all) (callback as unknown as (e: null, list: LookupAddress[]) => void)(null, allowed)
      else callback(null, allowed[0]!.address, allowed[0]!.family)
    })
  }
}
