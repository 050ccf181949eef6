import { projectScopeOf, requireAdmin } from '../auth/scope.ts'
import { Hono, type Context } from 'hono'
import { listEventsQuerySchema } from '../../contract/events.ts'
import type { AppEnv } from '../context.ts'
import { filtersFromUrl } from '../filters/filter-sql.ts'
import { setPageHeaders, urlBuilder } from '../http/urls.ts'
import { parseInput, queryObject } from '../http/validate.ts'
import { deleteEvent, getEvent, listEvents, type EventScope } from './events.service.ts'

/** A list of events with its Link rel="next" and X-Total-Count headers. */
async function eventList(c: Context<AppEnv>, scope: EventScope) {
  const query = parseInput(listEventsQuerySchema, queryObject(c.req.url))
  const page = await listEvents(c.var.deps.database.db, urlBuilder(c), scope, query, filtersFromUrl(c.req.url))
  setPageHeaders(c, page)
  return c.json(page.events)
}

/** The Events API (spec section 4); served under X-Version 2 and the legacy version alike. */
export const eventRoutes = new Hono<AppEnv>()
  .get('/projects/:projectId/events', (c) => eventList(c, projectScopeOf(c)))
  .get('/projects/:projectId/errors/:errorId/events', (c) => eventList(c, { ...projectScopeOf(c), errorId: c.req.param('errorId') }))
  // The edge resolved the project through the error, or the event.
  .get('/errors/:errorId/events', (c) => eventList(c, { ...projectScopeOf(c), errorId: c.req.param('errorId') }))
  .get('/projects/:projectId/events/:eventId', async (c) =>
    c.json(await getEvent(c.var.deps.database.db, urlBuilder(c), projectScopeOf(c), c.req.param('eventId'))),
  )
  .get('/events/:eventId', async (c) => c.json(await getEvent(c.var.deps.database.db, urlBuilder(c), projectScopeOf(c), c.req.param('eventId'))))
  .delete('/projects/:projectId/events/:eventId', requireAdmin, async (c) => {
    await deleteEvent(c.var.deps.database.db, projectScopeOf(c), c.req.param('eventId'))
    return c.body(null, 204)
  })
  .delete('/events/:eventId', requireAdmin, async (c) => {
    await deleteEvent(c.var.deps.database.db, projectScopeOf(c), c.req.param('eventId'))
    return c.body(null, 204)
  })
