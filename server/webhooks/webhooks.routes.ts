import { projectScopeOf, requireAdmin } from '../auth/scope.ts'
import { Hono, type Context } from 'hono'
import { z } from 'zod'
import { createWebhookSchema, updateWebhookSchema } from '../../contract/webhooks.ts'
import type { AppEnv } from '../context.ts'
import { parseInput, queryObject, readJson } from '../http/validate.ts'
import { webhookDeps } from './webhook-deps.ts'
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listDeliveries,
  listWebhooks,
  redeliver,
  testWebhook,
  updateWebhook,
} from './webhooks.service.ts'

const db = (c: Context<AppEnv>) => c.var.deps.database.db
const listDeliveriesQuerySchema = z.object({ before: z.string().optional() })

/** Outgoing webhooks (spec section 6; docs/webhooks.md). */
export const webhookRoutes = new Hono<AppEnv>()
  .get('/projects/:projectId/webhooks', async (c) => c.json(await listWebhooks(db(c), projectScopeOf(c))))
  .post('/projects/:projectId/webhooks', requireAdmin, async (c) => {
    const input = parseInput(createWebhookSchema, await readJson(c.req.raw))
    return c.json(await createWebhook(db(c), webhookDeps(c.var.deps), projectScopeOf(c), input), 201)
  })
  .get('/webhooks/:webhookId', async (c) => c.json(await getWebhook(db(c), projectScopeOf(c), c.req.param('webhookId'))))
  .patch('/webhooks/:webhookId', requireAdmin, async (c) => {
    const input = parseInput(updateWebhookSchema, await readJson(c.req.raw))
    return c.json(await updateWebhook(db(c), webhookDeps(c.var.deps), projectScopeOf(c), c.req.param('webhookId'), input))
  })
  .delete('/webhooks/:webhookId', requireAdmin, async (c) => {
    await deleteWebhook(db(c), projectScopeOf(c), c.req.param('webhookId'))
    return c.body(null, 204)
  })
  .post('/webhooks/:webhookId/test', requireAdmin, async (c) =>
    c.json(await testWebhook(db(c), webhookDeps(c.var.deps), projectScopeOf(c), c.req.param('webhookId')), 201),
  )
  .get('/webhooks/:webhookId/deliveries', async (c) => {
    const query = parseInput(listDeliveriesQuerySchema, queryObject(c.req.url))
    return c.json(await listDeliveries(db(c), projectScopeOf(c), c.req.param('webhookId'), query.before))
  })
  .post('/webhooks/:webhookId/deliveries/:deliveryId/redeliver', requireAdmin, async (c) =>
    c.json(await redeliver(db(c), webhookDeps(c.var.deps), projectScopeOf(c), c.req.param('webhookId'), c.req.param('deliveryId')), 202),
  )
