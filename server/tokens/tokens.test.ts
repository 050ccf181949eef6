import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuthToken, CreatedToken } from '../../contract/tokens.ts'
import type { LoginResponse } from '../../contract/users.ts'
import { authTokens } from '../db/schema.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

let ctx: TestContext
let alice: TestUser
let mallory: TestUser

beforeAll(async () => {
  ctx = await createTestContext()
  alice = await ctx.createUser('Alice', 'alice password 123')
  mallory = await ctx.createUser('Mallory')
})
afterAll(() => ctx.close())

const list = async (token: string) => {
  const res = await ctx.request('/api/user/tokens', { token })
  expect(res.status).toBe(200)
  return (await res.json()) as AuthToken[]
}
const create = (token: string, json: unknown) => ctx.request('/api/user/tokens', { method: 'POST', token, json })
const revoke = (token: string, id: string) => ctx.request(`/api/user/tokens/${id}`, { method: 'DELETE', token })

describe('personal auth tokens', () => {
  it('creates a token whose secret is shown once and works', async () => {
    const res = await create(alice.token, { description: '  CI deploys  ' })
    expect(res.status).toBe(201)
    const created = (await res.json()) as CreatedToken
    expect(created).toEqual({
      id: expect.any(String),
      description: 'CI deploys',
      created_at: expect.any(String),
      last_used_at: null,
      current: false,
      token: expect.stringMatching(/^[0-9a-f]{40}$/),
    })
    expect((await ctx.request('/api/user', { token: created.token })).status).toBe(200)
    // Never listed with its secret.
    const listed = await list(alice.token)
    expect(JSON.stringify(listed)).not.toContain(created.token)
    expect(listed.find((t) => t.id === created.id)).toMatchObject({ description: 'CI deploys', current: false })
  })

  it("lists the caller's working tokens newest first, marking the one in use and when each was last used", async () => {
    const login = (await (
      await ctx.request('/api/auth/login', { method: 'POST', json: { email: alice.email, password: 'alice password 123' } })
    ).json()) as LoginResponse
    const listed = await list(login.token)
    expect(listed.map((t) => t.description)).toEqual(['Dashboard sign-in', 'CI deploys', 'test'])
    expect(listed.map((t) => t.current)).toEqual([true, false, false])
    const times = listed.map((t) => t.created_at)
    expect([...times].sort().reverse()).toEqual(times)
    // The sign-in token was just used; last_used_at records it.
    expect(listed[0]!.last_used_at).not.toBeNull()
    // Other users' tokens never show up.
    expect((await list(mallory.token)).map((t) => t.description)).toEqual(['test'])
  })

  it('revokes a token: 204, then 401 with it and gone from the list', async () => {
    const created = (await (await create(alice.token, { description: 'short-lived' })).json()) as CreatedToken
    expect((await ctx.request('/api/user', { token: created.token })).status).toBe(200)
    const res = await revoke(alice.token, created.id)
    expect(res.status).toBe(204)
    const after = await ctx.request('/api/user', { token: created.token })
    expect(after.status).toBe(401)
    expect((await list(alice.token)).some((t) => t.id === created.id)).toBe(false)
    // Already revoked: 404.
    expect((await revoke(alice.token, created.id)).status).toBe(404)
  })

  it('may revoke the token of the request itself', async () => {
    const created = (await (await create(alice.token, { description: 'self-revoking' })).json()) as CreatedToken
    expect((await revoke(created.token, created.id)).status).toBe(204)
    expect((await ctx.request('/api/user/tokens', { token: created.token })).status).toBe(401)
  })

  it("answers 404 for another user's token and leaves it working", async () => {
    const [malloryToken] = await ctx.deps.database.db.select().from(authTokens).where(eq(authTokens.userId, mallory.id))
    const res = await revoke(alice.token, malloryToken!.id)
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ errors: ['Token not found'] })
    expect((await ctx.request('/api/user', { token: mallory.token })).status).toBe(200)
  })

  it('validates the description and needs auth', async () => {
    const empty = await create(alice.token, { description: '   ' })
    expect(empty.status).toBe(400)
    expect(await empty.json()).toEqual({ errors: ['description: must not be empty'] })
    const long = await create(alice.token, { description: 'x'.repeat(201) })
    expect(await long.json()).toEqual({ errors: ['description: must be at most 200 characters'] })
    expect((await create(alice.token, {})).status).toBe(400)
    expect((await ctx.request('/api/user/tokens')).status).toBe(401)
    expect((await ctx.request('/api/user/tokens', { method: 'POST', json: { description: 'x' } })).status).toBe(401)
  })
})
