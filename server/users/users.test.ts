import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { revokeToken, createToken } from '../auth/tokens.ts'
import { newId } from '../db/ids.ts'
import { users } from '../db/schema.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

let ctx: TestContext
let alice: TestUser

beforeAll(async () => {
  ctx = await createTestContext()
  alice = await ctx.createUser('Alice Example')
})
afterAll(() => ctx.close())

describe('GET /user', () => {
  it('returns the authenticated user', async () => {
    const res = await ctx.request('/api/user', { token: alice.token })
    expect(res.status).toBe(200)
    expect(res.headers.get('X-Version')).toBe('2')
    const body = await res.json()
    expect(body).toEqual({ id: alice.id, name: 'Alice Example', email: alice.email, created_at: expect.any(String) })
    expect(new Date(body.created_at).toISOString()).toBe(body.created_at)
    expect(body).not.toHaveProperty('password_hash')
  })

  it('accepts "Bearer" as well as "token"', async () => {
    const res = await ctx.request('/api/user', { headers: { Authorization: `Bearer ${alice.token}` } })
    expect(res.status).toBe(200)
  })

  it('answers 401 without a token, with a malformed header, an unknown token or a revoked one', async () => {
    const none = await ctx.request('/api/user')
    expect(none.status).toBe(401)
    expect((await none.json()).errors[0]).toMatch(/Authorization header must be "token/)
    expect((await ctx.request('/api/user', { headers: { Authorization: alice.token } })).status).toBe(401)
    expect((await ctx.request('/api/user', { token: 'f'.repeat(40) })).status).toBe(401)

    const { id, token } = await createToken(ctx.deps.database.db, alice.id, 'to revoke')
    expect((await ctx.request('/api/user', { token })).status).toBe(200)
    await revokeToken(ctx.deps.database.db, alice.id, id)
    const revoked = await ctx.request('/api/user', { token })
    expect(revoked.status).toBe(401)
    expect(await revoked.json()).toEqual({ errors: ['the auth token is invalid or has been revoked'] })
    // Other tokens of the same user keep working.
    expect((await ctx.request('/api/user', { token: alice.token })).status).toBe(200)
  })
})

describe('X-Version', () => {
  it('answers 410 for an absent header or 1 (legacy API not yet available) and echoes it', async () => {
    for (const value of ['', '1']) {
      const res = await ctx.request('/api/user', { token: alice.token, headers: { 'X-Version': value } })
      expect(res.status, value).toBe(410)
      expect(res.headers.get('X-Version')).toBe('1')
      expect((await res.json()).errors[0]).toMatch(/X-Version: 2/)
    }
  })

  it('answers 400 naming the header for any other value', async () => {
    for (const value of ['3', 'two', '2.0']) {
      const res = await ctx.request('/api/user', { token: alice.token, headers: { 'X-Version': value } })
      expect(res.status, value).toBe(400)
      expect((await res.json()).errors[0]).toMatch(/^X-Version: /)
    }
  })
})

describe('POST /auth/login and /auth/logout', () => {
  const login = (json: unknown, headers?: Record<string, string>) =>
    ctx.request('/api/auth/login', { method: 'POST', json, headers })

  it('signs in with email (any case) and password, returning a new working token', async () => {
    const res = await login({ email: `  ${alice.email.toUpperCase()} `, password: 'correct horse battery' })
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toEqual({ token: expect.stringMatching(/^[0-9a-f]{40}$/), user: expect.objectContaining({ id: alice.id }) })
    expect(body.token).not.toBe(alice.token)
    expect((await ctx.request('/api/user', { token: body.token })).status).toBe(200)
  })

  it('works without X-Version so the dashboard can sign in before choosing a version', async () => {
    const res = await login({ email: alice.email, password: 'correct horse battery' }, { 'X-Version': '' })
    expect(res.status).toBe(200)
  })

  it('answers the same 401 for a wrong password, an unknown email and a user without a password', async () => {
    const noPassword = newId()
    await ctx.deps.database.db.insert(users).values({ id: noPassword, email: 'invited@example.com', name: 'Invited' })
    for (const json of [
      { email: alice.email, password: 'wrong' },
      { email: 'nobody@example.com', password: 'correct horse battery' },
      { email: 'invited@example.com', password: 'anything' },
    ]) {
      const res = await login(json)
      expect(res.status, json.email).toBe(401)
      expect(await res.json()).toEqual({ errors: ['email or password is incorrect'] })
    }
  })

  it('answers 400 naming the field for a bad body or a body that is not JSON', async () => {
    const missing = await login({ email: alice.email })
    expect(missing.status).toBe(400)
    expect((await missing.json()).errors).toEqual([expect.stringMatching(/^password: /)])
    const both = await login({})
    expect((await both.json()).errors).toEqual([expect.stringMatching(/^email: /), expect.stringMatching(/^password: /)])
    const notJson = await ctx.request('/api/auth/login', { method: 'POST', body: 'email=a&password=b' })
    expect(notJson.status).toBe(400)
    expect(await notJson.json()).toEqual({ errors: ['request body is not valid JSON'] })
  })

  it('logs out by revoking only the token used', async () => {
    const { token } = await (await login({ email: alice.email, password: 'correct horse battery' })).json()
    expect((await ctx.request('/api/auth/logout', { method: 'POST', token })).status).toBe(204)
    expect((await ctx.request('/api/user', { token })).status).toBe(401)
    expect((await ctx.request('/api/user', { token: alice.token })).status).toBe(200)
  })
})
