import { isLocalNetworkAddress } from '../http/client-address.ts'
import { TooManyRequestsError } from '../failures.ts'

export interface LoginThrottleLimits {
  /** Failed sign-ins for one email from one client address within `windowMs` before that pair must wait. */
  perEmailAndAddress: number
  /**
   * Failed sign-ins for one email from all addresses together within `windowMs` before it must
   * wait everywhere: far above `perEmailAndAddress`, so guessing from many addresses is still
   * bounded, while someone elsewhere cannot lock a user out with a few wrong passwords.
   */
  perEmail: number
  /** Failed sign-ins from one client address (any emails) within `windowMs` before it must wait. */
  perAddress: number
  windowMs: number
  /** How long the wait is, from the failure that reached the limit. */
  lockMs: number
}

export const DEFAULT_LOGIN_LIMITS: LoginThrottleLimits = {
  perEmailAndAddress: 10,
  perEmail: 100,
  perAddress: 100,
  windowMs: 15 * 60_000,
  lockMs: 15 * 60_000,
}

/** One sign-in under way: counted as failed unless it says otherwise. */
export interface LoginAttempt {
  /** The password was right: the email starts afresh; the address just does not count this one. */
  succeeded(): void
  /** It ended without checking a password (the database was down): counts for neither. */
  uncounted(): void
}

export interface LoginThrottle {
  /** Throws TooManyRequestsError while the email or the address must wait; otherwise counts the attempt. */
  begin(email: string, address: string): LoginAttempt
}

interface Counter {
  attempts: number
  windowEndsAt: number
  lockedUntil: number
}

// Past this many counters, expired ones are dropped; past MAX_COUNTERS the oldest go too, so a
// flood of made-up emails cannot grow the process without bound.
const SWEEP_AT = 10_000
const MAX_COUNTERS = 100_000

/**
 * Slows password guessing on POST /auth/login. Failures are counted per (email, client address),
 * so someone elsewhere cannot lock a user out (10 wrong passwords from a web page would
 * otherwise do it); per email from everywhere, with a limit ten times higher; and per public
 * client address across emails. Each attempt is counted when it starts, so guesses sent all at
 * once are limited too; the one that reaches a limit still gets its answer, and later ones get
 * 429 until the wait ends, even with the right password. Emails are counted whether or not a
 * user has them, so the answers never tell which exist. A right password resets its (email,
 * address) pair but not the email's total nor the address: one account of your own must not buy
 * more guesses at others', nor a user's own sign-in more guesses for an attacker. Counts live in
 * this process's memory (several processes each keep their own).
 */
export function createLoginThrottle(limits: LoginThrottleLimits = DEFAULT_LOGIN_LIMITS, now: () => number = Date.now): LoginThrottle {
  const counters = new Map<string, Counter>()

  const live = (key: string): Counter | undefined => {
    const counter = counters.get(key)
    if (!counter) return undefined
    const time = now()
    if (counter.lockedUntil > time) return counter
    if (counter.lockedUntil === 0 && counter.windowEndsAt > time) return counter
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

  const count = (key: string, limit: number) => {
    const time = now()
    const counter = live(key) ?? { attempts: 0, windowEndsAt: time + limits.windowMs, lockedUntil: 0 }
    counter.attempts += 1
    if (counter.attempts >= limit) counter.lockedUntil = time + limits.lockMs
    counters.set(key, counter)
  }

  const uncount = (key: string, limit: number) => {
    const counter = live(key)
    if (!counter) return
    counter.attempts -= 1
    if (counter.attempts < limit) counter.lockedUntil = 0
  }

  return {
    begin(email, address) {
      const emailKey = `email:${email.toLowerCase()}`
      // Behind a reverse proxy every client has the proxy's address: the pair is then the email.
      const pairKey = `pair:${address}:${email.toLowerCase()}`
      // A reverse proxy connects from this machine or a private network: limiting its address
      // would lock every user out together. Such addresses are not limited across emails.
      const addressKey = isLocalNetworkAddress(address) ? null : `address:${address}`
      for (const [key, who] of [
        [pairKey, 'for this email'],
        [emailKey, 'for this email'],
        [addressKey, 'from this address'],
      ] as const) {
        if (key === null) continue
        const lockedUntil = live(key)?.lockedUntil ?? 0
        if (lockedUntil > now()) throw new TooManyRequestsError(`too many failed sign-ins ${who}`, lockedUntil - now())
      }
      sweep()
      count(pairKey, limits.perEmailAndAddress)
      count(emailKey, limits.perEmail)
      if (addressKey) count(addressKey, limits.perAddress)
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
