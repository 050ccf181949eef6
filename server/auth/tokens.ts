import { createHash, randomBytes } from 'node:crypto'
import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Db } from '../db/client.ts'
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

/** The user a token belongs to, or null for an unknown or revoked token. */
export async function findUserByToken(db: Db, token: string): Promise<AuthUser | null> {
  const rows = await db
    .select({ id: users.id, email: users.email, name: users.name, tokenId: authTokens.id })
    .from(authTokens)
    .innerJoin(users, eq(users.id, authTokens.userId))
    .where(and(eq(authTokens.tokenHash, hashToken(token)), isNull(authTokens.revokedAt)))
    .limit(1)
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
