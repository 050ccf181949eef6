// Comments on errors: any collaborator who can see the project reads and writes them; the
// author or an admin changes or deletes one. A new comment fires the comment webhooks, queued in
// the same transaction.
import { and, asc, eq } from 'drizzle-orm'
import type { Comment } from '../../contract/webhooks.ts'
import type { Scope } from '../context.ts'
import { withTransaction, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { comments, errors, users } from '../db/schema.ts'
import { ForbiddenError, NotFoundError } from '../failures.ts'
import { queueAlerts } from '../notifications/alerts.jobs.ts'
import { queueCommentTriggers } from '../webhooks/triggers/collaborator-triggers.ts'

type Row = { comment: typeof comments.$inferSelect; author: { id: string; name: string; email: string } | null }

const toComment = ({ comment, author }: Row): Comment => ({
  id: comment.id,
  error_id: comment.errorId,
  project_id: comment.projectId,
  message: comment.message,
  author: author?.id ? author : null,
  created_at: comment.createdAt.toISOString(),
  updated_at: comment.updatedAt.toISOString(),
})

const selectComments = (db: Db) =>
  db
    .select({ comment: comments, author: { id: users.id, name: users.name, email: users.email } })
    .from(comments)
    .leftJoin(users, eq(users.id, comments.authorId))

/** 404 unless the error is the scope's project's (the caller's access to it was resolved at the edge). */
async function requireError(db: Db, scope: Scope, errorId: string): Promise<string> {
  const [row] = await db.select({ id: errors.id }).from(errors).where(and(eq(errors.id, errorId), eq(errors.projectId, scope.projectId!))).limit(1)
  if (!row) throw new NotFoundError('Error')
  return scope.projectId!
}

export async function listComments(db: Db, scope: Scope, errorId: string): Promise<Comment[]> {
  await requireError(db, scope, errorId)
  const rows = await selectComments(db).where(eq(comments.errorId, errorId)).orderBy(asc(comments.createdAt), asc(comments.id))
  return rows.map(toComment)
}

export async function createComment(db: Db, scope: Scope, userId: string, errorId: string, message: string, wakeJobs: () => void): Promise<Comment> {
  const projectId = await requireError(db, scope, errorId)
  const id = newId()
  await withTransaction(db, async (tx) => {
    const [row] = await tx.insert(comments).values({ id, projectId, errorId, authorId: userId, message }).returning()
    await queueCommentTriggers(tx, projectId, errorId, userId, { id, message, createdAt: row!.createdAt.toISOString() })
    await queueAlerts(tx, [{ kind: 'comments', projectId, errorId, actorId: userId, comment: message }], row!.createdAt)
  })
  wakeJobs()
  return getCommentRow(db, id)
}

async function getCommentRow(db: Db, id: string): Promise<Comment> {
  const [row] = await selectComments(db).where(eq(comments.id, id)).limit(1)
  if (!row) throw new NotFoundError('Comment')
  return toComment(row)
}

/** The comment (its project's access was resolved at the edge, through the comment). */
export const getComment = (db: Db, id: string) => getCommentRow(db, id)

/** 403 unless the caller wrote the comment or is an admin of its organization. */
export async function requireCommentAuthorOrAdmin(db: Db, scope: Scope, userId: string, id: string): Promise<void> {
  const [row] = await db.select({ authorId: comments.authorId }).from(comments).where(eq(comments.id, id)).limit(1)
  if (!row) throw new NotFoundError('Comment')
  if (row.authorId !== userId && !scope.isAdmin) throw new ForbiddenError('only the author or an admin may change a comment')
}

/** Call after requireCommentAuthorOrAdmin. */
export async function updateComment(db: Db, id: string, message: string): Promise<Comment> {
  await db.update(comments).set({ message, updatedAt: new Date() }).where(eq(comments.id, id))
  return getCommentRow(db, id)
}

/** Call after requireCommentAuthorOrAdmin. */
export async function deleteComment(db: Db, id: string): Promise<void> {
  await db.delete(comments).where(eq(comments.id, id))
}
