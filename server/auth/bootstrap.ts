import { sql } from 'drizzle-orm'
import { queryRows, withTransaction, type Database } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { users } from '../db/schema.ts'
import { passwordSchema } from '../../contract/users.ts'
import { generatePassword, hashPassword } from './passwords.ts'
import { createToken, generateToken } from './tokens.ts'

export interface BootstrapResult {
  email: string
  /** Present only when generated here: shown once, never stored in clear. */
  generatedPassword?: string
  generatedToken?: string
}

// Several processes may start at once on one PostgreSQL (as for migrations): one creates the admin.
const BOOTSTRAP_LOCK_KEY = 7_245_002

/**
 * On an empty database, creates the first admin user from ERRATA_ADMIN_* settings,
 * generating a password and token where none is given. Does nothing once a user exists.
 * The check and the insert run under an advisory lock and in one transaction, so of several
 * processes starting together exactly one creates the admin and the others find it.
 */
export async function bootstrapFirstAdmin(
  database: Database,
  admin: { email?: string; password?: string; token?: string },
): Promise<BootstrapResult | null> {
  const email = admin.email ?? 'admin@errata.local'
  // The one password rule (contract/users.ts) holds for the first admin too, however it is started.
  if (admin.password !== undefined) {
    const checked = passwordSchema.safeParse(admin.password)
    if (!checked.success) throw new Error(`ERRATA_ADMIN_PASSWORD: ${checked.error.issues[0]?.message ?? 'is not allowed'}`)
  }
  const password = admin.password ?? generatePassword()
  const token = admin.token ?? generateToken()
  const passwordHash = await hashPassword(password)
  const created = await database.withExclusiveLock(BOOTSTRAP_LOCK_KEY, () =>
    withTransaction(database.db, async (tx) => {
      const [existing] = await queryRows<{ n: number }>(tx, sql`SELECT count(*)::int AS n FROM users`)
      if (Number(existing?.n ?? 0) > 0) return false
      const id = newId()
      await tx.insert(users).values({ id, email, name: 'Admin', passwordHash })
      await createToken(tx, id, 'Created at first start', token)
      return true
    }),
  )
  if (!created) return null
  return {
    email,
    ...(admin.password ? {} : { generatedPassword: password }),
    ...(admin.token ? {} : { generatedToken: token }),
  }
}
