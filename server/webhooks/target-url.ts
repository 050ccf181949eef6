// Checks a webhook's target URL when it is configured: http(s) only, and no loopback,
// link-local or private address unless ERRATA_WEBHOOK_ALLOW lets it through. The same check
// runs again on the address connected to at every delivery (send.ts), so a name that later
// resolves elsewhere cannot reach a private address either.
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { ValidationError } from '../failures.ts'
import { mayConnect } from '../outbound/address-guard.ts'
import type { AllowListEntry } from '../outbound/allow-list.ts'
import { WEBHOOK_ALLOW_SETTING } from './send.ts'

export async function checkTargetUrl(text: string, allow: readonly AllowListEntry[]): Promise<string> {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new ValidationError('url: is not a URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError('url: must be an http or https URL')
  if (url.username || url.password) throw new ValidationError('url: must not hold a user name or password (the requests are signed instead)')
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  const refused = `url: ${host} is a loopback, link-local or private address; an operator may allow it with ${WEBHOOK_ALLOW_SETTING}`
  if (isIP(host)) {
    if (!mayConnect(allow, host, host)) throw new ValidationError(refused)
    return url.toString()
  }
  let addresses: { address: string }[]
  try {
    addresses = await lookup(host, { all: true })
  } catch {
    throw new ValidationError(`url: the host ${host} does not resolve`)
  }
  if (!addresses.some((a) => mayConnect(allow, host, a.address))) {
    throw new ValidationError(`url: ${host} resolves to ${addresses[0]?.address ?? 'nothing'}, a loopback, link-local or private address; an operator may allow it with ${WEBHOOK_ALLOW_SETTING}`)
  }
  return url.toString()
}
