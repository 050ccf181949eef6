import { organizationScopeOf, projectScopeOf, requireAdmin } from '../auth/scope.ts'
import { Hono, type Context } from 'hono'
import { createProjectSchema, updateProjectSchema } from '../../contract/projects.ts'
import type { AppEnv } from '../context.ts'
import { urlBuilder } from '../http/urls.ts'
import { parseInput, readJson } from '../http/validate.ts'
import {
  createProject,
  deleteProject,
  getProject,
  listProjects,
  regenerateProjectApiKey,
  updateProject,
  type ProjectView,
} from './projects.service.ts'

/** Where the project JSON's URLs point, and the server's default retention it shows. */
const viewOf = (c: Context<AppEnv>): ProjectView => ({ urls: urlBuilder(c), defaultRetentionDays: c.var.deps.config.retention.defaultDays })

export const projectRoutes = new Hono<AppEnv>()
  .get('/organizations/:organizationId/projects', async (c) =>
    c.json(await listProjects(c.var.deps.database.db, viewOf(c), organizationScopeOf(c))),
  )
  .post('/organizations/:organizationId/projects', requireAdmin, async (c) => {
    const input = parseInput(createProjectSchema, await readJson(c.req.raw))
    const project = await createProject(c.var.deps.database.db, viewOf(c), organizationScopeOf(c), input)
    return c.json(project, 201)
  })
  .get('/projects/:projectId', async (c) =>
    c.json(await getProject(c.var.deps.database.db, viewOf(c), projectScopeOf(c))),
  )
  .patch('/projects/:projectId', requireAdmin, async (c) => {
    const input = parseInput(updateProjectSchema, await readJson(c.req.raw))
    return c.json(
      await updateProject(c.var.deps.database.db, viewOf(c), projectScopeOf(c), input),
    )
  })
  .delete('/projects/:projectId', requireAdmin, async (c) => {
    await deleteProject(c.var.deps.database.db, projectScopeOf(c))
    return c.body(null, 204)
  })
  // Bugsnag's Data Access API regenerates a key by deleting it: the answer is the project with its new key.
  .delete('/projects/:projectId/api_key', requireAdmin, async (c) =>
    c.json(await regenerateProjectApiKey(c.var.deps.database.db, viewOf(c), projectScopeOf(c))),
  )
