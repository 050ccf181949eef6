import type { IncomingHttpHeaders } from 'node:http'
import { LRUCache } from 'lru-cache'
import { outboundRequest } from '../outbound/request.ts'
import type { AllowListEntry } from '../outbound/allow-list.ts'

export interface FetchOptions {
  /** Loopback, link-local and private hosts or networks that may be reached all the same (ERRATA_FETCH_ALLOW). */
  allow: readonly AllowListEntry[]
  /** Whole request: connecting, redirects, headers and body (ERRATA_FETCH_TIMEOUT_MS). Default 5 s. */
  timeoutMs?: number
  /** Largest body read (decompressed); larger ones fail. Default 10 MiB. */
  maxBytes?: number
  /** Bodies kept in memory, by bytes. Default 64 MiB. */
  cacheBytes?: number
  /** How long a body is reused. Default 10 minutes; failures are retried after 1 minute. */
  ttlMs?: number
}

export type FetchResult =
  | { ok: true; url: string; text: string; headers: Record<string, string | undefined> }
  | { ok: false; url: string; reason: string }

export interface UrlFetcher {
  /** The body of an http(s) URL as text, from the cache when fetched recently; never throws. */
  fetchText(url: string): Promise<FetchResult>
}

const MAX_REDIRECTS = 3
const FAILURE_TTL_MS = 60_000

/**
 * Fetches minified files, maps and sources for the symbolicator (spec rule 7) off the request
 * path, through outboundRequest (server/outbound/request.ts): http and https only, one
 * deadline for the whole fetch, a size cap, at most 3 redirects each checked again, and no
 * connection to a loopback, link-local or private address unless the allow-list names it. Answers
 * are cached.
 */
export function createUrlFetcher(options: FetchOptions): UrlFetcher {
  const timeoutMs = options.timeoutMs ?? 5_000
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024
  const cache = new LRUCache<string, FetchResult>({
    maxSize: options.cacheBytes ?? 64 * 1024 * 1024,
    sizeCalculation: (result) => (result.ok ? Math.max(1, result.text.length * 2) : 64),
    ttl: options.ttlMs ?? 10 * 60_000,
  })
  const inFlight = new Map<string, Promise<FetchResult>>()

  async function fetchUncached(address: string): Promise<FetchResult> {
    try {
      const response = await outboundRequest(address, {
        headers: { 'user-agent': 'Errata' },
        allow: options.allow,
        allowSetting: 'ERRATA_FETCH_ALLOW',
        timeoutMs,
        maxBytes,
        maxRedirects: MAX_REDIRECTS,
        decompress: true,
      })
      if (response.status !== 200) return { ok: false, url: address, reason: `HTTP ${response.status}` }
      if (response.truncated) return { ok: false, url: address, reason: `larger than ${maxBytes} bytes` }
      const headers = { sourcemap: header(response.headers, 'sourcemap') ?? header(response.headers, 'x-sourcemap'), 'content-type': header(response.headers, 'content-type') }
      return { ok: true, url: address, text: response.body.toString('utf8'), headers }
    } catch (err) {
      return { ok: false, url: address, reason: (err as Error).message || String(err) }
    }
  }

  return {
    async fetchText(address) {
      const cached = cache.get(address)
      if (cached) return cached
      const pending = inFlight.get(address)
      if (pending) return pending
      const started = fetchUncached(address).then((result) => {
        inFlight.delete(address)
        cache.set(address, result, result.ok ? {} : { ttl: FAILURE_TTL_MS })
        return result
      })
      inFlight.set(address, started)
      return started
    },
  }
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}
