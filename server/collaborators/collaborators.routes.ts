import { Hono } from 'hono'
import type { AppEnv } from '../context.ts'
import {
  getOrganizationCollaborator,
  listOrganizationCollaborators,
  listProjectCollaborators,
} from './collaborators.service.ts'

export const collaboratorRoutes = new Hono<AppEnv>()
  .get('/organizations/:organizationId/collaborators', async (c) =>
    c.json(await listOrganizationCollaborators(c.var.deps.database.db, c.var.user.id, c.req.param('organizationId'))),
  )
  .get('/organizations/:organizationId/collaborators/:collaboratorId', async (c) =>
    c.json(
      await getOrganizationCollaborator(
        c.var.deps.database.db,
        c.var.user.id,
        c.req.param('organizationId'),
        c.req.param('collaboratorId'),
      ),
    ),
  )
  .get('/projects/:projectId/collaborators', async (c) =>
    c.json(await listProjectCollaborators(c.var.deps.database.db, c.var.user.id, c.req.param('projectId'))),
  )
