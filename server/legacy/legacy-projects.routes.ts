import { Hono, type Context } from 'hono'
import { legacyPageQuerySchema, legacyProjectCreateSchema, legacyProjectUpdateSchema } from '../../contract/legacy.ts'
import { assertAdmin, organizationScopeOf, projectScopeOf } from '../auth/scope.ts'
import type { AppEnv } from '../context.ts'
import { urlBuilder } from '../http/urls.ts'
import { parseInput, queryObject } from '../http/validate.ts'
import { createProject, deleteProject, getProject, listProjects, updateProject, type ProjectView } from '../projects/projects.service.ts'
import { toLegacyProject } from './legacy-fields.ts'
import { byCreatedAt, legacyInput, legacyPage, legacyRoute, pathParam, setLegacyLinks } from './legacy-route.ts'
import { projectsOfUser } from './legacy-users.service.ts'

const viewOf = (c: Context<AppEnv>): ProjectView => ({ urls: urlBuilder(c), defaultRetentionDays: c.var.deps.config.retention.defaultDays })

/** The legacy Projects API (docs/legacy-api.md#projects), on v2's projects service. */
export const legacyProjectRoutes = new Hono<AppEnv>()
  .get(
    '/accounts/:accountId/projects',
    legacyRoute(async (c) => {
      const query = parseInput(legacyPageQuerySchema('created_at'), queryObject(c.req.url))
      const scope = organizationScopeOf(c)
      const projects = await listProjects(c.var.deps.database.db, viewOf(c), scope)
      const { page, next } = legacyPage(c, byCreatedAt(projects, query.direction), query)
      setLegacyLinks(c, `/organizations/${scope.organizationId}/projects`, next)
      return c.json(page.map((project) => toLegacyProject(urlBuilder(c), project)))
    }),
  )
  .get(
    '/users/:userId/projects',
    legacyRoute(async (c) => {
      const query = parseInput(legacyPageQuerySchema('created_at'), queryObject(c.req.url))
      const projects = await projectsOfUser(c.var.deps.database.db, viewOf(c), c.var.principal, pathParam(c, 'userId'))
      const { page, next } = legacyPage(c, byCreatedAt(projects, query.direction), query)
      setLegacyLinks(c, '/user/organizations', next)
      return c.json(page.map((project) => toLegacyProject(urlBuilder(c), project)))
    }),
  )
  .get(
    '/projects/:projectId',
    legacyRoute(async (c) => {
      const scope = projectScopeOf(c)
      setLegacyLinks(c, `/projects/${scope.projectId}`)
      return c.json(toLegacyProject(urlBuilder(c), await getProject(c.var.deps.database.db, viewOf(c), scope)))
    }),
  )
  .post(
    '/accounts/:accountId/projects',
    legacyRoute(async (c) => {
      const scope = assertAdmin(c)
      const input = parseInput(legacyProjectCreateSchema, await legacyInput(c, {}))
      const project = await createProject(c.var.deps.database.db, viewOf(c), scope, input)
      setLegacyLinks(c, `/projects/${project.id}`)
      return c.json(toLegacyProject(urlBuilder(c), project), 201)
    }),
  )
  .patch(
    '/projects/:projectId',
    legacyRoute(async (c) => {
      assertAdmin(c)
      const scope = projectScopeOf(c)
      const input = parseInput(legacyProjectUpdateSchema, await legacyInput(c, {}))
      setLegacyLinks(c, `/projects/${scope.projectId}`)
      return c.json(toLegacyProject(urlBuilder(c), await updateProject(c.var.deps.database.db, viewOf(c), scope, input)))
    }),
  )
  // v2's delete: the project with all its errors and events, in one transaction.
  .delete(
    '/projects/:projectId',
    legacyRoute(async (c) => {
      assertAdmin(c)
      const scope = projectScopeOf(c)
      await deleteProject(c.var.deps.database.db, scope)
      setLegacyLinks(c, `/projects/${scope.projectId}`)
      return c.body(null, 204)
    }),
  )
