import { eq, sql } from 'drizzle-orm'
import type { CurrentUser, LoginResponse } from '../../contract/users.ts'
import { verifyPassword } from '../auth/passwords.ts'
import { createSignInToken } from '../auth/tokens.ts'
import type { Db } from '../db/client.ts'
import { users } from '../db/schema.ts'
import { NotFoundError, UnauthorizedError } from '../failures.ts'

type UserRow = typeof users.$inferSelect

export function toCurrentUser(row: Pick<UserRow, 'id' | 'name' | 'email' | 'createdAt'>): CurrentUser {
  return { id: row.id, name: row.name, email: row.email, created_at: row.createdAt.toISOString() }
}

export async function getUser(db: Db, userId: string): Promise<CurrentUser> {
  const rows = await db.select().from(users).where(eq(users.id, userId)).limit(1)
  if (!rows[0]) throw new NotFoundError('User')
  return toCurrentUser(rows[0])
}

/**
 * Email and password → a new personal auth token for the dashboard session, labelled with the
 * browser and system of `userAgent` (the request's User-Agent header).
 */
export async function login(db: Db, email: string, password: string, userAgent?: string): Promise<LoginResponse> {
  const user = await userWithPassword(db, email, password)
  const { token } = await createSignInToken(db, user.id, userAgent)
  return { token, user: toCurrentUser(user) }
}

/**
 * The user with this email (any case) and password; 401 otherwise, the same for an unknown email
 * and a wrong password. POST /auth/login and HTTP Basic on the API (server/auth/authenticate.ts).
 */
export async function userWithPassword(db: Db, email: string, password: string): Promise<UserRow> {
  const rows = await db
    .select()
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email})`)
    .limit(1)
  const user = rows[0]
  // Verify against a fixed hash when the user is unknown so timing does not reveal which emails exist.
  const ok = await verifyPassword(password, user?.passwordHash ?? UNKNOWN_USER_HASH)
  if (!user || !user.passwordHash || !ok) throw new UnauthorizedError('email or password is incorrect')
  return user
}

const UNKNOWN_USER_HASH =
  'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
