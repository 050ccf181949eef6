import { Hono } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'
import { loginRequestSchema } from '../../contract/users.ts'
import { KNOWN_BROWSER_COOKIE, KNOWN_BROWSER_MAX_AGE_SECONDS, knownBrowserId, newKnownBrowserCookie } from '../auth/known-browser.ts'
import { revokeToken } from '../auth/tokens.ts'
import type { AppEnv } from '../context.ts'
import { clientAddress } from '../http/client-address.ts'
import { UnauthorizedError } from '../failures.ts'
import { urlBuilder } from '../http/urls.ts'
import { parseInput, readJson } from '../http/validate.ts'
import { getUser, login } from './users.service.ts'

/**
 * Sign-in: needs no token (mounted before authentication), and is throttled against password
 * guessing, with the browsers this email signed in from before counted apart (their cookie).
 */
export const authRoutes = new Hono<AppEnv>().post('/auth/login', async (c) => {
  const input = parseInput(loginRequestSchema, await readJson(c.req.raw))
  const { db } = c.var.deps.database
  const browser = await knownBrowserId(db, input.email, getCookie(c, KNOWN_BROWSER_COOKIE))
  const attempt = c.var.deps.loginThrottle.begin(input.email, clientAddress(c), browser)
  const session = await login(db, input.email, input.password, c.req.header('User-Agent')).catch((err: unknown) => {
    if (!(err instanceof UnauthorizedError)) attempt.uncounted()
    throw err
  })
  attempt.succeeded()
  const cookie = await newKnownBrowserCookie(db, session.user.id)
  if (cookie) {
    setCookie(c, KNOWN_BROWSER_COOKIE, cookie, {
      path: `${c.var.apiMount}/auth/login`,
      maxAge: KNOWN_BROWSER_MAX_AGE_SECONDS,
      httpOnly: true,
      sameSite: 'Strict',
      secure: urlBuilder(c).web('/').startsWith('https:'),
    })
  }
  return c.json(session, 200)
})

export const userRoutes = new Hono<AppEnv>()
  .get('/user', async (c) => c.json(await getUser(c.var.deps.database.db, c.var.user.id)))
  // Signs the dashboard out by revoking the token this request was made with.
  .post('/auth/logout', async (c) => {
    await revokeToken(c.var.deps.database.db, c.var.user.id, c.var.user.tokenId)
    return c.body(null, 204)
  })
