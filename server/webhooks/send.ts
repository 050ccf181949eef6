// One delivery attempt: a signed POST to the webhook's target, through the address guard
// (server/http/address-guard.ts), with a timeout, reading at most a short excerpt of the answer.
import http from 'node:http'
import https from 'node:https'
import type { FetchAllowEntry } from '../symbolication/fetch-allow.ts'
import { guardedLookup, RefusedAddressError, refusedLiteral } from '../http/address-guard.ts'
import { signatureHeader } from './signature.ts'

export const WEBHOOK_ALLOW_SETTING = 'ERRATA_WEBHOOK_ALLOW'

/** Characters of the answer's body kept in the delivery log. */
const EXCERPT_CHARS = 1000

export interface SendOptions {
  allow: readonly FetchAllowEntry[]
  timeoutMs: number
}

export interface AttemptOutcome {
  /** null when no answer came. */
  status: number | null
  durationMs: number
  error: string | null
  responseExcerpt: string | null
  /** A later attempt may succeed: timeouts, network errors, 5xx, 408 and 429. */
  retryable: boolean
}

export async function sendDelivery(
  url: string,
  delivery: { id: string; body: string; secret: string; trigger: string },
  now: Date,
  options: SendOptions,
): Promise<AttemptOutcome> {
  const started = performance.now()
  const took = () => Math.round(performance.now() - started)
  let target: URL
  try {
    target = new URL(url)
  } catch {
    return { status: null, durationMs: 0, error: 'the target is not a URL', responseExcerpt: null, retryable: false }
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return { status: null, durationMs: 0, error: `${target.protocol} targets are not allowed`, responseExcerpt: null, retryable: false }
  }
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1')
  const refused = refusedLiteral(options.allow, host, WEBHOOK_ALLOW_SETTING)
  if (refused) return { status: null, durationMs: 0, error: refused.message, responseExcerpt: null, retryable: false }

  const body = Buffer.from(delivery.body, 'utf8')
  return new Promise<AttemptOutcome>((resolve) => {
    const client = target.protocol === 'https:' ? https : http
    const request = client.request(
      target,
      {
        method: 'POST',
        agent: false,
        lookup: guardedLookup(options.allow, host, WEBHOOK_ALLOW_SETTING),
        timeout: options.timeoutMs,
        headers: {
          'content-type': 'application/json',
          'content-length': String(body.length),
          'user-agent': 'Errata-Webhooks',
          'x-errata-delivery': delivery.id,
          'x-errata-trigger': delivery.trigger,
          'x-errata-signature': signatureHeader(delivery.secret, delivery.body, now),
        },
      },
      (response) => {
        const status = response.statusCode ?? 0
        const chunks: Buffer[] = []
        let size = 0
        response.on('data', (chunk: Buffer) => {
          if (size < EXCERPT_CHARS * 4) chunks.push(chunk)
          size += chunk.length
        })
        response.on('end', () => {
          const excerpt = Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_CHARS)
          const ok = status >= 200 && status < 300
          resolve({
            status,
            durationMs: took(),
            error: ok ? null : `HTTP ${status}`,
            responseExcerpt: excerpt || null,
            retryable: status >= 500 || status === 408 || status === 429,
          })
        })
        response.on('error', (err) => resolve({ status, durationMs: took(), error: err.message, responseExcerpt: null, retryable: true }))
      },
    )
    request.on('timeout', () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)))
    request.on('error', (err) => {
      const refusedAddress = err instanceof RefusedAddressError
      resolve({ status: null, durationMs: took(), error: err.message || String(err), responseExcerpt: null, retryable: !refusedAddress })
    })
    request.end(body)
  })
}
