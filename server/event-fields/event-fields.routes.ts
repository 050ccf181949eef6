import { Hono } from 'hono'
import type { AppEnv } from '../context.ts'
import { listEventFields } from './event-fields.service.ts'

export const eventFieldRoutes = new Hono<AppEnv>().get('/projects/:projectId/event_fields', async (c) =>
  // The edge has resolved the caller's access to the project (404 for outsiders).
  c.json(listEventFields()),
)
