import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AuthToken, CreatedToken } from '../../contract/tokens.ts'
import type { LoginResponse } from '../../contract/users.ts'
import { hashToken, SIGN_IN_TOKEN_IDLE_DAYS } from '../auth/tokens.ts'
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

const CHROME_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'

/** Signs Alice in from a client sending `userAgent`; the description of the token it got. */
async function signInFrom(userAgent: string | undefined): Promise<string> {
  const res = await ctx.request('/api/auth/login', {
    method: 'POST',
    json: { email: alice.email, password: 'alice password 123' },
    headers: userAgent === undefined ? {} : { 'User-Agent': userAgent },
  })
  expect(res.status).toBe(200)
  const { token } = (await res.json()) as LoginResponse
  const current = (await list(token)).find((t) => t.current)!
  expect((await revoke(token, current.id)).status).toBe(204)
  return current.description
}

describe('dashboard sign-in tokens', () => {
  it('name the browser and system they were made from, so sessions can be told apart', async () => {
    expect(await signInFrom(CHROME_LINUX)).toBe('Dashboard sign-in · Chrome on Linux')
    expect(await signInFrom(SAFARI_IPHONE)).toBe('Dashboard sign-in · Safari on iOS')
    expect(await signInFrom('Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0')).toBe(
      'Dashboard sign-in · Firefox on Windows',
    )
    // What is known of the two, or neither.
    expect(await signInFrom('Mozilla/5.0 (X11; Linux x86_64) SomeBrowser/1.0')).toBe('Dashboard sign-in · Linux')
    expect(await signInFrom('curl/8.5.0')).toBe('Dashboard sign-in')
    expect(await signInFrom(undefined)).toBe('Dashboard sign-in')
  })

  it('keep the label short and free of the header’s own text, whatever the client sends', async () => {
    const hostile = `<img src=x onerror=alert(1)> (Windows NT 10.0) Chrome/1.${'9'.repeat(5_000)} ${'x'.repeat(20_000)}`
    const description = await signInFrom(hostile)
    expect(description).toBe('Dashboard sign-in · Chrome on Windows')
  })
})

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

describe('sign-in tokens expire after 30 days without use', () => {
  let dana: TestUser
  beforeAll(async () => {
    dana = await ctx.createUser('Dana', 'dana password 123')
  })
  const signIn = async () => {
    const res = await ctx.request('/api/auth/login', { method: 'POST', json: { email: dana.email, password: 'dana password 123' } })
    return ((await res.json()) as LoginResponse).token
  }
  /** Makes a token look created and last used `days` ago (or never used). */
  const age = async (token: string, days: number, used = true) => {
    await ctx.deps.database.db
      .update(authTokens)
      .set({ createdAt: sql`now() - make_interval(days => ${days})`, lastUsedAt: used ? sql`now() - make_interval(days => ${days})` : null })
      .where(eq(authTokens.tokenHash, hashToken(token)))
  }
  const works = async (token: string) => (await ctx.request('/api/user', { token })).status

  it('is 30 days', () => {
    expect(SIGN_IN_TOKEN_IDLE_DAYS).toBe(30)
  })

  it('stops a sign-in token unused for longer, and leaves one used within the period working', async () => {
    const [idle, recent, neverUsed] = [await signIn(), await signIn(), await signIn()]
    await age(idle, 31)
    await age(recent, 29)
    await age(neverUsed, 31, false)
    expect(await works(idle)).toBe(401)
    expect(await works(neverUsed)).toBe(401)
    expect(await works(recent)).toBe(200)
    // Using it starts the period again.
    expect(await works(recent)).toBe(200)
    const [row] = await ctx.deps.database.db.select({ lastUsedAt: authTokens.lastUsedAt }).from(authTokens).where(eq(authTokens.tokenHash, hashToken(recent)))
    expect(Date.now() - row!.lastUsedAt!.getTime()).toBeLessThan(60_000)
    // Expired tokens are not listed as working.
    const listed = await list(recent)
    expect(listed.map((t) => [t.description, t.current])).toEqual([
      ['test', false],
      ['Dashboard sign-in', true],
    ])
  })

  it('leaves personal tokens working however long they sit, whatever they are called', async () => {
    const created = (await (await create(dana.token, { description: 'Dashboard sign-in · Chrome on Linux' })).json()) as CreatedToken
    await age(created.token, 400)
    await age(dana.token, 400, false)
    expect(await works(created.token)).toBe(200)
    expect(await works(dana.token)).toBe(200)
  })
})
