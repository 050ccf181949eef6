import { Hono } from 'hono'
import { loginRequestSchema } from '../../contract/users.ts'
import { revokeToken } from '../auth/tokens.ts'
import type { AppEnv } from '../context.ts'
import { clientAddress } from '../http/client-address.ts'
import { UnauthorizedError } from '../failures.ts'
import { parseInput, readJson } from '../http/validate.ts'
import { getUser, login } from './users.service.ts'

/** Sign-in: needs no token (mounted before authentication), and is throttled against password guessing. */
export const authRoutes = new Hono<AppEnv>().post('/auth/login', async (c) => {
  const input = parseInput(loginRequestSchema, await readJson(c.req.raw))
  const attempt = c.var.deps.loginThrottle.begin(input.email, clientAddress(c))
  const session = await login(c.var.deps.database.db, input.email, input.password, c.req.header('User-Agent')).catch((err: unknown) => {
    if (!(err instanceof UnauthorizedError)) attempt.uncounted()
    throw err
  })
  attempt.succeeded()
  return c.json(session, 200)
})

export const userRoutes = new Hono<AppEnv>()
  .get('/user', async (c) => c.json(await getUser(c.var.deps.database.db, c.var.user.id)))
  // Signs the dashboard out by revoking the token this request was made with.
  .post('/auth/logout', async (c) => {
    await revokeToken(c.var.deps.database.db, c.var.user.id, c.var.user.tokenId)
    return c.body(null, 204)
  })
