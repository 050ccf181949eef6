import { projectScopeOf, requireAdmin } from '../auth/scope.ts'
import { Hono } from 'hono'
import { listSourceMapsQuerySchema } from '../../contract/source-maps.ts'
import type { AppEnv } from '../context.ts'
import { setPageHeaders, urlBuilder } from '../http/urls.ts'
import { parseInput, queryObject } from '../http/validate.ts'
import { deleteSourceMap, getSourceMap, listSourceMaps } from './source-maps.service.ts'

/** The Data Access API's source maps of a project (docs/api.md, "Source maps"). */
export const sourceMapRoutes = new Hono<AppEnv>()
  .get('/projects/:projectId/source_maps', async (c) => {
    const query = parseInput(listSourceMapsQuerySchema, queryObject(c.req.url))
    const page = await listSourceMaps(c.var.deps.database.db, urlBuilder(c), projectScopeOf(c), query)
    setPageHeaders(c, page)
    return c.json(page.sourceMaps)
  })
  .get('/projects/:projectId/source_maps/:sourceMapId', async (c) =>
    c.json(await getSourceMap(c.var.deps.database.db, urlBuilder(c), projectScopeOf(c), c.req.param('sourceMapId'))),
  )
  .delete('/projects/:projectId/source_maps/:sourceMapId', requireAdmin, async (c) => {
    await deleteSourceMap(c.var.deps.database.db, projectScopeOf(c), c.req.param('sourceMapId'))
    return c.body(null, 204)
  })
