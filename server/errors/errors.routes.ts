import { Hono } from 'hono'
import { listErrorsQuerySchema } from '../../contract/errors.ts'
import type { AppEnv } from '../context.ts'
import { setPageHeaders, urlBuilder } from '../http/urls.ts'
import { parseInput, queryObject } from '../http/validate.ts'
import { getError, getLatestEvent, listErrors } from './errors.service.ts'

export const errorRoutes = new Hono<AppEnv>()
  .get('/projects/:projectId/errors', async (c) => {
    const query = parseInput(listErrorsQuerySchema, queryObject(c.req.url))
    const page = await listErrors(c.var.deps.database.db, urlBuilder(c), c.var.user.id, c.req.param('projectId'), query)
    setPageHeaders(c, page)
    return c.json(page.errors)
  })
  .get('/projects/:projectId/errors/:errorId', async (c) =>
    c.json(
      await getError(
        c.var.deps.database.db,
        urlBuilder(c),
        c.var.user.id,
        c.req.param('projectId'),
        c.req.param('errorId'),
      ),
    ),
  )
  .get('/projects/:projectId/errors/:errorId/latest_event', async (c) =>
    c.json(
      await getLatestEvent(
        c.var.deps.database.db,
        urlBuilder(c),
        c.var.user.id,
        c.req.param('projectId'),
        c.req.param('errorId'),
      ),
    ),
  )
