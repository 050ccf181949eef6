import { Hono, type Context } from 'hono'
import { updateProjectNotificationsSchema } from '../../contract/notifications.ts'
import type { AppEnv } from '../context.ts'
import { ValidationError } from '../failures.ts'
import { parseInput, readJson } from '../http/validate.ts'
import { mailDeps } from '../mail/mail-deps.ts'
import { getNotificationSettings, setProjectNotifications, unsubscribeLink } from './notification-settings.service.ts'

/** The caller's email notification choices. */
export const notificationRoutes = new Hono<AppEnv>()
  .get('/user/notifications', async (c) =>
    c.json(await getNotificationSettings(c.var.deps.database.db, c.var.user.id, mailDeps(c.var.deps).transport !== null, c.var.deps.config.alerts)),
  )
  .put('/user/notifications/projects/:projectId', async (c) => {
    const input = parseInput(updateProjectNotificationsSchema, await readJson(c.req.raw))
    // The project was authorized at the edge (server/auth/scope.ts).
    return c.json(await setProjectNotifications(c.var.deps.database.db, c.var.user.id, c.req.param('projectId'), input.kinds))
  })

const tokenOf = (c: Context<AppEnv>) => {
  const token = c.req.query('token')
  if (!token) throw new ValidationError('token: is required (the link from the email)')
  return token
}

/**
 * The emails' unsubscribe links: no sign-in (mounted before authentication), the signed token is
 * the credential. GET only reads (mail scanners open links); POST stops the kind, and is also
 * what a mail client's one-click unsubscribe sends (RFC 8058: `List-Unsubscribe=One-Click` as a
 * form body, which is not needed); POST subscribe undoes it.
 */
export const unsubscribeRoutes = new Hono<AppEnv>()
  .get('/notifications/unsubscribe', async (c) => c.json(await unsubscribeLink(c.var.deps.database.db, tokenOf(c))))
  .post('/notifications/unsubscribe', async (c) => c.json(await unsubscribeLink(c.var.deps.database.db, tokenOf(c), false)))
  .post('/notifications/subscribe', async (c) => c.json(await unsubscribeLink(c.var.deps.database.db, tokenOf(c), true)))
