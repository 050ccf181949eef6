import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows, type Database } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { authTokens, users } from '../db/schema.ts'
import { createTestDatabase } from '../test-support/test-app.ts'
import { readToken } from './authenticate.ts'
import { bootstrapFirstAdmin } from './bootstrap.ts'
import { hashPassword, verifyPassword } from './passwords.ts'
import { resetPassword } from './reset-password.ts'
import { createSignInToken, createToken, findUserByToken, generateToken, hashToken, revokeToken } from './tokens.ts'

let database: Database

beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(() => database.close())

describe('bootstrapFirstAdmin', () => {
  // It only acts on an empty users table; these run first, on the file's fresh database.
  it('creates the first admin once, with a usable generated token and password', async () => {
    await database.db.delete(users)
    const result = await bootstrapFirstAdmin(database, { email: 'root@example.com' })
    expect(result).toMatchObject({ email: 'root@example.com' })
    expect(result!.generatedToken).toMatch(/^[0-9a-f]{40}$/)
    const user = await findUserByToken(database.db, result!.generatedToken!)
    expect(user?.email).toBe('root@example.com')
    const [row] = await database.db.select().from(users).where(eq(users.id, user!.id))
    expect(await verifyPassword(result!.generatedPassword!, row!.passwordHash!)).toBe(true)
    // A second start leaves the existing users alone.
    expect(await bootstrapFirstAdmin(database, { email: 'other@example.com' })).toBeNull()
  })

  it('creates exactly one admin when several processes start together', async () => {
    await database.db.delete(users)
    // Concurrent calls on one database handle: separate connections on PostgreSQL, like processes.
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((name) => bootstrapFirstAdmin(database, { email: `${name}@example.com` })))
    expect(results.filter((result) => result !== null)).toHaveLength(1)
    expect(await database.db.select().from(users)).toHaveLength(1)
  })

  it('uses ERRATA_ADMIN_TOKEN and ERRATA_ADMIN_PASSWORD as given, without echoing them', async () => {
    await database.db.delete(users)
    const token = 'a-token-chosen-by-the-operator'
    const result = await bootstrapFirstAdmin(database, { email: 'ops@example.com', password: 'operator-pass', token })
    expect(result).toEqual({ email: 'ops@example.com' })
    expect((await findUserByToken(database.db, token))?.email).toBe('ops@example.com')
  })
})

describe('passwords', () => {
  it('verifies the right password and rejects a wrong one', async () => {
    const stored = await hashPassword('correct horse battery')
    expect(await verifyPassword('correct horse battery', stored)).toBe(true)
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false)
    expect(await verifyPassword('', stored)).toBe(false)
  })

  it('stores scrypt parameters and a per-hash salt, never the password', async () => {
    const a = await hashPassword('same password')
    const b = await hashPassword('same password')
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[\w-]+\$[\w-]+$/)
    expect(a).not.toContain('same password')
    expect(a).not.toBe(b)
    expect(await verifyPassword('same password', b)).toBe(true)
  })

  it('rejects malformed stored hashes instead of throwing', async () => {
    expect(await verifyPassword('x', '')).toBe(false)
    expect(await verifyPassword('x', 'bcrypt$whatever')).toBe(false)
    expect(await verifyPassword('x', 'scrypt$32768$8$1$salt')).toBe(false)
  })
})

describe('auth tokens', () => {
  let userId: string

  beforeAll(async () => {
    userId = newId()
    await database.db.insert(users).values({ id: userId, email: 'token.owner@example.com', name: 'Token Owner' })
  })

  it('generates 160-bit hex tokens, each different', () => {
    const a = generateToken()
    expect(a).toMatch(/^[0-9a-f]{40}$/)
    expect(generateToken()).not.toBe(a)
  })

  it('stores only a SHA-256 of the token and finds the user by the token', async () => {
    const { id, token } = await createToken(database.db, userId, 'laptop')
    const [row] = await database.db.select().from(authTokens).where(eq(authTokens.id, id))
    expect(row!.tokenHash).toBe(hashToken(token))
    expect(row!.tokenHash).toMatch(/^[0-9a-f]{64}$/)
    expect(row!.tokenHash).not.toContain(token)
    const stored = await queryRows<{ n: number }>(
      database.db,
      sql`SELECT count(*)::int AS n FROM auth_tokens WHERE token_hash = ${token} OR description = ${token}`,
    )
    expect(stored[0]!.n).toBe(0)
    expect(await findUserByToken(database.db, token)).toEqual({
      id: userId,
      email: 'token.owner@example.com',
      name: 'Token Owner',
      tokenId: id,
    })
  })

  it('rejects unknown tokens and the stored hash used as a token', async () => {
    const { token } = await createToken(database.db, userId, 'other')
    expect(await findUserByToken(database.db, generateToken())).toBeNull()
    expect(await findUserByToken(database.db, hashToken(token))).toBeNull()
  })

  it('rejects revoked tokens, and only the owner can revoke', async () => {
    const { id, token } = await createToken(database.db, userId, 'to revoke')
    expect(await revokeToken(database.db, 'someone-else', id)).toBe(false)
    expect(await findUserByToken(database.db, token)).not.toBeNull()
    expect(await revokeToken(database.db, userId, id)).toBe(true)
    expect(await findUserByToken(database.db, token)).toBeNull()
    // Revoking twice is a no-op.
    expect(await revokeToken(database.db, userId, id)).toBe(false)
  })
})

describe('readToken', () => {
  it('reads "token <TOKEN>" and "Bearer <TOKEN>", case-insensitively', () => {
    expect(readToken('token abc123')).toBe('abc123')
    expect(readToken('Token abc123')).toBe('abc123')
    expect(readToken('Bearer abc123')).toBe('abc123')
    expect(readToken('  token   abc123  ')).toBe('abc123')
  })

  it('returns null for anything else', () => {
    expect(readToken(undefined)).toBeNull()
    expect(readToken('')).toBeNull()
    expect(readToken('abc123')).toBeNull()
    expect(readToken('Basic dXNlcjpwYXNz')).toBeNull()
    expect(readToken('token a b')).toBeNull()
  })
})

describe('resetPassword', () => {
  it("sets a new password that keeps the rule, ends the account's dashboard sign-ins and keeps its personal tokens", async () => {
    const id = newId()
    await database.db.insert(users).values({ id, email: 'Lost@Example.com', name: 'Lost', passwordHash: await hashPassword('the old password') })
    const signIn = await createSignInToken(database.db, id, 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0')
    const personal = await createToken(database.db, id, 'CI')
    const otherId = newId()
    await database.db.insert(users).values({ id: otherId, email: 'other-reset@example.com', name: 'Other' })
    const othersSignIn = await createSignInToken(database.db, otherId, undefined)

    const reset = await resetPassword(database.db, ' lost@example.com ')
    expect(reset).toEqual({ email: 'Lost@Example.com', password: expect.stringMatching(/^[\w-]{16}$/), signInsEnded: 1 })
    const [row] = await database.db.select().from(users).where(eq(users.id, id))
    expect(await verifyPassword(reset!.password, row!.passwordHash!)).toBe(true)
    expect(await verifyPassword('the old password', row!.passwordHash!)).toBe(false)
    expect(await findUserByToken(database.db, signIn.token)).toBeNull()
    expect((await findUserByToken(database.db, personal.token))?.id).toBe(id)
    expect((await findUserByToken(database.db, othersSignIn.token))?.id).toBe(otherId)
  })

  it('changes nothing for an email no account has', async () => {
    expect(await resetPassword(database.db, 'nobody-here@example.com')).toBeNull()
  })
})
