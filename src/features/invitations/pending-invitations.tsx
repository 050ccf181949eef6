import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { onlyProjectId } from './only-project.ts'
import { MailOpen } from 'lucide-react'
import type { UserInvitation } from '../../../contract/collaborators.ts'
import { answerInvitationMutation, userInvitationsQuery } from '../../api/collaborators.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { Button } from '../../components/ui/button.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { ErrorState } from '../../components/ui/states.tsx'

/**
 * Invitations to the signed-in user's email: nobody joins an organization without accepting.
 * Nothing is shown while there are none (or while they load: the list of organizations is the page).
 */
export function PendingInvitations() {
  const invitations = useQuery(userInvitationsQuery())
  if (invitations.isError) {
    return <ErrorState title="Could not load your invitations" error={invitations.error} onRetry={() => void invitations.refetch()} />
  }
  if (!invitations.data || invitations.data.length === 0) return null
  return (
    <section aria-labelledby="pending-invitations-heading" className="rounded-lg border border-accent/40 bg-surface">
      <h2 id="pending-invitations-heading" className="flex items-center gap-2 border-b border-border px-4 py-3 font-medium">
        <MailOpen aria-hidden="true" className="size-4 text-accent" />
        Invitations
      </h2>
      <ul className="divide-y divide-border">
        {invitations.data.map((invitation) => (
          <PendingInvitation key={invitation.id} invitation={invitation} />
        ))}
      </ul>
    </section>
  )
}

function PendingInvitation({ invitation }: { invitation: UserInvitation }) {
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const accept = useMutation({
    ...answerInvitationMutation(),
    // Joined: straight to the project when it is the only one the user can open, else to the organization.
    onSuccess: async (organization) => {
      if (!organization) return
      const projectId = await onlyProjectId(queryClient)
      await (projectId
        ? navigate({ to: '/projects/$projectId/errors', params: { projectId } })
        : navigate({ to: '/organizations/$organizationId', params: { organizationId: organization.id } }))
    },
  })
  const decline = useMutation(answerInvitationMutation())
  const busy = accept.isPending || decline.isPending
  return (
    <li className="flex flex-col gap-2 px-4 py-3">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <span className="min-w-0 flex-1">
          <span className="block truncate font-medium">
            {invitation.organization_name} {invitation.is_admin ? <Badge tone="accent">admin</Badge> : null}
          </span>
          <span className="block truncate text-xs text-muted-foreground">
            {invitation.invited_by ? `from ${invitation.invited_by} · ` : ''}
            expires <RelativeTime value={invitation.expires_at} />
          </span>
        </span>
        <span className="flex gap-2">
          <Button
            variant="primary"
            size="sm"
            disabled={busy}
            onClick={() => accept.mutate({ invitationId: invitation.id, accept: true })}
            aria-label={`Accept the invitation to ${invitation.organization_name}`}
          >
            Accept
          </Button>
          <Button size="sm" disabled={busy} onClick={() => decline.mutate({ invitationId: invitation.id, accept: false })} aria-label={`Decline the invitation to ${invitation.organization_name}`}>
            Decline
          </Button>
        </span>
      </div>
      <FormErrors error={accept.error ?? decline.error} />
    </li>
  )
}
