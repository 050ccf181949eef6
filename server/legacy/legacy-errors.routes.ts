import { Hono, type Context } from 'hono'
import type { ErrorGroup } from '../../contract/errors.ts'
import { legacyErrorQuerySchema, legacyErrorsQuerySchema, legacyErrorUpdateSchema } from '../../contract/legacy.ts'
import { projectScopeOf } from '../auth/scope.ts'
import type { AppEnv } from '../context.ts'
import { operateOnError } from '../errors/error-operations.service.ts'
import { getError } from '../errors/errors.service.ts'
import { urlBuilder } from '../http/urls.ts'
import { parseInput, queryObject } from '../http/validate.ts'
import { webhookDeps } from '../webhooks/webhook-deps.ts'
import { parseAppVersions } from './app-versions.ts'
import { errorBreakdowns, listLegacyErrors, mostRecentEvent } from './legacy-errors.service.ts'
import { toLegacyError } from './legacy-fields.ts'
import { legacyInput, legacyRoute, pathParam, nextOffsetUrl, setLegacyLinks } from './legacy-route.ts'

/** v2 errors as legacy ones, with their counts by name and, when asked, their newest event. */
async function toLegacyErrors(c: Context<AppEnv>, groups: ErrorGroup[], withEvent: boolean) {
  const { db } = c.var.deps.database
  const urls = urlBuilder(c)
  const breakdowns = await errorBreakdowns(db, groups.map((group) => group.id))
  return Promise.all(
    groups.map(async (group) =>
      toLegacyError(urls, group, breakdowns.get(group.id)!, withEvent ? await mostRecentEvent(db, urls, group.id) : undefined),
    ),
  )
}

/** The legacy Errors API (docs/legacy-api.md#errors), on v2's errors services. */
export const legacyErrorRoutes = new Hono<AppEnv>()
  .get(
    '/projects/:projectId/errors',
    legacyRoute(async (c) => {
      const query = parseInput(legacyErrorsQuerySchema, queryObject(c.req.url))
      const versions = query.app_versions === undefined ? null : parseAppVersions(query.app_versions)
      const scope = projectScopeOf(c)
      const page = await listLegacyErrors(c.var.deps.database.db, urlBuilder(c), scope, query, versions)
      setLegacyLinks(c, `/projects/${scope.projectId}/errors`, page.more ? nextOffsetUrl(c, query) : null)
      return c.json(await toLegacyErrors(c, page.errors, query.most_recent_event))
    }),
  )
  .get(
    '/errors/:errorId',
    legacyRoute(async (c) => {
      const query = parseInput(legacyErrorQuerySchema, queryObject(c.req.url))
      const scope = projectScopeOf(c)
      const error = await getError(c.var.deps.database.db, urlBuilder(c), scope, pathParam(c, 'errorId'))
      setLegacyLinks(c, `/projects/${scope.projectId}/errors/${error.id}`)
      const [legacy] = await toLegacyErrors(c, [error], query.most_recent_event)
      return c.json(legacy)
    }),
  )
  // resolved: true is v2's fix, false its open (the same status workflow and webhooks).
  .patch(
    '/errors/:errorId',
    legacyRoute(async (c) => {
      const query = parseInput(legacyErrorQuerySchema, queryObject(c.req.url))
      const input = parseInput(legacyErrorUpdateSchema, await legacyInput(c, { booleans: ['resolved'] }))
      const scope = projectScopeOf(c)
      const error = await operateOnError(c.var.deps.database.db, urlBuilder(c), scope, pathParam(c, 'errorId'), {
        operation: input.resolved ? 'fix' : 'open',
      })
      webhookDeps(c.var.deps).wakeJobs()
      setLegacyLinks(c, `/projects/${scope.projectId}/errors/${pathParam(c, 'errorId')}`)
      const [legacy] = await toLegacyErrors(c, [error!], query.most_recent_event)
      return c.json(legacy)
    }),
  )
  // v2's delete operation: the error with its events, its counters and rollups corrected (admins only).
  .delete(
    '/errors/:errorId',
    legacyRoute(async (c) => {
      const scope = projectScopeOf(c)
      await operateOnError(c.var.deps.database.db, urlBuilder(c), scope, pathParam(c, 'errorId'), { operation: 'delete' })
      setLegacyLinks(c, `/projects/${scope.projectId}/errors/${pathParam(c, 'errorId')}`)
      return c.body(null, 204)
    }),
  )
