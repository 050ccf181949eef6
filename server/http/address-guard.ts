// The guard on outgoing requests to addresses event data or users name (source maps fetched by
// URL, webhook targets): no loopback, link-local or private address unless the operator's
// allow-list names it, checked on the address actually connected to, after DNS.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import { mayConnect, type FetchAllowEntry } from '../symbolication/fetch-allow.ts'

export class RefusedAddressError extends Error {
  code = 'ERR_ADDRESS_REFUSED'
}

/**
 * The refusal for a URL host that is an IP address the allow-list does not let through, or
 * null (host names are checked by guardedLookup when they resolve). `setting` names the
 * environment variable that allows it.
 */
export function refusedLiteral(allow: readonly FetchAllowEntry[], hostname: string, setting: string): RefusedAddressError | null {
  const host = hostname.replace(/^\[(.*)\]$/, '$1')
  if (isIP(host) && !mayConnect(allow, host, host)) {
    return new RefusedAddressError(`${host} is a loopback, link-local or private address (allow it with ${setting})`)
  }
  return null
}

/** A DNS lookup for http(s).request that refuses addresses the allow-list does not let through. */
export function guardedLookup(allow: readonly FetchAllowEntry[], host: string, setting: string): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 4)
      const allowed = addresses.filter((entry) => mayConnect(allow, host, entry.address))
      if (allowed.length === 0) {
        const refused = addresses[0]?.address ?? hostname
        return callback(new RefusedAddressError(`${host} resolves to ${refused}, a loopback, link-local or private address (allow it with ${setting})`), '', 4)
      }
      if (lookupOptions.all) (callback as unknown as (e: null, list: LookupAddress[]) => void)(null, allowed)
      else callback(null, allowed[0]!.address, allowed[0]!.family)
    })
  }
}
