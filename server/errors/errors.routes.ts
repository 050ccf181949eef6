import { projectScopeOf } from '../auth/scope.ts'
import { Hono } from 'hono'
import { bulkErrorsQuerySchema, errorOperationSchema, listErrorsQuerySchema, mergeErrorIdsSchema } from '../../contract/errors.ts'
import type { AppEnv } from '../context.ts'
import { filtersFromUrl } from '../filters/filter-sql.ts'
import { setPageHeaders, urlBuilder } from '../http/urls.ts'
import { listParam, parseInput, queryObject, readJson } from '../http/validate.ts'
import { listStatusChanges, operateOnError, operateOnErrors } from './error-operations.service.ts'
import { webhookDeps } from '../webhooks/webhook-deps.ts'
import { findRemappedError } from './remapped.service.ts'
import { countErrorsByStatus, getError, getLatestEvent, listErrors } from './errors.service.ts'

export const errorRoutes = new Hono<AppEnv>()
  .get('/projects/:projectId/errors', async (c) => {
    const query = parseInput(listErrorsQuerySchema, queryObject(c.req.url))
    const filters = filtersFromUrl(c.req.url)
    const page = await listErrors(
      c.var.deps.database.db,
      urlBuilder(c),
      projectScopeOf(c),
      query,
      filters,
    )
    setPageHeaders(c, page)
    return c.json(page.errors)
  })
  .get('/projects/:projectId/error_status_counts', async (c) =>
    c.json(await countErrorsByStatus(c.var.deps.database.db, projectScopeOf(c), filtersFromUrl(c.req.url))),
  )
  .get('/projects/:projectId/errors/:errorId', async (c) =>
    c.json(
      await getError(
        c.var.deps.database.db,
        urlBuilder(c),
        projectScopeOf(c),
        c.req.param('errorId'),
      ),
    ),
  )
  .get('/projects/:projectId/errors/:errorId/latest_event', async (c) =>
    c.json(
      await getLatestEvent(
        c.var.deps.database.db,
        urlBuilder(c),
        projectScopeOf(c),
        c.req.param('errorId'),
      ),
    ),
  )
  // Whether a source map uploaded since would map the error's events, and the error they now group as.
  .get('/projects/:projectId/errors/:errorId/remapped', async (c) =>
    c.json(await findRemappedError(c.var.deps, projectScopeOf(c), c.req.param('errorId'))),
  )
  // Status workflow and merging (docs/errors-workflow.md): one error, many errors, and the history.
  .patch('/projects/:projectId/errors/:errorId', async (c) => {
    const operation = parseInput(errorOperationSchema, await readJson(c.req.raw))
    const error = await operateOnError(
      c.var.deps.database.db,
      urlBuilder(c),
      projectScopeOf(c),
      c.req.param('errorId'),
      operation,
    )
    // A status change may have queued errorStateManualChange notifications: start them now.
    webhookDeps(c.var.deps).wakeJobs()
    return error ? c.json(error) : c.body(null, 204)
  })
  .patch('/projects/:projectId/errors', async (c) => {
    const ids = { error_ids: listParam(c.req.url, 'error_ids') }
    const operation = parseInput(errorOperationSchema, await readJson(c.req.raw))
    // A merge's ids keep their order and may not repeat: the first is the error that stays.
    const { error_ids } = parseInput(operation.operation === 'merge' ? mergeErrorIdsSchema : bulkErrorsQuerySchema, ids)
    const results = await operateOnErrors(c.var.deps.database.db, urlBuilder(c), projectScopeOf(c), error_ids, operation)
    webhookDeps(c.var.deps).wakeJobs()
    return c.json(results)
  })
  .get('/projects/:projectId/errors/:errorId/status_changes', async (c) =>
    c.json(
      await listStatusChanges(c.var.deps.database.db, projectScopeOf(c), c.req.param('errorId')),
    ),
  )
