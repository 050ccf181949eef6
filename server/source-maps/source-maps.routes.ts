import { projectScopeOf, requireAdmin } from '../auth/scope.ts'
import { Hono } from 'hono'
import { listSourceMapsQuerySchema } from '../../contract/source-maps.ts'
import type { AppEnv } from '../context.ts'
import { setPageHeaders, urlBuilder } from '../http/urls.ts'
import { parseInput, queryObject } from '../http/validate.ts'
import { uploadSourceMapAsUser } from './source-maps-upload.routes.ts'
import { deleteSourceMap, getSourceMap, listSourceMaps } from './source-maps.service.ts'

/**
 * The dashboard's upload (multipart, streamed): the API's JSON body limit does not apply to it;
 * the upload's own limits (ERRATA_MAX_SOURCE_MAP_BYTES) are enforced while it streams.
 */
export const SOURCE_MAP_UPLOAD_ROUTE = '/projects/:projectId/source_maps'
/** Whether a request (path below the API's mount) is that upload. */
export const isSourceMapUpload = (method: string, path: string) => method === 'POST' && /^\/projects\/[^/]+\/source_maps\/?$/.test(path)

/** The Data Access API's source maps of a project (docs/api.md, "Source maps"). */
export const sourceMapRoutes = new Hono<AppEnv>()
  .get('/projects/:projectId/source_maps', async (c) => {
    const query = parseInput(listSourceMapsQuerySchema, queryObject(c.req.url))
    const page = await listSourceMaps(c.var.deps.database.db, urlBuilder(c), projectScopeOf(c), query)
    setPageHeaders(c, page)
    return c.json(page.sourceMaps)
  })
  // Any member may upload, as anyone who sees the project sees its API key, which lets the upload
  // tools do the same; deleting (which changes what later events map to) needs an admin.
  .post(SOURCE_MAP_UPLOAD_ROUTE, async (c) => {
    const scope = projectScopeOf(c)
    const id = await uploadSourceMapAsUser(c, scope.projectId)
    return c.json(await getSourceMap(c.var.deps.database.db, urlBuilder(c), scope, id), 201)
  })
  .get('/projects/:projectId/source_maps/:sourceMapId', async (c) =>
    c.json(await getSourceMap(c.var.deps.database.db, urlBuilder(c), projectScopeOf(c), c.req.param('sourceMapId'))),
  )
  .delete('/projects/:projectId/source_maps/:sourceMapId', requireAdmin, async (c) => {
    await deleteSourceMap(c.var.deps.database.db, projectScopeOf(c), c.req.param('sourceMapId'))
    return c.body(null, 204)
  })
