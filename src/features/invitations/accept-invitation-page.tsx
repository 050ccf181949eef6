import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { onlyProjectId } from './only-project.ts'
import { UserCheck } from 'lucide-react'
import { useId, useState } from 'react'
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, PASSWORD_RULE } from '../../../contract/users.ts'
import type { Invitation } from '../../../contract/collaborators.ts'
import { currentUserQuery } from '../../api/auth.ts'
import { acceptInvitationMutation, invitationQuery } from '../../api/collaborators.ts'
import { isApiError } from '../../api/http.ts'
import { Button, buttonVariants } from '../../components/ui/button.tsx'
import { Card, CardContent } from '../../components/ui/card.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { Input, Label } from '../../components/ui/input.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState, NotFoundState } from '../../components/ui/states.tsx'
import { readToken } from '../../lib/token-store.ts'


/** /invitations/$token: no login needed; the token in the URL is the invitee's credential. */
export function AcceptInvitationPage({ token }: { token: string }) {
  const query = useQuery(invitationQuery(token))
  return (
    <main className="flex min-h-dvh items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        {query.isPending ? (
          <LoadingRegion label="Loading the invitation" className="flex flex-col gap-3">
            <Skeleton className="h-7 w-2/3" />
            <Skeleton className="h-48" />
          </LoadingRegion>
        ) : query.isError ? (
          isApiError(query.error, 404) ? (
            <NotFoundState
              title="Invitation not found"
              action={
                <Link to="/login" search={{}} className={buttonVariants({ variant: 'primary' })}>
                  Go to sign in
                </Link>
              }
            >
              This invitation link is unknown, has expired, or was already used. If you already have an account,
              sign in; otherwise ask an admin of the organization for a new link.
            </NotFoundState>
          ) : (
            <ErrorState title="Could not load the invitation" error={query.error} onRetry={() => void query.refetch()} />
          )
        ) : (
          <>
            <div className="mb-6 flex flex-col items-center gap-2 text-center">
              <img src="/favicon.svg" alt="" className="size-10" />
              <h1 className="text-xl font-semibold break-words">Join {query.data.organization_name}</h1>
              <p className="text-sm text-muted-foreground">
                You were invited{query.data.is_admin ? ' as an admin' : ''}. Choose a name and password to create your
                Errata account.
              </p>
            </div>
            <Card>
              <CardContent padding={5}>
                <AcceptInvitationForm token={token} invitation={query.data} />
              </CardContent>
            </Card>
          </>
        )}
      </div>
    </main>
  )
}

function AcceptInvitationForm({ token, invitation }: { token: string; invitation: Invitation }) {
  const id = useId()
  // Someone may already be signed in in this browser: accepting signs them out, so say so first.
  const signedIn = useQuery({ ...currentUserQuery(), enabled: readToken() !== null, retry: false })
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const [name, setName] = useState('')
  const [password, setPassword] = useState('')
  const [confirm, setConfirm] = useState('')
  const [localError, setLocalError] = useState<Error | null>(null)
  const mutation = useMutation({
    ...acceptInvitationMutation(token),
    // A member with access to one project lands on it; otherwise the organizations to choose from.
    onSuccess: async () => {
      const projectId = await onlyProjectId(queryClient)
      await (projectId ? navigate({ to: '/projects/$projectId/errors', params: { projectId } }) : navigate({ to: '/organizations' }))
    },
  })

  return (
    <form
      className="flex flex-col gap-4"
      onSubmit={(event) => {
        event.preventDefault()
        if (password.length < MIN_PASSWORD_LENGTH) {
          setLocalError(new Error(`password: must be at least ${MIN_PASSWORD_LENGTH} characters`))
        } else if (password !== confirm) {
          setLocalError(new Error('The two passwords do not match.'))
        } else {
          setLocalError(null)
          mutation.mutate({ name, password })
        }
      }}
    >
      {signedIn.data ? (
        <p role="note" className="rounded-md border border-warning/40 bg-warning-soft px-3 py-2 text-sm break-words">
          You are signed in as <strong>{signedIn.data.email}</strong> in this browser. Creating this account signs you out of
          that one here.
        </p>
      ) : null}
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={`${id}-email`}>Email</Label>
        <Input id={`${id}-email`} type="email" readOnly value={invitation.email} autoComplete="username" />
      </div>
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={`${id}-name`}>Name</Label>
        <Input
          id={`${id}-name`}
          required
          autoFocus
          maxLength={200}
          autoComplete="name"
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
      </div>
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={`${id}-password`}>Password</Label>
        <Input
          id={`${id}-password`}
          type="password"
          required
          maxLength={MAX_PASSWORD_LENGTH}
          autoComplete="new-password"
          aria-describedby={`${id}-password-rule`}
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <p id={`${id}-password-rule`} className="text-xs text-muted-foreground">
          {PASSWORD_RULE}
        </p>
      </div>
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={`${id}-confirm`}>Confirm password</Label>
        <Input
          id={`${id}-confirm`}
          type="password"
          required
          autoComplete="new-password"
          value={confirm}
          onChange={(event) => setConfirm(event.target.value)}
        />
      </div>
      <FormErrors error={localError ?? mutation.error} />
      {isApiError(mutation.error, 409) ? (
        <Link to="/login" search={{}} className={buttonVariants({ variant: 'link' })}>
          Sign in instead
        </Link>
      ) : null}
      <Button type="submit" variant="primary" disabled={mutation.isPending}>
        <UserCheck aria-hidden="true" />
        {mutation.isPending ? 'Creating your account…' : 'Create account and join'}
      </Button>
    </form>
  )
}
