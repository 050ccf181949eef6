import { Hono, type Context } from 'hono'
import { commentInputSchema } from '../../contract/webhooks.ts'
import type { AppEnv } from '../context.ts'
import { parseInput, readJson } from '../http/validate.ts'
import { webhookDeps } from '../webhooks/webhook-deps.ts'
import { createComment, deleteComment, getComment, listComments, requireCommentAuthorOrAdmin, updateComment } from './comments.service.ts'

const db = (c: Context<AppEnv>) => c.var.deps.database.db
/** Every route here names a project or a comment: the edge resolved the caller's access (server/auth/scope.ts). */
const scope = (c: Context<AppEnv>) => c.var.scope!

/** Comments on errors (docs/api.md); a new one fires the comment webhooks. */
export const commentRoutes = new Hono<AppEnv>()
  .get('/projects/:projectId/errors/:errorId/comments', async (c) =>
    c.json(await listComments(db(c), scope(c), c.req.param('errorId'))),
  )
  .post('/projects/:projectId/errors/:errorId/comments', async (c) => {
    const { message } = parseInput(commentInputSchema, await readJson(c.req.raw))
    const deps = webhookDeps(c.var.deps)
    return c.json(await createComment(db(c), scope(c), c.var.user.id, c.req.param('errorId'), message, () => deps.wakeJobs()), 201)
  })
  .get('/comments/:commentId', async (c) => c.json(await getComment(db(c), c.req.param('commentId'))))
  .patch('/comments/:commentId', async (c) => {
    await requireCommentAuthorOrAdmin(db(c), scope(c), c.var.user.id, c.req.param('commentId'))
    const { message } = parseInput(commentInputSchema, await readJson(c.req.raw))
    return c.json(await updateComment(db(c), c.req.param('commentId'), message))
  })
  .delete('/comments/:commentId', async (c) => {
    await requireCommentAuthorOrAdmin(db(c), scope(c), c.var.user.id, c.req.param('commentId'))
    await deleteComment(db(c), c.req.param('commentId'))
    return c.body(null, 204)
  })
