import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../app.ts'
import { createLoginThrottle, DEFAULT_LOGIN_LIMITS } from '../auth/login-throttle.ts'
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
  it('answers 410 for an absent header or 1 on a path the legacy API does not have, and echoes it', async () => {
    for (const value of ['', '1']) {
      const res = await ctx.request('/api/user/organizations', { token: alice.token, headers: { 'X-Version': value } })
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

describe('sign-in throttling', () => {
  const PASSWORD = 'correct horse battery'
  const login = (email: string, password: string) => ctx.request('/api/auth/login', { method: 'POST', json: { email, password } })
  const failTimes = async (email: string, times: number) => {
    for (let i = 0; i < times; i++) expect((await login(email, 'wrong password')).status).toBe(401)
  }

  it('answers 429 with Retry-After after 10 failures for one email, even for the right password', async () => {
    const user = await ctx.createUser('Throttled User')
    await failTimes(user.email, 10)
    const res = await login(user.email.toUpperCase(), PASSWORD)
    expect(res.status).toBe(429)
    expect(Number(res.headers.get('Retry-After'))).toBeGreaterThan(14 * 60)
    expect(Number(res.headers.get('Retry-After'))).toBeLessThanOrEqual(15 * 60)
    expect(await res.json()).toEqual({ errors: ['too many failed sign-ins for this email; try again in 15 minutes'] })
  })

  it('throttles an unknown email exactly as a known one, so answers never tell which exist', async () => {
    const known = await ctx.createUser('Known User')
    const unknown = `nobody.${newId()}@example.com`
    await failTimes(known.email, 10)
    await failTimes(unknown, 10)
    const [knownRes, unknownRes] = [await login(known.email, 'wrong password'), await login(unknown, 'wrong password')]
    expect([knownRes.status, unknownRes.status]).toEqual([429, 429])
    // The same wait, give or take the seconds the ten failed sign-ins in between took.
    const waits = [knownRes, unknownRes].map((res) => Number(res.headers.get('Retry-After')))
    expect(Math.abs(waits[0]! - waits[1]!)).toBeLessThan(30)
    expect(await knownRes.json()).toEqual(await unknownRes.json())
  })

  it('starts an email afresh after a right password', async () => {
    const user = await ctx.createUser('Forgetful User')
    await failTimes(user.email, 9)
    expect((await login(user.email, PASSWORD)).status).toBe(200)
    await failTimes(user.email, 9)
    expect((await login(user.email, PASSWORD)).status).toBe(200)
  })

  it('leaves other emails alone', async () => {
    const [attacked, other] = [await ctx.createUser('Attacked User'), await ctx.createUser('Other User')]
    await failTimes(attacked.email, 10)
    expect((await login(attacked.email, PASSWORD)).status).toBe(429)
    expect((await login(other.email, 'wrong password')).status).toBe(401)
    expect((await login(other.email, PASSWORD)).status).toBe(200)
  })

  it('counts guesses sent all at once as they arrive, not as they finish', async () => {
    const user = await ctx.createUser('Raced User')
    const answers = await Promise.all(Array.from({ length: 14 }, () => login(user.email, 'wrong password')))
    expect(answers.map((res) => res.status).sort()).toEqual([...Array(10).fill(401), ...Array(4).fill(429)])
  })

  describe('per client address, and when the wait ends', () => {
    let clock = Date.now()
    const throttled = () => createApp({ ...ctx.deps, loginThrottle: createLoginThrottle({ ...DEFAULT_LOGIN_LIMITS, perAddress: 3 }, () => clock) })
    // What @hono/node-server hands the app: the Node request, whose socket has the client's address.
    const from = (app: ReturnType<typeof createApp>, address: string, email: string, password: string, knownBrowser?: string) =>
      app.request(
        'http://errata.test/api/auth/login',
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...(knownBrowser ? { Cookie: `errata_known_browser=${knownBrowser}` } : {}) },
          body: JSON.stringify({ email, password }),
        },
        { incoming: { socket: { remoteAddress: address } } },
      )
    /** The value of the known-browser cookie a successful sign-in set. */
    const knownBrowserCookie = (res: Response) => /^errata_known_browser=([^;]+)/.exec(res.headers.get('Set-Cookie') ?? '')![1]!

    it('limits failures from one address across emails, more loosely, without touching other addresses', async () => {
      const app = throttled()
      const user = await ctx.createUser('Shared Office User')
      for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
        expect((await from(app, '203.0.113.7', email, 'wrong password')).status).toBe(401)
      }
      const blocked = await from(app, '203.0.113.7', user.email, PASSWORD)
      expect(blocked.status).toBe(429)
      expect(blocked.headers.get('Retry-After')).toBe('900')
      expect(await blocked.json()).toEqual({ errors: ['too many failed sign-ins from this address; try again in 15 minutes'] })
      expect((await from(app, '198.51.100.2', user.email, PASSWORD)).status).toBe(200)
    })

    it('does not limit addresses of this machine or a private network, where a reverse proxy connects from', async () => {
      const app = throttled()
      const user = await ctx.createUser('Behind Proxy User')
      for (const address of ['127.0.0.1', '::ffff:10.1.2.3', '192.168.5.9', '172.20.0.4', '::1', 'fd12:3456::1']) {
        for (const email of ['d@example.com', 'e@example.com', 'f@example.com']) {
          expect((await from(app, address, email, 'wrong password')).status).toBe(401)
        }
        expect((await from(app, address, user.email, PASSWORD)).status, address).toBe(200)
      }
      // Public addresses next to them still are: 172.32.x is outside 172.16.0.0/12.
      for (const email of ['g@example.com', 'h@example.com', 'i@example.com']) await from(app, '172.32.0.1', email, 'wrong password')
      expect((await from(app, '172.32.0.1', user.email, PASSWORD)).status).toBe(429)
    })

    it('cannot be used by someone elsewhere to lock a user out: failures count per email and address', async () => {
      const app = createApp({ ...ctx.deps, loginThrottle: createLoginThrottle(DEFAULT_LOGIN_LIMITS, () => clock) })
      const user = await ctx.createUser('Targeted User')
      // Ten wrong passwords for the user from the attacker's address (a web page could send them).
      for (let i = 0; i < 10; i++) expect((await from(app, '203.0.113.20', user.email, 'wrong password')).status).toBe(401)
      const attacker = await from(app, '203.0.113.20', user.email, PASSWORD)
      expect(attacker.status).toBe(429)
      expect(await attacker.json()).toEqual({ errors: ['too many failed sign-ins for this email; try again in 15 minutes'] })
      // The user, elsewhere, still signs in; and a few typos of their own do not add up with the attacker's.
      for (let i = 0; i < 3; i++) expect((await from(app, '198.51.100.20', user.email, 'wrong password')).status).toBe(401)
      expect((await from(app, '198.51.100.20', user.email, PASSWORD)).status).toBe(200)
    })

    it('only slows guesses at one email from many addresses, and never the browsers its owner signed in from', async () => {
      let time = clock
      const app = createApp({ ...ctx.deps, loginThrottle: createLoginThrottle(DEFAULT_LOGIN_LIMITS, () => time) })
      const user = await ctx.createUser('Widely Guessed User')
      const other = await ctx.createUser('Other Account User')
      // The owner signed in from this browser before: it keeps the cookie, for the sign-in path only.
      const signedIn = await from(app, '198.51.100.40', user.email, PASSWORD)
      expect(signedIn.status).toBe(200)
      expect(signedIn.headers.get('Set-Cookie')).toMatch(/^errata_known_browser=[\w-]+\.[\w-]+; Max-Age=31536000; Path=\/api\/auth\/login; HttpOnly; SameSite=Strict$/)
      const ownersBrowser = knownBrowserCookie(signedIn)
      const othersBrowser = knownBrowserCookie(await from(app, '198.51.100.40', other.email, PASSWORD))
      // Ten wrong passwords from each of ten addresses at once (a web page's visitors could send them).
      const guesses = await Promise.all(
        Array.from({ length: 10 }, async (_, address) => {
          const statuses: number[] = []
          for (let i = 0; i < 10; i++) statuses.push((await from(app, `203.0.113.${100 + address}`, user.email, 'wrong password')).status)
          return statuses
        }),
      )
      expect(guesses.flat()).toEqual(Array(100).fill(401))
      // A browser new to the account waits a second, not fifteen minutes; another account's cookie does not make it known.
      for (const cookie of [undefined, othersBrowser, `${ownersBrowser.split('.')[0]}.forged`]) {
        const fresh = await from(app, '198.51.100.41', user.email, PASSWORD, cookie)
        expect([fresh.status, fresh.headers.get('Retry-After')]).toEqual([429, '1'])
        expect(await fresh.json()).toEqual({ errors: ['too many failed sign-ins for this email from browsers it has not signed in from; try again in 1 second'] })
      }
      // The owner's browser gets in at once, from anywhere.
      expect((await from(app, '198.51.100.42', user.email, PASSWORD, ownersBrowser)).status).toBe(200)
      // After the wait, the right password gets in from a new browser too.
      time += 1000
      expect((await from(app, '198.51.100.41', user.email, PASSWORD)).status).toBe(200)
    }, 120_000)

    it('lets the right password in once the wait is over', async () => {
      const app = throttled()
      const user = await ctx.createUser('Patient User')
      for (let i = 0; i < 3; i++) expect((await from(app, '203.0.113.8', user.email, 'wrong password')).status).toBe(401)
      expect((await from(app, '203.0.113.8', user.email, PASSWORD)).status).toBe(429)
      clock += 14 * 60_000
      const later = await from(app, '203.0.113.8', user.email, PASSWORD)
      expect([later.status, later.headers.get('Retry-After')]).toEqual([429, '60'])
      expect((await later.json()).errors).toEqual(['too many failed sign-ins from this address; try again in 1 minute'])
      clock += 60_000
      expect((await from(app, '203.0.113.8', user.email, PASSWORD)).status).toBe(200)
    })
  })
})
