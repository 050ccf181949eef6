// Comments on errors: any collaborator who can see the project reads and writes them; the
// author or an admin changes or deletes one. A new comment fires the comment webhooks, queued in
// the same transaction.
import { and, asc, eq } from 'drizzle-orm'
import type { Comment } from '../../contract/webhooks.ts'
import { requireProjectAccess } from '../auth/access.ts'
import type { Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { comments, errors, users } from '../db/schema.ts'
import { ForbiddenError, NotFoundError } from '../http/errors.ts'
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

async function requireError(db: Db, userId: string, projectId: string, errorId: string): Promise<void> {
  await requireProjectAccess(db, userId, projectId)
  const [row] = await db.select({ id: errors.id }).from(errors).where(and(eq(errors.id, errorId), eq(errors.projectId, projectId))).limit(1)
  if (!row) throw new NotFoundError('Error')
}

export async function listComments(db: Db, userId: string, projectId: string, errorId: string): Promise<Comment[]> {
  await requireError(db, userId, projectId, errorId)
  const rows = await selectComments(db).where(eq(comments.errorId, errorId)).orderBy(asc(comments.createdAt), asc(comments.id))
  return rows.map(toComment)
}

export async function createComment(db: Db, userId: string, projectId: string, errorId: string, message: string, wakeJobs: () => void): Promise<Comment> {
  await requireError(db, userId, projectId, errorId)
  const id = newId()
  await db.transaction(async (txn) => {
    const tx = txn as unknown as Db
    const [row] = await tx.insert(comments).values({ id, projectId, errorId, authorId: userId, message }).returning()
    await queueCommentTriggers(tx, projectId, errorId, userId, { id, message, createdAt: row!.createdAt.toISOString() })
  })
  wakeJobs()
  return getCommentRow(db, id)
}

async function getCommentRow(db: Db, id: string): Promise<Comment> {
  const [row] = await selectComments(db).where(eq(comments.id, id)).limit(1)
  if (!row) throw new NotFoundError('Comment')
  return toComment(row)
}

/** The comment, if the caller can see its project (404 otherwise), and whether they may change it. */
async function commentFor(db: Db, userId: string, id: string, change: boolean): Promise<Comment> {
  const [row] = await selectComments(db).where(eq(comments.id, id)).limit(1)
  if (!row) throw new NotFoundError('Comment')
  let access
  try {
    access = await requireProjectAccess(db, userId, row.comment.projectId)
  } catch (err) {
    if (err instanceof NotFoundError) throw new NotFoundError('Comment')
    throw err
  }
  if (change && row.comment.authorId !== userId && !access.isAdmin) throw new ForbiddenError('only the author or an admin may change a comment')
  return toComment(row)
}

export const getComment = (db: Db, userId: string, id: string) => commentFor(db, userId, id, false)

export async function updateComment(db: Db, userId: string, id: string, message: string): Promise<Comment> {
  await commentFor(db, userId, id, true)
  await db.update(comments).set({ message, updatedAt: new Date() }).where(eq(comments.id, id))
  return getCommentRow(db, id)
}

export async function deleteComment(db: Db, userId: string, id: string): Promise<void> {
  await commentFor(db, userId, id, true)
  await db.delete(comments).where(eq(comments.id, id))
}
