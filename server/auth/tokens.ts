import { createHash, randomBytes } from 'node:crypto'
import { and, eq, isNull, sql } from 'drizzle-orm'
import { queryRows, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { authTokens, users } from '../db/schema.ts'

/** A new personal auth token: 40 hex characters (160 random bits). Shown once, stored hashed. */
export function generateToken(): string {
  return randomBytes(20).toString('hex')
}

/** Tokens carry 160 random bits, so a fast hash is enough (no salt or stretching needed). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

export async function createToken(
  db: Db,
  userId: string,
  description: string,
  token = generateToken(),
): Promise<{ id: string; token: string }> {
  const id = newId()
  await db.insert(authTokens).values({ id, userId, tokenHash: hashToken(token), description })
  return { id, token }
}

export interface AuthUser {
  id: string
  email: string
  name: string
  tokenId: string
}

/**
 * The user a token belongs to, or null for an unknown or revoked token. The same statement
 * records last_used_at, at most once a minute per token, so busy clients do not write on
 * every request.
 */
export async function findUserByToken(db: Db, token: string): Promise<AuthUser | null> {
  const rows = await queryRows<AuthUser>(
    db,
    sql`WITH found AS (
        SELECT u.id, u.email, u.name, t.id AS token_id, t.last_used_at
        FROM ${authTokens} t JOIN ${users} u ON u.id = t.user_id
        WHERE t.token_hash = ${hashToken(token)} AND t.revoked_at IS NULL
      ), touched AS (
        UPDATE ${authTokens} SET last_used_at = now()
        WHERE id IN (SELECT token_id FROM found WHERE last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
      )
      SELECT id, email, name, token_id AS "tokenId" FROM found LIMIT 1`,
  )
  return rows[0] ?? null
}

export async function revokeToken(db: Db, userId: string, tokenId: string): Promise<boolean> {
  const rows = await db
    .update(authTokens)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(authTokens.id, tokenId), eq(authTokens.userId, userId), isNull(authTokens.revokedAt)))
    .returning({ id: authTokens.id })
  return rows.length > 0
}
