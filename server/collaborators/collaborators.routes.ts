import { requireAdmin } from '../auth/scope.ts'
import { Hono } from 'hono'
import { inviteCollaboratorSchema, updateCollaboratorSchema } from '../../contract/collaborators.ts'
import type { AppEnv } from '../context.ts'
import { urlBuilder } from '../http/urls.ts'
import { mailDeps } from '../mail/mail-deps.ts'
import { parseInput, readJson } from '../http/validate.ts'
import {
  getOrganizationCollaborator,
  inviteCollaborator,
  listOrganizationCollaborators,
  listProjectCollaborators,
  removeCollaborator,
  updateCollaborator,
} from './collaborators.service.ts'

export const collaboratorRoutes = new Hono<AppEnv>()
  .get('/organizations/:organizationId/collaborators', async (c) =>
    c.json(await listOrganizationCollaborators(c.var.deps.database.db, c.var.user.id, c.req.param('organizationId'))),
  )
  .post('/organizations/:organizationId/collaborators', requireAdmin, async (c) => {
    const input = parseInput(inviteCollaboratorSchema, await readJson(c.req.raw))
    return c.json(
      await inviteCollaborator(c.var.deps.database.db, urlBuilder(c), mailDeps(c.var.deps), c.var.user.id, c.req.param('organizationId'), input),
      201,
    )
  })
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
  .patch('/organizations/:organizationId/collaborators/:collaboratorId', requireAdmin, async (c) => {
    const input = parseInput(updateCollaboratorSchema, await readJson(c.req.raw))
    return c.json(
      await updateCollaborator(
        c.var.deps.database.db,
        c.var.user.id,
        c.req.param('organizationId'),
        c.req.param('collaboratorId'),
        input,
      ),
    )
  })
  .delete('/organizations/:organizationId/collaborators/:collaboratorId', requireAdmin, async (c) => {
    await removeCollaborator(
      c.var.deps.database.db,
      c.var.user.id,
      c.req.param('organizationId'),
      c.req.param('collaboratorId'),
    )
    return c.body(null, 204)
  })
  .get('/projects/:projectId/collaborators', async (c) =>
    c.json(await listProjectCollaborators(c.var.deps.database.db, c.var.user.id, c.req.param('projectId'))),
  )
