import { Hono, type Context } from 'hono'
import { listPivotValuesQuerySchema } from '../../contract/pivots.ts'
import type { AppEnv } from '../context.ts'
import { filtersFromUrl } from '../filters/filter-sql.ts'
import { setPageHeaders } from '../http/urls.ts'
import { parseInput, queryObject } from '../http/validate.ts'
import { listPivotValues, type PivotScope } from './pivots.service.ts'

/** A page of pivot values with its Link rel="next" and X-Total-Count (distinct values) headers. */
async function pivotValues(c: Context<AppEnv>, scope: PivotScope) {
  const query = parseInput(listPivotValuesQuerySchema, queryObject(c.req.url))
  const page = await listPivotValues(
    c.var.deps.database.db,
    c.var.user.id,
    scope,
    c.req.param('displayId') ?? '',
    query,
    filtersFromUrl(c.req.url),
  )
  setPageHeaders(c, page)
  return c.json(page.values)
}

export const pivotRoutes = new Hono<AppEnv>()
  .get('/projects/:projectId/pivots/:displayId/values', (c) => pivotValues(c, { projectId: c.req.param('projectId') }))
  .get('/projects/:projectId/errors/:errorId/pivots/:displayId/values', (c) =>
    pivotValues(c, { projectId: c.req.param('projectId'), errorId: c.req.param('errorId') }),
  )
