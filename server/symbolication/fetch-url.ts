import http, { type IncomingMessage } from 'node:http'
import https from 'node:https'
import { pipeline } from 'node:stream/promises'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import { LRUCache } from 'lru-cache'
import { guardedLookup, refusedLiteral } from '../http/address-guard.ts'
import type { FetchAllowEntry } from './fetch-allow.ts'

export interface FetchOptions {
  /** Loopback, link-local and private hosts or networks that may be reached all the same (ERRATA_FETCH_ALLOW). */
  allow: readonly FetchAllowEntry[]
  /** Whole request, redirects included. Default 5 s. */
  timeoutMs?: number
  /** Largest body read; larger ones fail. Default 10 MiB. */
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
 * path: http and https only, a timeout, a size cap, a cache, and no connection to a loopback,
 * link-local or private address unless the allow-list names it. The check is made on the
 * address actually connected to (after DNS), so a public name resolving to 127.0.0.1 is refused.
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

  function requestOnce(url: URL, signal: AbortSignal): Promise<{ response: IncomingMessage }> {
    return new Promise((resolve, reject) => {
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
      const refused = refusedLiteral(options.allow, host, 'ERRATA_FETCH_ALLOW')
      if (refused) {
        reject(refused)
        return
      }
      const client = url.protocol === 'https:' ? https : http
      const request = client.get(url, { lookup: guardedLookup(options.allow, host, 'ERRATA_FETCH_ALLOW'), signal, headers: { 'accept-encoding': 'gzip, deflate, br', 'user-agent': 'Errata' }, agent: false }, (response) =>
        resolve({ response }),
      )
      request.on('error', reject)
    })
  }

  async function readBody(response: IncomingMessage): Promise<string> {
    const encoding = (response.headers['content-encoding'] ?? 'identity').toLowerCase()
    const declared = Number(response.headers['content-length'])
    if (encoding === 'identity' && Number.isFinite(declared) && declared > maxBytes) throw new Error(`larger than ${maxBytes} bytes`)
    const decoder =
      encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : encoding === 'br' ? createBrotliDecompress() : null
    if (!decoder && encoding !== 'identity') throw new Error(`Content-Encoding ${encoding} is not supported`)
    const stream = decoder ?? response
    // A response cut short fails the decoder, read below, instead of leaving it waiting.
    if (decoder) pipeline(response, decoder).catch(() => {})
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > maxBytes) {
        response.destroy()
        throw new Error(`larger than ${maxBytes} bytes`)
      }
      chunks.push(chunk)
    }
    return Buffer.concat(chunks).toString('utf8')
  }

  async function fetchUncached(address: string): Promise<FetchResult> {
    let url: URL
    try {
      url = new URL(address)
    } catch {
      return { ok: false, url: address, reason: 'not a URL' }
    }
    const signal = AbortSignal.timeout(timeoutMs)
    try {
      for (let redirects = 0; ; redirects++) {
        if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, url: address, reason: `${url.protocol} URLs are not fetched` }
        const { response } = await requestOnce(url, signal)
        const status = response.statusCode ?? 0
        if (status >= 300 && status < 400 && response.headers.location) {
          response.resume()
          if (redirects >= MAX_REDIRECTS) return { ok: false, url: address, reason: `more than ${MAX_REDIRECTS} redirects` }
          url = new URL(response.headers.location, url)
          continue
        }
        if (status !== 200) {
          response.resume()
          return { ok: false, url: address, reason: `HTTP ${status}` }
        }
        const text = await readBody(response)
        const headers = { sourcemap: header(response, 'sourcemap') ?? header(response, 'x-sourcemap'), 'content-type': header(response, 'content-type') }
        return { ok: true, url: address, text, headers }
      }
    } catch (err) {
      const reason = signal.aborted ? `no answer within ${timeoutMs} ms` : (err as Error).message || String(err)
      return { ok: false, url: address, reason }
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

function header(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name]
  return Array.isArray(value) ? value[0] : value
}
