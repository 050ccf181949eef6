import { useMutation, useSuspenseQuery } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { CheckCircle2, X } from 'lucide-react'
import { useState } from 'react'
import type { Collaborator, InvitedCollaborator } from '../../../contract/collaborators.ts'
import { currentUserQuery } from '../../api/auth.ts'
import {
  collaboratorsQuery,
  inviteCollaboratorMutation,
  removeCollaboratorMutation,
  updateCollaboratorMutation,
} from '../../api/collaborators.ts'
import { organizationQuery } from '../../api/organizations.ts'
import { projectsQuery } from '../../api/projects.ts'
import { Button } from '../../components/ui/button.tsx'
import { Card, CardContent } from '../../components/ui/card.tsx'
import { ConfirmDialog, Dialog } from '../../components/ui/dialog.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { CollaboratorsTable, displayName, type CollaboratorAction } from './collaborators-table.tsx'
import { InvitationLink } from './invitation-link.tsx'
import { InviteCollaboratorForm } from './invite-collaborator-form.tsx'
import { ProjectPicker } from './project-picker.tsx'

/** The data is loaded by the route (organizations.$organizationId_.collaborators.tsx). */
export function CollaboratorsPage({ organizationId }: { organizationId: string }) {
  const { data: organization } = useSuspenseQuery(organizationQuery(organizationId))
  const { data: collaborators } = useSuspenseQuery(collaboratorsQuery(organizationId))
  const { data: projects } = useSuspenseQuery(projectsQuery(organizationId))
  const { data: me } = useSuspenseQuery(currentUserQuery())
  const [active, setActive] = useState<{ action: CollaboratorAction; collaborator: Collaborator } | null>(null)
  const [invited, setInvited] = useState<InvitedCollaborator | null>(null)

  const isAdmin = collaborators.some((c) => c.id === me.id && c.is_admin && !c.pending_invitation)
  const members = collaborators.filter((c) => !c.pending_invitation).length
  const pending = collaborators.length - members

  return (
    <>
      <PageHeader
        title={`${organization.name}: collaborators`}
        description={
          <>
            {members} {members === 1 ? 'member' : 'members'}
            {pending > 0 ? ` · ${pending} pending ${pending === 1 ? 'invitation' : 'invitations'}` : ''}
            {isAdmin ? '' : ' · only admins can invite, change or remove collaborators'}
          </>
        }
      />
      <div className={isAdmin ? 'grid gap-6 lg:grid-cols-[minmax(0,1fr)_18rem] 2xl:grid-cols-[minmax(0,1fr)_22rem]' : undefined}>
        <div className="flex min-w-0 flex-col gap-4">
          {invited ? <InviteResult collaborator={invited} onDismiss={() => setInvited(null)} /> : null}
          <CollaboratorsTable
            collaborators={collaborators}
            projects={projects}
            currentUserId={me.id}
            onAction={isAdmin ? (action, collaborator) => setActive({ action, collaborator }) : undefined}
          />
        </div>
        {isAdmin ? (
          <aside aria-label="Invite">
            <Card>
              <CardContent padding={4}>
                <InviteCollaboratorForm organizationId={organizationId} projects={projects} onInvited={setInvited} />
              </CardContent>
            </Card>
          </aside>
        ) : null}
      </div>
      {active ? (
        <ActionDialog
          key={`${active.action}-${active.collaborator.id}`}
          organizationId={organizationId}
          organizationName={organization.name}
          action={active.action}
          collaborator={active.collaborator}
          projects={projects}
          currentUserId={me.id}
          onClose={() => setActive(null)}
        />
      ) : null}
    </>
  )
}

function InviteResult({ collaborator, onDismiss }: { collaborator: InvitedCollaborator; onDismiss: () => void }) {
  return (
    <Card aria-label="Invitation result">
      <CardContent className="flex items-start gap-3">
        <CheckCircle2 aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-success" />
        <div className="flex min-w-0 flex-1 flex-col gap-3">
          <p role="status" className="text-sm font-medium">
            Invitation created for {collaborator.email}.
          </p>
          <InvitationLink email={collaborator.email} url={collaborator.invitation_url} emailed={collaborator.invitation_emailed} />
        </div>
        <Button variant="ghost" size="icon" aria-label="Dismiss" onClick={onDismiss}>
          <X aria-hidden="true" />
        </Button>
      </CardContent>
    </Card>
  )
}

/** One dialog per action, mounted fresh each time so no state or error leaks between rows. */
function ActionDialog({
  organizationId,
  organizationName,
  action,
  collaborator,
  projects,
  currentUserId,
  onClose,
}: {
  organizationId: string
  organizationName: string
  action: CollaboratorAction
  collaborator: Collaborator
  projects: readonly { id: string; name: string }[]
  currentUserId: string
  onClose: () => void
}) {
  const navigate = useNavigate()
  const label = displayName(collaborator)
  const isMe = collaborator.id === currentUserId && !collaborator.pending_invitation
  const [projectIds, setProjectIds] = useState<string[] | null>(collaborator.project_ids)
  // What each changes in the cache (the list, the projects' collaborator counts) is in each mutation's rule (src/api).
  const update = useMutation({ ...updateCollaboratorMutation(organizationId), onSuccess: onClose })
  const remove = useMutation({
    ...removeCollaboratorMutation(organizationId),
    onSuccess: async () => {
      onClose()
      // We just left: this organization is no longer ours to see.
      if (isMe) await navigate({ to: '/organizations' })
    },
  })
  const relink = useMutation(inviteCollaboratorMutation(organizationId))

  if (action === 'role') {
    const promote = !collaborator.is_admin
    const limitedTo = collaborator.project_ids?.length
    return (
      <ConfirmDialog
        open
        title={promote ? `Make ${label} an admin?` : `Make ${label} a member?`}
        description={
          promote
            ? `Admins can invite, change and remove collaborators of ${organizationName} and see all of its projects.` +
              (limitedTo !== undefined
                ? ` Their access limited to ${limitedTo === 1 ? 'one project' : `${limitedTo} projects`} is lifted; if they become a member again, you choose their projects anew.`
                : '')
            : isMe
              ? `You will no longer be able to manage collaborators of ${organizationName}. Another admin will have to make you an admin again.`
              : `${label} will no longer be able to manage collaborators, and will see only the projects chosen here.`
        }
        confirmLabel={promote ? 'Make admin' : 'Make member'}
        pending={update.isPending}
        confirmDisabled={!promote && projectIds !== null && projectIds.length === 0}
        error={update.error}
        onConfirm={() =>
          update.mutate({ collaboratorId: collaborator.id, input: promote ? { is_admin: true } : { is_admin: false, project_ids: projectIds } })
        }
        onCancel={onClose}
      >
        {promote ? null : <ProjectPicker projects={projects} value={projectIds} onChange={setProjectIds} />}
      </ConfirmDialog>
    )
  }

  if (action === 'remove') {
    const invitation = collaborator.pending_invitation
    return (
      <ConfirmDialog
        open
        destructive
        title={invitation ? `Withdraw the invitation for ${collaborator.email}?` : isMe ? `Leave ${organizationName}?` : `Remove ${label}?`}
        description={
          invitation
            ? 'The invitation link stops working. You can invite them again later.'
            : `${isMe ? 'You lose' : `${label} loses`} access to ${organizationName} and all of its projects; errors assigned to ${isMe ? 'you' : 'them'} become unassigned.`
        }
        confirmLabel={invitation ? 'Withdraw invitation' : 'Remove'}
        pending={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate({ collaboratorId: collaborator.id, leaving: isMe })}
        onCancel={onClose}
      />
    )
  }

  if (action === 'projects') {
    return (
      <Dialog open onClose={onClose} title={`Projects of ${label}`} description="Members see only the projects chosen here.">
        <form
          className="flex flex-col gap-3"
          onSubmit={(event) => {
            event.preventDefault()
            update.mutate({ collaboratorId: collaborator.id, input: { project_ids: projectIds } })
          }}
        >
          <ProjectPicker projects={projects} value={projectIds} onChange={setProjectIds} />
          <FormErrors error={update.error} />
          <div className="flex justify-end gap-2">
            <Button onClick={onClose} disabled={update.isPending}>
              Cancel
            </Button>
            <Button
              type="submit"
              variant="primary"
              disabled={update.isPending || (projectIds !== null && projectIds.length === 0)}
            >
              {update.isPending ? 'Saving…' : 'Save projects'}
            </Button>
          </div>
        </form>
      </Dialog>
    )
  }

  // relink: a new invitation replaces the pending one, so the old link stops working.
  return relink.data ? (
    <Dialog open onClose={onClose} title={`New invitation link for ${collaborator.email}`}>
      <div className="flex flex-col gap-3">
        <InvitationLink email={collaborator.email} url={relink.data.invitation_url} emailed={relink.data.invitation_emailed} />
        <div className="flex justify-end">
          <Button variant="primary" onClick={onClose}>
            Done
          </Button>
        </div>
      </div>
    </Dialog>
  ) : (
    <ConfirmDialog
      open
      title={`Create a new invitation link for ${collaborator.email}?`}
      description="The link is shown only once, when it is created. A new link replaces the old one, which stops working."
      confirmLabel="Create link"
      pending={relink.isPending}
      error={relink.error}
      onConfirm={() =>
        relink.mutate({
          email: collaborator.email,
          is_admin: collaborator.is_admin,
          project_ids: collaborator.is_admin ? null : collaborator.project_ids,
        })
      }
      onCancel={onClose}
    />
  )
}
