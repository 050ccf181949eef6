// X-Errata-Signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` with the
// webhook's secret (docs/webhooks.md has the receiver's side). The timestamp inside the signed
// text lets receivers refuse replays of old requests.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/** A new signing secret: 32 random bytes, hex, prefixed so it is recognisable in a config file. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('hex')}`

export function signatureHeader(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000)
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')
  return `t=${t},v1=${v1}`
}

/**
 * The receiver's check (also what docs/webhooks.md shows): true when `header` signs `body`
 * with `secret` and its time is within `toleranceSeconds` of `now`.
 */
export function verifySignature(secret: string, body: string, header: string, now = new Date(), toleranceSeconds = 300): boolean {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=', 2) as [string, string]))
  const t = Number(parts.t)
  if (!Number.isInteger(t) || !parts.v1 || Math.abs(now.getTime() / 1000 - t) > toleranceSeconds) return false
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest()
  const given = Buffer.from(parts.v1, 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}
