import { projectScopeOf } from '../auth/scope.ts'
import { Hono, type Context } from 'hono'
import { bulkErrorsQuerySchema } from '../../contract/errors.ts'
import { trendQuerySchema } from '../../contract/trends.ts'
import type { AppEnv } from '../context.ts'
import { filtersFromUrl } from '../filters/filter-sql.ts'
import { listParam, parseInput, queryObject } from '../http/validate.ts'
import type { PivotScope } from '../pivots/pivots.service.ts'
import { getErrorTrends, getTrend } from './trends.service.ts'

async function trend(c: Context<AppEnv>, scope: PivotScope) {
  const query = parseInput(trendQuerySchema, queryObject(c.req.url))
  return c.json(await getTrend(c.var.deps.database.db, scope, query, filtersFromUrl(c.req.url)))
}

const projectScope = (c: Context<AppEnv>) => projectScopeOf(c)
const errorScope = (c: Context<AppEnv>) => ({ ...projectScopeOf(c), errorId: c.req.param('errorId')! })

// `…/trends` is the spelling some clients use; both answer the same.
export const trendRoutes = new Hono<AppEnv>()
  .get('/projects/:projectId/trend', (c) => trend(c, projectScope(c)))
  .get('/projects/:projectId/trends', (c) => trend(c, projectScope(c)))
  .get('/projects/:projectId/errors/:errorId/trend', (c) => trend(c, errorScope(c)))
  .get('/projects/:projectId/errors/:errorId/trends', (c) => trend(c, errorScope(c)))
  // Sparklines of up to 100 errors in one request (the errors list).
  .get('/projects/:projectId/error_trends', async (c) => {
    const { error_ids } = parseInput(bulkErrorsQuerySchema, { error_ids: listParam(c.req.url, 'error_ids') })
    const query = parseInput(trendQuerySchema, queryObject(c.req.url))
    return c.json(
      await getErrorTrends(
        c.var.deps.database.db,
        projectScopeOf(c),
        error_ids,
        query,
        filtersFromUrl(c.req.url),
      ),
    )
  })
