import { Hono } from 'hono'
import { acceptInvitationSchema } from '../../contract/collaborators.ts'
import type { AppEnv } from '../context.ts'
import { parseInput, readJson } from '../http/validate.ts'
import { acceptInvitation, acceptUserInvitation, declineUserInvitation, getInvitation, listUserInvitations } from './invitations.service.ts'

/** Accepting an invitation: needs no auth token (the link's token is the credential), so mounted before authentication. */
export const invitationRoutes = new Hono<AppEnv>()
  .get('/invitations/:token', async (c) => c.json(await getInvitation(c.var.deps.database.db, c.req.param('token'))))
  .post('/invitations/:token/accept', async (c) => {
    const input = parseInput(acceptInvitationSchema, await readJson(c.req.raw))
    return c.json(
      await acceptInvitation(c.var.deps.database.db, c.req.param('token'), input, c.req.header('User-Agent')),
      200,
    )
  })

/** The signed-in user's own invitations (an existing account joins only by accepting); mounted after authentication. */
export const userInvitationRoutes = new Hono<AppEnv>()
  .get('/user/invitations', async (c) => c.json(await listUserInvitations(c.var.deps.database.db, c.var.user.id)))
  .post('/user/invitations/:invitationId/accept', async (c) =>
    c.json(await acceptUserInvitation(c.var.deps.database.db, c.var.user.id, c.req.param('invitationId'))),
  )
  .delete('/user/invitations/:invitationId', async (c) => {
    await declineUserInvitation(c.var.deps.database.db, c.var.user.id, c.req.param('invitationId'))
    return c.body(null, 204)
  })
