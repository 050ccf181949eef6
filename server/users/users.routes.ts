import { Hono } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'
import { loginRequestSchema, passwordResetConfirmSchema, passwordResetRequestSchema } from '../../contract/users.ts'
import { createLoginThrottle } from '../auth/login-throttle.ts'
import { confirmPasswordReset, requestPasswordReset } from '../auth/password-reset.ts'
import { KNOWN_BROWSER_COOKIE, KNOWN_BROWSER_MAX_AGE_SECONDS, knownBrowserId, newKnownBrowserCookie } from '../auth/known-browser.ts'
import { revokeToken } from '../auth/tokens.ts'
import type { AppEnv } from '../context.ts'
import { clientAddress } from '../http/client-address.ts'
import { UnauthorizedError, ValidationError } from '../failures.ts'
import { urlBuilder } from '../http/urls.ts'
import { parseInput, readJson } from '../http/validate.ts'
import { mailDeps } from '../mail/mail-deps.ts'
import { perApp } from '../context.ts'
import { getUser, login } from './users.service.ts'

/**
 * Reset emails asked for, counted as the sign-in throttle counts failed sign-ins (per email and
 * address, per address, and a growing wait per email), so nobody floods an inbox or the SMTP
 * server: 5 an hour for one email from one address, 10 from anywhere before each waits longer.
 */
const resetThrottle = perApp(() =>
  createLoginThrottle({ perEmailAndAddress: 5, perEmail: 10, perAddress: 30, windowMs: 3_600_000, lockMs: 3_600_000, maxDelayMs: 3_600_000 }),
)

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
  .get('/auth/password-reset', (c) => c.json({ email_enabled: mailDeps(c.var.deps).transport !== null }))
  // 202 whether or not an account has the email (the throttle's answers do not tell either).
  .post('/auth/password-reset', async (c) => {
    const input = parseInput(passwordResetRequestSchema, await readJson(c.req.raw))
    resetThrottle(c.var.deps).begin(input.email, clientAddress(c), null)
    await requestPasswordReset(c.var.deps.database.db, mailDeps(c.var.deps), c.var.deps.config.passwordResetMs, input.email)
    return c.body(null, 202)
  })
  .post('/auth/password-reset/confirm', async (c) => {
    const input = parseInput(passwordResetConfirmSchema, await readJson(c.req.raw))
    await confirmPasswordReset(c.var.deps.database.db, input.token, input.password)
    return c.body(null, 204)
  })

export const userRoutes = new Hono<AppEnv>()
  .get('/user', async (c) => c.json(await getUser(c.var.deps.database.db, c.var.user.id)))
  // Signs the dashboard out by revoking the token this request was made with.
  .post('/auth/logout', async (c) => {
    const { tokenId } = c.var.user
    if (tokenId === null) throw new ValidationError('Authorization: signing out revokes the auth token of the request, and this one signed in with a password')
    await revokeToken(c.var.deps.database.db, c.var.user.id, tokenId)
    return c.body(null, 204)
  })
