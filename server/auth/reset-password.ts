import { and, eq, isNull, sql } from 'drizzle-orm'
import { withTransaction, type Db } from '../db/client.ts'
import { authTokens, users } from '../db/schema.ts'
import { generatePassword, hashPassword } from './passwords.ts'

export interface PasswordReset {
  email: string
  /** Shown once to the operator, never stored in clear. */
  password: string
  /** Dashboard sign-ins of the account that stopped working. */
  signInsEnded: number
}

/**
 * Gives the account with `email` (any case) a new random password and ends its dashboard
 * sign-ins, so a browser signed in with the old password is signed out. Personal auth tokens
 * (scripts, integrations) keep working: the account's owner revokes them in the dashboard.
 * Null when no account has that email.
 */
export async function resetPassword(db: Db, email: string): Promise<PasswordReset | null> {
  const password = generatePassword()
  const passwordHash = await hashPassword(password)
  return withTransaction(db, async (tx) => {
    const [user] = await tx
      .update(users)
      .set({ passwordHash })
      .where(sql`lower(${users.email}) = lower(${email.trim()})`)
      .returning({ id: users.id, email: users.email })
    if (!user) return null
    const ended = await tx
      .update(authTokens)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(authTokens.userId, user.id), eq(authTokens.kind, 'sign_in'), isNull(authTokens.revokedAt)))
      .returning({ id: authTokens.id })
    return { email: user.email, password, signInsEnded: ended.length }
  })
}
