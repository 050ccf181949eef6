import ipaddr from 'ipaddr.js'

/** One entry of an allow-list (ERRATA_FETCH_ALLOW, ERRATA_WEBHOOK_ALLOW): a host name, or an address / network (CIDR). */
export type AllowListEntry = { host: string } | { network: [ipaddr.IPv4 | ipaddr.IPv6, number] }

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,62}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}[a-z0-9_])?)*\.?$/i

/**
 * An allow-list setting (ERRATA_FETCH_ALLOW, ERRATA_WEBHOOK_ALLOW): comma-separated host names
 * (`localhost`, `assets.internal`), addresses (`127.0.0.1`, `::1`) and networks (`10.0.0.0/8`,
 * `fd00::/8`) that outbound requests may reach although they are loopback, link-local or
 * private. Throws on an entry that is none of those.
 */
export function parseAllowList(text: string): AllowListEntry[] {
  const entries: AllowListEntry[] = []
  for (const raw of text.split(',')) {
    const item = raw.trim()
    if (item === '') continue
    const bare = item.replace(/^\[(.*)\]$/, '$1')
    if (ipaddr.isValidCIDR(bare)) entries.push({ network: ipaddr.parseCIDR(bare) })
    else if (ipaddr.isValid(bare)) {
      const address = ipaddr.process(bare)
      entries.push({ network: [address, address.kind() === 'ipv4' ? 32 : 128] })
    } else if (HOST_NAME.test(item)) entries.push({ host: item.toLowerCase().replace(/\.$/, '') })
    else throw new Error(`"${item}" is not a host name, an IP address or a network such as 10.0.0.0/8`)
  }
  return entries
}
