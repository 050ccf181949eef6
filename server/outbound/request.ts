// Every HTTP request Errata makes to an address that users or event data name (webhook
// deliveries, source maps fetched by URL) goes through outboundRequest(), so none can run without
// bounds: http and https only; the address guard on every connection, redirects included
// (address-guard.ts); one deadline for the whole exchange (DNS, connecting, every redirect, the
// answer's headers and its body), not an idle timeout a receiver could reset by dripping bytes;
// at most `maxBytes` of body read; and the caller's AbortSignal (a stopping job runner) ending it
// at once. Nothing else in server/ opens outbound connections.
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import https from 'node:https'
import { pipeline } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import type { AllowListEntry } from './allow-list.ts'
import { guardedLookup, RefusedRequestError, refusedLiteral } from './address-guard.ts'

export interface OutboundRequest {
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: Buffer
  /** Loopback, link-local and private hosts or networks that may be reached all the same... */
  allow: readonly AllowListEntry[]
  /** ...and the setting that lists them, named in refusals. */
  allowSetting: string
  /** The whole exchange, redirects and body included. */
  timeoutMs: number
  /** Most bytes of body read (after decompression); past them the connection is closed. */
  maxBytes: number
  /** Redirects followed, each checked by the guard again. Default 0: a 3xx is the answer. */
  maxRedirects?: number
  /** Ask for gzip, deflate or br and decompress the answer. */
  decompress?: boolean
  /** Ends the request at once; it then rejects with the signal's reason. */
  signal?: AbortSignal
}

export interface OutboundResponse {
  /** Where the answer came from, after redirects. */
  url: string
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
  /** The body was longer than maxBytes (or said so in Content-Length): `body` holds at most its first maxBytes bytes. */
  truncated: boolean
}

/**
 * Sends one request and reads its answer within `timeoutMs`. Rejects with RefusedRequestError
 * when nothing may be sent (the guard, the scheme), with `no complete answer within N ms` at the
 * deadline, with the signal's reason when aborted, and with the network's error otherwise.
 */
export async function outboundRequest(target: string, request: OutboundRequest): Promise<OutboundResponse> {
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(new Error(`no complete answer within ${request.timeoutMs} ms`)), request.timeoutMs)
  const signal = request.signal ? AbortSignal.any([request.signal, deadline.signal]) : deadline.signal
  try {
    let url = parseUrl(target)
    for (let redirects = 0; ; redirects++) {
      const response = await send(url, request, signal)
      const location = response.headers.location
      if (request.maxRedirects && response.statusCode! >= 300 && response.statusCode! < 400 && location) {
        response.destroy()
        if (redirects >= request.maxRedirects) throw new Error(`more than ${request.maxRedirects} redirects`)
        url = parseUrl(location, url)
        continue
      }
      const { body, truncated } = await readBody(response, request)
      return { url: url.href, status: response.statusCode!, headers: response.headers, body, truncated }
    }
  } catch (err) {
    throw signal.aborted ? signal.reason : err
  } finally {
    clearTimeout(timer)
  }
}

function parseUrl(text: string, base?: URL): URL {
  let url: URL
  try {
    url = new URL(text, base)
  } catch {
    throw new RefusedRequestError('not a URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RefusedRequestError(`${url.protocol} URLs are not fetched`)
  return url
}

/** The answer's head; the signal ends its body too. */
function send(url: URL, request: OutboundRequest, signal: AbortSignal): Promise<IncomingMessage> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  const refused = refusedLiteral(request.allow, host, request.allowSetting)
  if (refused) return Promise.reject(refused)
  const headers: Record<string, string> = { ...request.headers }
  if (request.decompress) headers['accept-encoding'] = 'gzip, deflate, br'
  if (request.body) headers['content-length'] = String(request.body.length)
  return new Promise((resolve, reject) => {
    const outgoing = (url.protocol === 'https:' ? https : http).request(url, {
      method: request.method ?? 'GET',
      headers,
      // A connection of its own, so nothing outlives the request.
      agent: false,
      lookup: guardedLookup(request.allow, host, request.allowSetting),
      signal,
    })
    outgoing.on('response', (response) => {
      const stop = () => response.destroy(signal.reason as Error)
      signal.addEventListener('abort', stop, { once: true })
      response.once('close', () => signal.removeEventListener('abort', stop))
      resolve(response)
    })
    outgoing.on('error', reject)
    outgoing.end(request.body)
  })
}

async function readBody(response: IncomingMessage, request: OutboundRequest): Promise<{ body: Buffer; truncated: boolean }> {
  const encoding = request.decompress ? (response.headers['content-encoding'] ?? 'identity').toLowerCase() : 'identity'
  if (encoding === 'identity' && Number(response.headers['content-length']) > request.maxBytes) {
    response.destroy()
    return { body: Buffer.alloc(0), truncated: true }
  }
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : encoding === 'br' ? createBrotliDecompress() : null
  if (!decoder && encoding !== 'identity') {
    response.destroy()
    throw new Error(`Content-Encoding ${encoding} is not supported`)
  }
  // pipeline() carries the answer's end or abort into the decoder, which pipe() would not.
  const stream = decoder ? pipeline(response, decoder, () => {}) : response
  const chunks: Buffer[] = []
  let size = 0
  let truncated = false
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (size + chunk.length > request.maxBytes) {
      chunks.push(chunk.subarray(0, request.maxBytes - size))
      truncated = true
      break
    }
    chunks.push(chunk)
    size += chunk.length
  }
  response.destroy()
  return { body: Buffer.concat(chunks), truncated }
}
