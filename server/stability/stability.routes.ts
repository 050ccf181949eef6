import { projectScopeOf } from '../auth/scope.ts'
import { Hono } from 'hono'
import { trendQuerySchema } from '../../contract/trends.ts'
import type { AppEnv } from '../context.ts'
import { filtersFromUrl } from '../filters/filter-sql.ts'
import { parseInput, queryObject } from '../http/validate.ts'
import { getStability, getStabilityTrend } from './stability.service.ts'

export const stabilityRoutes = new Hono<AppEnv>()
  .get('/projects/:projectId/stability', async (c) =>
    c.json(await getStability(c.var.deps.database.db, projectScopeOf(c), filtersFromUrl(c.req.url))),
  )
  .get('/projects/:projectId/stability/trend', async (c) => {
    const query = parseInput(trendQuerySchema, queryObject(c.req.url))
    return c.json(await getStabilityTrend(c.var.deps.database.db, projectScopeOf(c), query, filtersFromUrl(c.req.url)))
  })
