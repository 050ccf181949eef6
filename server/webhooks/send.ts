// One delivery attempt: a signed POST to the webhook's target through outboundRequest
// (server/outbound/request.ts): the address guard, one deadline for the whole attempt, and at
// most a few kilobytes of the answer read, of which a short excerpt is kept.
import type { AllowListEntry } from '../outbound/allow-list.ts'
import { RefusedRequestError } from '../outbound/address-guard.ts'
import { outboundRequest } from '../outbound/request.ts'
import { signatureHeader } from './signature.ts'

export const WEBHOOK_ALLOW_SETTING = 'ERRATA_WEBHOOK_ALLOW'

/** Characters of the answer's body kept in the delivery log. */
const EXCERPT_CHARS = 1000

export interface SendOptions {
  allow: readonly AllowListEntry[]
  /** The whole attempt: connecting, sending, the answer's headers and body (ERRATA_WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number
  /** Bytes of the answer read at most (ERRATA_WEBHOOK_MAX_RESPONSE_BYTES); the rest is not. */
  maxResponseBytes: number
  /** Aborted when the job runner stops or loses the job: the attempt then rejects with its reason and is not one. */
  signal?: AbortSignal
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
  try {
    const response = await outboundRequest(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Errata-Webhooks',
        'x-errata-delivery': delivery.id,
        'x-errata-trigger': delivery.trigger,
        'x-errata-signature': signatureHeader(delivery.secret, delivery.body, now),
      },
      body: Buffer.from(delivery.body, 'utf8'),
      allow: options.allow,
      allowSetting: WEBHOOK_ALLOW_SETTING,
      timeoutMs: options.timeoutMs,
      maxBytes: options.maxResponseBytes,
      signal: options.signal,
    })
    const { status } = response
    const ok = status >= 200 && status < 300
    return {
      status,
      durationMs: took(),
      error: ok ? null : `HTTP ${status}`,
      responseExcerpt: response.body.toString('utf8').slice(0, EXCERPT_CHARS) || null,
      retryable: status >= 500 || status === 408 || status === 429,
    }
  } catch (err) {
    if (options.signal?.aborted) throw options.signal.reason
    const message = err instanceof Error ? err.message : String(err)
    return { status: null, durationMs: took(), error: message || 'the request failed', responseExcerpt: null, retryable: !(err instanceof RefusedRequestError) }
  }
}
