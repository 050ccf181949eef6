import { organizationScopeOf, requireAdmin } from '../auth/scope.ts'
import { Hono } from 'hono'
import { createOrganizationSchema, updateOrganizationSchema } from '../../contract/organizations.ts'
import type { AppEnv } from '../context.ts'
import { parseInput, readJson } from '../http/validate.ts'
import {
  createOrganization,
  deleteOrganization,
  getOrganization,
  listUserOrganizations,
  updateOrganization,
} from './organizations.service.ts'

export const organizationRoutes = new Hono<AppEnv>()
  .get('/user/organizations', async (c) => c.json(await listUserOrganizations(c.var.deps.database.db, c.var.user.id)))
  .post('/user/organizations', async (c) => {
    const input = parseInput(createOrganizationSchema, await readJson(c.req.raw))
    return c.json(await createOrganization(c.var.deps.database.db, c.var.user.id, input), 201)
  })
  .get('/organizations/:organizationId', async (c) =>
    c.json(await getOrganization(c.var.deps.database.db, organizationScopeOf(c))),
  )
  .patch('/organizations/:organizationId', requireAdmin, async (c) => {
    const input = parseInput(updateOrganizationSchema, await readJson(c.req.raw))
    return c.json(
      await updateOrganization(c.var.deps.database.db, organizationScopeOf(c), input),
    )
  })
  .delete('/organizations/:organizationId', requireAdmin, async (c) => {
    await deleteOrganization(c.var.deps.database.db, organizationScopeOf(c))
    return c.body(null, 204)
  })
