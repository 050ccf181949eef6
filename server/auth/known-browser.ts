import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
import { users } from '../db/schema.ts'

/**
 * The cookie a successful sign-in leaves in the browser, so that later sign-ins from it are
 * counted apart from everyone else's (server/auth/login-throttle.ts): `<id>.<signature>`, the
 * signature an HMAC of the id keyed with the account's password hash. Only the server can make
 * one, it is good for that one account, and it stops counting when the password changes. Sent
 * back only to the sign-in path, never by another site's page (SameSite=Strict), and unreadable
 * by scripts (HttpOnly). One per browser: the account signed in last.
 */
export const KNOWN_BROWSER_COOKIE = 'errata_known_browser'

/** How long a browser stays known without signing in again. */
export const KNOWN_BROWSER_MAX_AGE_SECONDS = 365 * 24 * 60 * 60

const sign = (passwordHash: string, id: string) =>
  createHmac('sha256', passwordHash).update(`errata known browser ${id}`).digest()

/** The browser's id when `cookie` was issued to the account with `email`; otherwise null. */
export async function knownBrowserId(db: Db, email: string, cookie: string | undefined): Promise<string | null> {
  const [id, signature] = cookie?.split('.') ?? []
  if (!id || !signature) return null
  const [user] = await db
    .select({ passwordHash: users.passwordHash })
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email})`)
    .limit(1)
  if (!user?.passwordHash) return null
  const expected = sign(user.passwordHash, id)
  const given = Buffer.from(signature, 'base64url')
  return given.length === expected.length && timingSafeEqual(given, expected) ? id : null
}

/** A new cookie value for a browser that just signed in to the account `userId`. */
export async function newKnownBrowserCookie(db: Db, userId: string): Promise<string | null> {
  const [user] = await db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, userId)).limit(1)
  if (!user?.passwordHash) return null
  const id = randomBytes(16).toString('base64url')
  return `${id}.${sign(user.passwordHash, id).toString('base64url')}`
}
