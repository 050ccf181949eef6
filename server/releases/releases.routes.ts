import { projectScopeOf } from '../auth/scope.ts'
import { Hono } from 'hono'
import { listReleaseGroupsQuerySchema, listReleasesQuerySchema } from '../../contract/releases.ts'
import type { AppEnv } from '../context.ts'
import { setPageHeaders, urlBuilder } from '../http/urls.ts'
import { parseInput, queryObject } from '../http/validate.ts'
import { getRelease, getReleaseGroup, listReleaseGroups, listReleases } from './releases.service.ts'

/** Releases and release groups (docs/releases.md), as Bugsnag's Data Access API names them. */
export const releaseRoutes = new Hono<AppEnv>()
  .get('/projects/:projectId/releases', async (c) => {
    const query = parseInput(listReleasesQuerySchema, queryObject(c.req.url))
    const page = await listReleases(c.var.deps.database.db, urlBuilder(c), projectScopeOf(c), query)
    setPageHeaders(c, page)
    return c.json(page.items)
  })
  .get('/projects/:projectId/releases/:releaseId', async (c) =>
    c.json(await getRelease(c.var.deps.database.db, urlBuilder(c), projectScopeOf(c), c.req.param('releaseId'))),
  )
  .get('/projects/:projectId/release_groups', async (c) => {
    const query = parseInput(listReleaseGroupsQuerySchema, queryObject(c.req.url))
    const page = await listReleaseGroups(c.var.deps.database.db, urlBuilder(c), projectScopeOf(c), query)
    setPageHeaders(c, page)
    return c.json(page.items)
  })
  .get('/release_groups/:releaseGroupId', async (c) =>
    c.json(await getReleaseGroup(c.var.deps.database.db, urlBuilder(c), projectScopeOf(c), c.req.param('releaseGroupId'))),
  )
  // Errata keeps one release per release group: the group's id is its release's.
  .get('/release_groups/:releaseGroupId/releases', async (c) => {
    const release = await getRelease(c.var.deps.database.db, urlBuilder(c), projectScopeOf(c), c.req.param('releaseGroupId'))
    c.header('X-Total-Count', '1')
    return c.json([release])
  })
