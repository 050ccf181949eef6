import type { Context, MiddlewareHandler } from 'hono'
import type { AppEnv, Principal } from '../context.ts'
import { UnauthorizedError } from '../failures.ts'
import { clientAddress } from '../http/client-address.ts'
import { userWithPassword } from '../users/users.service.ts'
import { findOrganizationByToken, findUserByToken, ORGANIZATION_TOKEN_PREFIX } from './tokens.ts'

/** `Authorization: token <TOKEN>` (Bugsnag's form); `Bearer <TOKEN>` is accepted too. */
export function readToken(header: string | undefined): string | null {
  const match = header?.trim().match(/^(?:token|bearer)\s+(\S+)$/i)
  return match?.[1] ?? null
}

/** `Authorization: Basic <base64 of email:password>`, as the legacy API took it; null for any other header. */
export function readBasic(header: string | undefined): { email: string; password: string } | null {
  const match = header?.trim().match(/^basic\s+([A-Za-z0-9+/=]+)$/i)
  if (!match) return null
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon <= 0) return null
  return { email: decoded.slice(0, colon).trim().toLowerCase(), password: decoded.slice(colon + 1) }
}

/** The `auth_token` query parameter, the legacy API's other form; null when absent or empty. */
function queryToken(url: string): string | null {
  return new URL(url).searchParams.get('auth_token')?.trim() || null
}

/** Whether a request carries credentials in one of the forms the API reads (its root on the main port serves such requests). */
export function carriesCredentials(req: Request): boolean {
  return /^(?:token|bearer|basic)\s/i.test(req.headers.get('Authorization') ?? '') || new URL(req.url).searchParams.has('auth_token')
}

/** An auth token of either kind: an organization token by its prefix, else a user's. */
async function principalOfToken(c: Context<AppEnv>, token: string): Promise<Principal | null> {
  const { db } = c.var.deps.database
  if (token.startsWith(ORGANIZATION_TOKEN_PREFIX)) return findOrganizationByToken(db, token)
  const user = await findUserByToken(db, token)
  return user ? { kind: 'user', user } : null
}

/** Email and password, throttled exactly as POST /auth/login is (the same counts: guessing here is guessing there). */
async function principalOfPassword(c: Context<AppEnv>, email: string, password: string): Promise<Principal> {
  const attempt = c.var.deps.loginThrottle.begin(email, clientAddress(c), null)
  const user = await userWithPassword(c.var.deps.database.db, email, password).catch((err: unknown) => {
    if (!(err instanceof UnauthorizedError)) attempt.uncounted()
    throw err
  })
  attempt.succeeded()
  return { kind: 'user', user: { id: user.id, email: user.email, name: user.name, tokenId: null } }
}

/**
 * Who the request's credentials name, in the three forms the API reads: `Authorization: token …`
 * (or `Bearer …`), the `auth_token` query parameter, and HTTP Basic with email and password.
 * 401 for none, a malformed one or one that does not work. Which principals a route takes is
 * decided after the version (server/http/api-version.ts): organization tokens reach the legacy API only.
 */
export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const header = c.req.header('Authorization')
  const basic = readBasic(header)
  const token = readToken(header) ?? (header?.trim() ? null : queryToken(c.req.url))
  let principal: Principal | null
  if (basic) principal = await principalOfPassword(c, basic.email, basic.password)
  else if (token) principal = await principalOfToken(c, token)
  else throw new UnauthorizedError()
  if (!principal) throw new UnauthorizedError('the auth token is invalid or has been revoked')
  c.set('principal', principal)
  if (principal.kind === 'user') c.set('user', principal.user)
  await next()
}
