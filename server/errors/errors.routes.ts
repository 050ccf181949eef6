import { Hono } from 'hono'
import { listErrorsQuerySchema, type ListErrorsQuery } from '../../contract/errors.ts'
import type { AppEnv } from '../context.ts'
import { wellFormedId } from '../events/events.service.ts'
import { decodeCursor } from '../http/cursor.ts'
import { ValidationError } from '../http/errors.ts'
import { setPageHeaders, urlBuilder } from '../http/urls.ts'
import { parseInput, queryObject } from '../http/validate.ts'
import { getError, getLatestEvent, listErrors } from './errors.service.ts'

// What errors.service puts in a timestamp cursor: to_char(... 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"').
const CURSOR_TIME = /^(\d{4})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/
const BAD_CURSOR = 'cursor: is not a cursor this server issued (use the Link rel="next" address)'

/**
 * Refuses cursors the service's own check lets through but PostgreSQL would fail on (a 500):
 * times in other forms or out of timestamptz's range (year 0, -271821, Feb 30) and ids with
 * characters no id has (NUL). The service still checks the cursor fits the sort.
 */
function checkCursorValues(query: ListErrorsQuery): ListErrorsQuery {
  if (query.cursor === undefined) return query
  const cursor = decodeCursor(query.cursor)
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor.id)) throw new ValidationError(BAD_CURSOR)
  if (typeof cursor.v === 'string') {
    const match = CURSOR_TIME.exec(cursor.v)
    const time = new Date(cursor.v)
    const valid = match && Number(match[1]) >= 1 && !Number.isNaN(time.getTime()) && time.toISOString().slice(0, 23) === cursor.v.slice(0, 23)
    if (!valid) throw new ValidationError(BAD_CURSOR)
  }
  return query
}

export const errorRoutes = new Hono<AppEnv>()
  .get('/projects/:projectId/errors', async (c) => {
    const query = checkCursorValues(parseInput(listErrorsQuerySchema, queryObject(c.req.url)))
    const projectId = wellFormedId(c.req.param('projectId'), 'Project')
    const page = await listErrors(c.var.deps.database.db, urlBuilder(c), c.var.user.id, projectId, query)
    setPageHeaders(c, page)
    return c.json(page.errors)
  })
  .get('/projects/:projectId/errors/:errorId', async (c) =>
    c.json(
      await getError(
        c.var.deps.database.db,
        urlBuilder(c),
        c.var.user.id,
        wellFormedId(c.req.param('projectId'), 'Project'),
        wellFormedId(c.req.param('errorId'), 'Error'),
      ),
    ),
  )
  .get('/projects/:projectId/errors/:errorId/latest_event', async (c) =>
    c.json(
      await getLatestEvent(
        c.var.deps.database.db,
        urlBuilder(c),
        c.var.user.id,
        wellFormedId(c.req.param('projectId'), 'Project'),
        wellFormedId(c.req.param('errorId'), 'Error'),
      ),
    ),
  )
