import { Hono } from 'hono'
import { projectScopeOf, requireAdmin } from '../auth/scope.ts'
import type { AppEnv } from '../context.ts'
import { projectStorage, serverStorage } from './storage.service.ts'

/** Disk use, for admins (docs/operations.md, "Disk space"): a project's, and this server's (shared by every organization). */
export const storageRoutes = new Hono<AppEnv>()
  .get('/projects/:projectId/storage', requireAdmin, async (c) => c.json(await projectStorage(c.var.deps.database.db, projectScopeOf(c))))
  .get('/organizations/:organizationId/storage', requireAdmin, async (c) => c.json(await serverStorage(c.var.deps)))
