import type { LoginThrottle } from '../context.ts'
import { isLocalNetworkAddress } from '../http/client-address.ts'
import { TooManyRequestsError } from '../failures.ts'

export interface LoginThrottleLimits {
  /**
   * Failed sign-ins for one email from one client address, or from one known browser, within
   * `windowMs` before that pair (or browser) must wait `lockMs`.
   */
  perEmailAndAddress: number
  /**
   * Failed sign-ins for one email from browsers it has not signed in from, all addresses
   * together, within `windowMs` before each further attempt from such browsers must wait: 1 s,
   * then twice as long after each failure, at most `maxDelayMs`. A slowdown, never a lock, and
   * one the account's known browsers do not share, so no one elsewhere can lock its owner out.
   */
  perEmail: number
  /** Failed sign-ins from one client address (any emails) within `windowMs` before it must wait. */
  perAddress: number
  windowMs: number
  /** How long a pair, a known browser or an address waits, from the failure that reached its limit. */
  lockMs: number
  /** The longest wait between attempts for one email from unknown browsers once past `perEmail`. */
  maxDelayMs: number
}

export const DEFAULT_LOGIN_LIMITS: LoginThrottleLimits = {
  perEmailAndAddress: 10,
  perEmail: 100,
  perAddress: 100,
  windowMs: 15 * 60_000,
  lockMs: 15 * 60_000,
  maxDelayMs: 60_000,
}

/** The first wait for an email past its unknown-browser budget; it doubles with each failure. */
const FIRST_DELAY_MS = 1000

interface Counter {
  attempts: number
  /** When the counter is forgotten. */
  expiresAt: number
  /** Attempts before this time answer 429. */
  waitUntil: number
}

// Past this many counters, expired ones are dropped; past MAX_COUNTERS the oldest go too, so a
// flood of made-up emails cannot grow the process without bound.
const SWEEP_AT = 10_000
const MAX_COUNTERS = 100_000

/**
 * Slows password guessing on POST /auth/login, in two tracks.
 *
 * A browser the email signed in from before (its signed cookie) is counted on its own: its
 * failures lock that browser alone, and nobody else's failures touch it, so the owner's known
 * browsers always get in with the right password.
 *
 * Every other attempt is counted per (email, client address), locking that pair; per public
 * client address across emails, locking that address; and per email from all addresses, which
 * only slows: past the limit each attempt waits a growing delay (at most `maxDelayMs`) after the
 * last, so guessing from many addresses is bounded without anyone elsewhere being able to lock
 * the account (a web page's visitors sending sign-ins could otherwise). Each attempt is counted
 * when it starts, so guesses sent all at once are limited too; the one that reaches a limit still
 * gets its answer, and later ones get 429, even with the right password. Emails are counted
 * whether or not a user has them, so the answers never tell which exist. A right password resets
 * its pair or browser but not the email's total nor the address: one account of your own must not
 * buy more guesses at others', nor a user's own sign-in more guesses for an attacker. Counts live
 * in this process's memory (several processes each keep their own).
 */
export function createLoginThrottle(limits: LoginThrottleLimits = DEFAULT_LOGIN_LIMITS, now: () => number = Date.now): LoginThrottle {
  const counters = new Map<string, Counter>()

  const live = (key: string): Counter | undefined => {
    const counter = counters.get(key)
    if (!counter) return undefined
    if (counter.expiresAt > now()) return counter
    counters.delete(key)
    return undefined
  }

  const sweep = () => {
    if (counters.size < SWEEP_AT) return
    for (const key of counters.keys()) live(key)
    for (const key of counters.keys()) {
      if (counters.size <= MAX_COUNTERS) break
      counters.delete(key)
    }
  }

  /** A counter that locks at `limit` for `lockMs`, then starts afresh. */
  const countToLock = (key: string, limit: number) => {
    const time = now()
    const counter = live(key) ?? { attempts: 0, expiresAt: time + limits.windowMs, waitUntil: 0 }
    counter.attempts += 1
    if (counter.attempts >= limit) counter.waitUntil = counter.expiresAt = time + limits.lockMs
    counters.set(key, counter)
  }

  /** A counter that, from `limit` on, makes each next attempt wait twice as long, up to maxDelayMs; forgotten `windowMs` after the last. */
  const countToSlow = (key: string, limit: number) => {
    const time = now()
    const counter = live(key) ?? { attempts: 0, expiresAt: 0, waitUntil: 0 }
    counter.attempts += 1
    if (counter.attempts >= limit) {
      const doublings = Math.min(counter.attempts - limit, 30)
      counter.waitUntil = time + Math.min(FIRST_DELAY_MS * 2 ** doublings, limits.maxDelayMs)
    }
    counter.expiresAt = Math.max(time + limits.windowMs, counter.waitUntil)
    counters.set(key, counter)
  }

  const uncount = (key: string, limit: number) => {
    const counter = live(key)
    if (!counter) return
    counter.attempts -= 1
    if (counter.attempts < limit) counter.waitUntil = 0
  }

  const refuseWhileWaiting = (key: string | null, who: string) => {
    if (key === null) return
    const waitUntil = live(key)?.waitUntil ?? 0
    if (waitUntil > now()) throw new TooManyRequestsError(`too many failed sign-ins ${who}`, waitUntil - now())
  }

  return {
    begin(email, address, knownBrowser) {
      sweep()
      if (knownBrowser !== null) {
        const browserKey = `browser:${email.toLowerCase()}:${knownBrowser}`
        refuseWhileWaiting(browserKey, 'for this email from this browser')
        countToLock(browserKey, limits.perEmailAndAddress)
        return {
          succeeded: () => counters.delete(browserKey),
          uncounted: () => uncount(browserKey, limits.perEmailAndAddress),
        }
      }
      const emailKey = `email:${email.toLowerCase()}`
      // Behind a reverse proxy every client has the proxy's address: the pair is then the email.
      const pairKey = `pair:${address}:${email.toLowerCase()}`
      // A reverse proxy connects from this machine or a private network: limiting its address
      // would lock every user out together. Such addresses are not limited across emails.
      const addressKey = isLocalNetworkAddress(address) ? null : `address:${address}`
      refuseWhileWaiting(pairKey, 'for this email')
      refuseWhileWaiting(emailKey, 'for this email from browsers it has not signed in from')
      refuseWhileWaiting(addressKey, 'from this address')
      countToLock(pairKey, limits.perEmailAndAddress)
      countToSlow(emailKey, limits.perEmail)
      if (addressKey) countToLock(addressKey, limits.perAddress)
      return {
        succeeded() {
          counters.delete(pairKey)
          uncount(emailKey, limits.perEmail)
          if (addressKey) uncount(addressKey, limits.perAddress)
        },
        uncounted() {
          uncount(pairKey, limits.perEmailAndAddress)
          uncount(emailKey, limits.perEmail)
          if (addressKey) uncount(addressKey, limits.perAddress)
        },
      }
    },
  }
}
