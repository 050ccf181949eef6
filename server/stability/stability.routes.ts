import { projectScopeOf } from '../auth/scope.ts'
import { Hono } from 'hono'
import type { AppEnv } from '../context.ts'
import { filtersFromUrl } from '../filters/filter-sql.ts'
import { getStability } from './stability.service.ts'

export const stabilityRoutes = new Hono<AppEnv>().get('/projects/:projectId/stability', async (c) =>
  c.json(await getStability(c.var.deps.database.db, projectScopeOf(c), filtersFromUrl(c.req.url))),
)
