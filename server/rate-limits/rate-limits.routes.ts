import { Hono } from 'hono'
import { projectScopeOf, requireAdmin } from '../auth/scope.ts'
import { updateRateLimitSchema } from '../../contract/rate-limits.ts'
import type { AppEnv } from '../context.ts'
import { parseInput, readJson } from '../http/validate.ts'
import { getRateLimit, updateRateLimit } from './rate-limits.service.ts'

/** A project's event quotas and sampling figures (docs/api.md, "Rate limit"). */
export const rateLimitRoutes = new Hono<AppEnv>()
  .get('/projects/:projectId/rate_limit', async (c) =>
    c.json(await getRateLimit(c.var.deps.database.db, projectScopeOf(c))),
  )
  .patch('/projects/:projectId/rate_limit', requireAdmin, async (c) => {
    const input = parseInput(updateRateLimitSchema, await readJson(c.req.raw))
    return c.json(await updateRateLimit(c.var.deps.database.db, projectScopeOf(c), input))
  })
