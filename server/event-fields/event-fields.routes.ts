import { Hono } from 'hono'
import type { AppEnv } from '../context.ts'
import { listEventFields } from './event-fields.service.ts'

export const eventFieldRoutes = new Hono<AppEnv>().get('/projects/:projectId/event_fields', async (c) =>
  c.json(await listEventFields(c.var.deps.database.db, c.var.user.id, c.req.param('projectId'))),
)
