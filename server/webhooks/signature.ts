// X-Errata-Signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` with the
// webhook's secret (docs/webhooks.md has the receiver's side). The timestamp inside the signed
// text lets receivers refuse replays of old requests.
import { createHmac, randomBytes } from 'node:crypto'

/** A new signing secret: 32 random bytes, hex, prefixed so it is recognisable in a config file. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('hex')}`

export function signatureHeader(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000)
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')
  return `t=${t},v1=${v1}`
}
