import { Hono, type Context } from 'hono'
import type { Collaborator } from '../../contract/collaborators.ts'
import { legacyPageQuerySchema, legacyUserCreateSchema, legacyUserUpdateSchema } from '../../contract/legacy.ts'
import { assertAdmin, organizationScopeOf, projectScopeOf } from '../auth/scope.ts'
import {
  inviteCollaborator,
  listOrganizationCollaborators,
  listProjectCollaborators,
  removeCollaborator,
  updateCollaborator,
} from '../collaborators/collaborators.service.ts'
import type { AppEnv } from '../context.ts'
import { ConflictError } from '../failures.ts'
import { urlBuilder } from '../http/urls.ts'
import { parseInput, queryObject } from '../http/validate.ts'
import { joinWithNewAccount } from '../invitations/invitations.service.ts'
import { mailDeps } from '../mail/mail-deps.ts'
import { toLegacyUser } from './legacy-fields.ts'
import { byCreatedAt, legacyInput, legacyPage, legacyRoute, pathParam, requireUserCredentials, setLegacyLinks } from './legacy-route.ts'
import { currentUser, userInScope } from './legacy-users.service.ts'

/** A page of people, as legacy users of `organizationId`. */
function pageOfUsers(c: Context<AppEnv>, people: Collaborator[], organizationId: string, successorPath: string) {
  const query = parseInput(legacyPageQuerySchema('created_at'), queryObject(c.req.url))
  const { page, next } = legacyPage(c, byCreatedAt(people, query.direction), query)
  setLegacyLinks(c, successorPath, next)
  return c.json(page.map((person) => toLegacyUser(urlBuilder(c), person, organizationId)))
}

/** The legacy Users API (docs/legacy-api.md#users): users are v2's collaborators, accounts its organizations. */
export const legacyUserRoutes = new Hono<AppEnv>()
  .get(
    '/accounts/:accountId/users',
    legacyRoute(async (c) => {
      const { userId, organizationId } = organizationScopeOf(c)
      const people = await listOrganizationCollaborators(c.var.deps.database.db, userId, organizationId)
      return pageOfUsers(c, people, organizationId, `/organizations/${organizationId}/collaborators`)
    }),
  )
  .get(
    '/projects/:projectId/users',
    legacyRoute(async (c) => {
      const { userId, organizationId, projectId } = projectScopeOf(c)
      const people = await listProjectCollaborators(c.var.deps.database.db, userId, projectId)
      return pageOfUsers(c, people, organizationId, `/projects/${projectId}/collaborators`)
    }),
  )
  .get(
    '/user',
    legacyRoute(async (c) => {
      const user = await currentUser(c.var.deps.database.db, requireUserCredentials(c).id)
      setLegacyLinks(c, '/user')
      return c.json(toLegacyUser(urlBuilder(c), user, user.organizationId))
    }),
  )
  .get(
    '/users/:userId',
    legacyRoute(async (c) => {
      const user = await userInScope(c.var.deps.database.db, c.var.principal, pathParam(c, 'userId'))
      setLegacyLinks(c, `/organizations/${user.organizationId}/collaborators/${user.id}`)
      return c.json(toLegacyUser(urlBuilder(c), user, user.organizationId))
    }),
  )
  // An invitation, as v2 makes it; with a password (and name) for an email without an account,
  // that account is made and joins at once. An email with an account keeps the invitation to accept.
  .post(
    '/accounts/:accountId/users',
    legacyRoute(async (c) => {
      const { userId, organizationId } = assertAdmin(c)
      const input = parseInput(legacyUserCreateSchema, await legacyInput(c, { booleans: ['admin'], lists: ['project_ids'] }))
      const { db } = c.var.deps.database
      const invited = await inviteCollaborator(db, urlBuilder(c), mailDeps(c.var.deps), userId, organizationId, {
        email: input.email,
        is_admin: input.admin,
        project_ids: input.project_ids ?? null,
      })
      let person: Collaborator = invited
      if (input.password !== undefined && input.name !== undefined) {
        const token = new URL(invited.invitation_url).pathname.split('/').pop()!
        const { name, password } = input
        person = await joinWithNewAccount(db, token, { name, password }, async (_tx, user) => ({
          ...invited,
          id: user.id,
          name: user.name,
          pending_invitation: false,
        })).catch((err: unknown) => {
          if (err instanceof ConflictError) return invited
          throw err
        })
      }
      setLegacyLinks(c, `/organizations/${organizationId}/collaborators`)
      return c.json(toLegacyUser(urlBuilder(c), person, organizationId), 201)
    }),
  )
  .patch(
    '/accounts/:accountId/users/:userId',
    legacyRoute(async (c) => {
      const { userId, organizationId } = assertAdmin(c)
      const input = parseInput(legacyUserUpdateSchema, await legacyInput(c, { booleans: ['admin'], lists: ['project_ids'] }))
      const person = await updateCollaborator(c.var.deps.database.db, userId, organizationId, pathParam(c, 'userId'), {
        is_admin: input.admin,
        project_ids: input.project_ids,
      })
      setLegacyLinks(c, `/organizations/${organizationId}/collaborators/${person.id}`)
      return c.json(toLegacyUser(urlBuilder(c), person, organizationId))
    }),
  )
  // Removes them from the account (v2's removal: their errors unassigned; the last admin stays).
  .delete(
    '/accounts/:accountId/users/:userId',
    legacyRoute(async (c) => {
      const { userId, organizationId } = assertAdmin(c)
      await removeCollaborator(c.var.deps.database.db, userId, organizationId, pathParam(c, 'userId'))
      setLegacyLinks(c, `/organizations/${organizationId}/collaborators/${pathParam(c, 'userId')}`)
      return c.body(null, 204)
    }),
  )
