import { Hono } from 'hono'
import { createOrganizationTokenSchema } from '../../contract/organization-tokens.ts'
import { organizationScopeOf, requireAdmin } from '../auth/scope.ts'
import type { AppEnv } from '../context.ts'
import { parseInput, readJson } from '../http/validate.ts'
import { createOrganizationToken, listOrganizationTokens, revokeOrganizationToken } from './organization-tokens.service.ts'

/** The organization's API tokens (v2, admins only): list, create (shown once), revoke. */
export const organizationTokenRoutes = new Hono<AppEnv>()
  .get('/organizations/:organizationId/api_tokens', requireAdmin, async (c) =>
    c.json(await listOrganizationTokens(c.var.deps.database.db, organizationScopeOf(c))),
  )
  .post('/organizations/:organizationId/api_tokens', requireAdmin, async (c) => {
    const input = parseInput(createOrganizationTokenSchema, await readJson(c.req.raw))
    return c.json(await createOrganizationToken(c.var.deps.database.db, organizationScopeOf(c), input.name), 201)
  })
  .delete('/organizations/:organizationId/api_tokens/:apiTokenId', requireAdmin, async (c) => {
    await revokeOrganizationToken(c.var.deps.database.db, organizationScopeOf(c), c.req.param('apiTokenId'))
    return c.body(null, 204)
  })
