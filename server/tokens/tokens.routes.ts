import { Hono } from 'hono'
import { createTokenRequestSchema } from '../../contract/tokens.ts'
import type { AppEnv } from '../context.ts'
import { parseInput, readJson } from '../http/validate.ts'
import { createPersonalToken, listTokens, revokePersonalToken } from './tokens.service.ts'

/** The caller's personal auth tokens. */
export const tokenRoutes = new Hono<AppEnv>()
  .get('/user/tokens', async (c) =>
    c.json(await listTokens(c.var.deps.database.db, c.var.user.id, c.var.user.tokenId)),
  )
  .post('/user/tokens', async (c) => {
    const input = parseInput(createTokenRequestSchema, await readJson(c.req.raw))
    return c.json(
      await createPersonalToken(c.var.deps.database.db, c.var.user.id, c.var.user.tokenId, input.description),
      201,
    )
  })
  .delete('/user/tokens/:tokenId', async (c) => {
    await revokePersonalToken(c.var.deps.database.db, c.var.user.id, c.req.param('tokenId'))
    return c.body(null, 204)
  })
