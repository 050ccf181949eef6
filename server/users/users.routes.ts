import { Hono } from 'hono'
import { loginRequestSchema } from '../../contract/users.ts'
import { revokeToken } from '../auth/tokens.ts'
import type { AppEnv } from '../context.ts'
import { parseInput, readJson } from '../http/validate.ts'
import { getUser, login } from './users.service.ts'

/** Sign-in: needs no token (mounted before authentication). */
export const authRoutes = new Hono<AppEnv>().post('/auth/login', async (c) => {
  const input = parseInput(loginRequestSchema, await readJson(c.req.raw))
  return c.json(await login(c.var.deps.database.db, input.email, input.password, c.req.header('User-Agent')), 200)
})

export const userRoutes = new Hono<AppEnv>()
  .get('/user', async (c) => c.json(await getUser(c.var.deps.database.db, c.var.user.id)))
  // Signs the dashboard out by revoking the token this request was made with.
  .post('/auth/logout', async (c) => {
    await revokeToken(c.var.deps.database.db, c.var.user.id, c.var.user.tokenId)
    return c.body(null, 204)
  })
