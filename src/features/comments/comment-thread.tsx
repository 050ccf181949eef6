import { useMutation, useQuery } from '@tanstack/react-query'
import { MessageSquare, Trash2 } from 'lucide-react'
import { useId, useState } from 'react'
import { MAX_COMMENT_LENGTH, type Comment } from '../../../contract/webhooks.ts'
import { currentUserQuery } from '../../api/auth.ts'
import { commentsQuery, createCommentMutation, deleteCommentMutation } from '../../api/webhooks.ts'
import { Button } from '../../components/ui/button.tsx'
import { ConfirmDialog } from '../../components/ui/dialog.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { Label } from '../../components/ui/input.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { useIsProjectAdmin } from '../collaborators/use-is-admin.ts'

/**
 * The comments on an error, oldest first, and a box to add one (comment webhooks fire on it).
 * Text only. Deleting one asks first: it cannot be taken back.
 */
export function CommentThread({ projectId, errorId }: { projectId: string; errorId: string }) {
  const id = useId()
  const query = useQuery(commentsQuery(projectId, errorId))
  const user = useQuery(currentUserQuery()).data
  const isAdmin = useIsProjectAdmin(projectId)
  const [message, setMessage] = useState('')
  const add = useMutation({ ...createCommentMutation(projectId, errorId), onSuccess: () => setMessage('') })
  const remove = useMutation(deleteCommentMutation(projectId, errorId))
  const [deleting, setDeleting] = useState<Comment | null>(null)

  return (
    <Card aria-labelledby={`${id}-title`}>
      <CardHeader>
        <CardTitle id={`${id}-title`} className="flex items-center gap-1.5">
          <MessageSquare aria-hidden="true" className="size-4" />
          Comments
        </CardTitle>
      </CardHeader>
      <CardContent className="flex flex-col gap-3">
        {query.isPending ? (
          <div role="status" className="flex flex-col gap-2">
            <span className="sr-only">Loading the comments</span>
            <Skeleton className="h-10" />
          </div>
        ) : query.isError ? (
          <ErrorState title="Could not load the comments" error={query.error} onRetry={() => void query.refetch()} />
        ) : query.data.length === 0 ? (
          <p className="text-sm text-muted-foreground">No comments yet.</p>
        ) : (
          <ol aria-label="Comments" className="flex flex-col gap-3">
            {query.data.map((comment) => (
              <li key={comment.id} className="flex flex-col gap-1 text-sm">
                <div className="flex flex-wrap items-center gap-2 text-xs text-muted-foreground">
                  <span className="font-medium text-foreground">{comment.author?.name || comment.author?.email || 'A former collaborator'}</span>
                  <RelativeTime value={comment.created_at} />
                  {comment.author?.id === user?.id || isAdmin ? (
                    <Button
                      size="sm"
                      variant="ghost"
                      className="ml-auto"
                      aria-label="Delete this comment"
                      disabled={remove.isPending}
                      onClick={() => {
                        remove.reset()
                        setDeleting(comment)
                      }}
                    >
                      <Trash2 aria-hidden="true" />
                    </Button>
                  ) : null}
                </div>
                <p className="whitespace-pre-wrap [overflow-wrap:anywhere]">{comment.message}</p>
              </li>
            ))}
          </ol>
        )}
        <ConfirmDialog
          open={deleting !== null}
          title="Delete this comment?"
          description="It is removed for everyone on the team. This cannot be undone."
          confirmLabel="Delete comment"
          destructive
          pending={remove.isPending}
          error={remove.error}
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            if (deleting) remove.mutate(deleting.id, { onSuccess: () => setDeleting(null) })
          }}
        >
          {deleting ? <p className="line-clamp-3 text-sm whitespace-pre-wrap [overflow-wrap:anywhere]">{deleting.message}</p> : null}
        </ConfirmDialog>
        <form
          className="flex flex-col gap-2 border-t border-border pt-3"
          onSubmit={(event) => {
            event.preventDefault()
            add.mutate(message)
          }}
        >
          <Label htmlFor={`${id}-message`}>Add a comment</Label>
          <textarea
            id={`${id}-message`}
            required
            rows={3}
            maxLength={MAX_COMMENT_LENGTH}
            className="w-full rounded-md border border-border bg-surface px-3 py-2 text-sm text-foreground placeholder:text-muted-foreground"
            value={message}
            onChange={(event) => setMessage(event.target.value)}
          />
          <FormErrors error={add.error} />
          <div>
            <Button type="submit" variant="primary" disabled={add.isPending || message.trim() === ''}>
              {add.isPending ? 'Posting…' : 'Post comment'}
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  )
}
