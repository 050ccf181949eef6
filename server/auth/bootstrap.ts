import { randomBytes } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { queryRows, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { users } from '../db/schema.ts'
import { hashPassword } from './passwords.ts'
import { createToken, generateToken } from './tokens.ts'

export interface BootstrapResult {
  email: string
  /** Present only when generated here: shown once, never stored in clear. */
  generatedPassword?: string
  generatedToken?: string
}

/**
 * On an empty database, creates the first admin user from ERRATA_ADMIN_* settings,
 * generating a password and token where none is given. Does nothing once a user exists.
 */
export async function bootstrapFirstAdmin(
  db: Db,
  admin: { email?: string; password?: string; token?: string },
): Promise<BootstrapResult | null> {
  const [existing] = await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM users`)
  if (Number(existing?.n ?? 0) > 0) return null
  const email = admin.email ?? 'admin@errata.local'
  const password = admin.password ?? randomBytes(12).toString('base64url')
  const token = admin.token ?? generateToken()
  const id = newId()
  await db.insert(users).values({ id, email, name: 'Admin', passwordHash: await hashPassword(password) })
  await createToken(db, id, 'Created at first start', token)
  return {
    email,
    ...(admin.password ? {} : { generatedPassword: password }),
    ...(admin.token ? {} : { generatedToken: token }),
  }
}
