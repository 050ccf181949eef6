import { Hono } from 'hono'
import { projectScopeOf, requireAdmin } from '../auth/scope.ts'
import type { AppEnv } from '../context.ts'
import { ValidationError } from '../failures.ts'
import { deleteSymbolFile, listSymbolFiles, readMinidump } from './native-symbols.service.ts'
import { acceptBreakpadUpload, acceptElfUpload } from './symbol-uploads.routes.ts'

/** Whether a request (path below the API's mount) is the dashboard's symbol upload: streamed under its own limit, not the API's JSON body limit. */
export const isNativeSymbolUpload = (method: string, path: string) => method === 'POST' && /^\/projects\/[^/]+\/native_symbols\/?$/.test(path)

/** The Data Access API's native symbol files of a project, and minidumps' download (docs/native.md). */
export const nativeRoutes = new Hono<AppEnv>()
  .get('/projects/:projectId/native_symbols', async (c) => c.json(await listSymbolFiles(c.var.deps.database.db, projectScopeOf(c).projectId)))
  // As with source maps, any member may upload (they see the API key the upload tools use);
  // deleting, which changes what later events resolve to, needs an admin.
  .post('/projects/:projectId/native_symbols', async (c) => {
    const { projectId, userId } = projectScopeOf(c)
    const kind = c.req.query('kind')
    if (kind !== 'breakpad' && kind !== 'elf') {
      throw new ValidationError('kind: must be breakpad (a .sym file in symbol_file) or elf (a shared object, debug-only extract or its .gz in soFile)')
    }
    const authority = { by: 'user' as const, projectId, userId }
    const id = kind === 'breakpad' ? await acceptBreakpadUpload(c, authority) : await acceptElfUpload(c, authority)
    const [file] = await listSymbolFiles(c.var.deps.database.db, projectId, id)
    return c.json(file, 201)
  })
  .delete('/projects/:projectId/native_symbols/:symbolFileId', requireAdmin, async (c) => {
    await deleteSymbolFile(c.var.deps.database.db, projectScopeOf(c).projectId, c.req.param('symbolFileId'))
    return c.body(null, 204)
  })
  // A dump holds the process's memory (secrets, personal data): admins only.
  .get('/projects/:projectId/events/:eventId/minidump', requireAdmin, async (c) => {
    const eventId = c.req.param('eventId')
    const dump = await readMinidump(c.var.deps.database.db, projectScopeOf(c).projectId, eventId)
    c.header('Content-Type', 'application/octet-stream')
    c.header('Content-Disposition', `attachment; filename="${eventId.replace(/[^\w-]/g, '')}.dmp"`)
    c.header('Cache-Control', 'private, no-store')
    return c.body(new Uint8Array(dump))
  })
