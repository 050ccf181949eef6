import { projectScopeOf } from '../auth/scope.ts'
import { Hono, type Context } from 'hono'
import { listPivotsQuerySchema, listPivotValuesQuerySchema } from '../../contract/pivots.ts'
import type { AppEnv } from '../context.ts'
import { filtersFromUrl } from '../filters/filter-sql.ts'
import { setPageHeaders, urlBuilder } from '../http/urls.ts'
import { parseInput, queryObject } from '../http/validate.ts'
import { listPivots, listPivotValues, type PivotScope } from './pivots.service.ts'

/** A page of pivot values with its Link rel="next" and X-Total-Count (distinct values) headers. */
async function pivotValues(c: Context<AppEnv>, scope: PivotScope) {
  const query = parseInput(listPivotValuesQuerySchema, queryObject(c.req.url))
  const page = await listPivotValues(
    c.var.deps.database.db,
    scope,
    c.req.param('displayId') ?? '',
    query,
    filtersFromUrl(c.req.url),
  )
  setPageHeaders(c, page)
  return c.json(page.values)
}

/** The pivots of a project or an error with their top values. */
async function pivotSummaries(c: Context<AppEnv>, scope: PivotScope) {
  const url = new URL(c.req.url)
  // `pivots=a&pivots=b` (Bugsnag's generated clients), `pivots[]=a` or `pivots=a,b`.
  const pivots = [...url.searchParams.getAll('pivots'), ...url.searchParams.getAll('pivots[]')].flatMap((v) =>
    v.split(',').map((id) => (id.trim() === 'event.context' ? 'context' : id.trim())).filter(Boolean),
  )
  const query = parseInput(listPivotsQuerySchema, { summary_size: url.searchParams.get('summary_size') ?? undefined, pivots })
  return c.json(
    await listPivots(c.var.deps.database.db, urlBuilder(c), scope, query.pivots, query.summary_size, filtersFromUrl(c.req.url)),
  )
}

export const pivotRoutes = new Hono<AppEnv>()
  .get('/projects/:projectId/pivots', (c) => pivotSummaries(c, projectScopeOf(c)))
  .get('/projects/:projectId/errors/:errorId/pivots', (c) => pivotSummaries(c, { ...projectScopeOf(c), errorId: c.req.param('errorId') }))
  .get('/projects/:projectId/pivots/:displayId/values', (c) => pivotValues(c, projectScopeOf(c)))
  .get('/projects/:projectId/errors/:errorId/pivots/:displayId/values', (c) =>
    pivotValues(c, { ...projectScopeOf(c), errorId: c.req.param('errorId') }),
  )
