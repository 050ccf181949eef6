import { Link2, ShieldCheck, ShieldOff, SlidersHorizontal, Trash2 } from 'lucide-react'
import type { Collaborator } from '../../../contract/collaborators.ts'
import type { Project } from '../../../contract/projects.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { Button } from '../../components/ui/button.tsx'
import { EmptyState } from '../../components/ui/states.tsx'
import { projectsLabel } from './project-picker.tsx'

export type CollaboratorAction = 'role' | 'projects' | 'remove' | 'relink'

/** What a person is called in labels: a pending invitation has no name yet. */
export const displayName = (collaborator: Pick<Collaborator, 'name' | 'email'>) => collaborator.name || collaborator.email

/**
 * Members and pending invitations. `onAction` is given only to admins: without it the table has no
 * action column at all.
 */
export function CollaboratorsTable({
  collaborators,
  projects,
  currentUserId,
  onAction,
}: {
  collaborators: readonly Collaborator[]
  projects: readonly Pick<Project, 'id' | 'name'>[]
  currentUserId: string | undefined
  onAction?: (action: CollaboratorAction, collaborator: Collaborator) => void
}) {
  if (collaborators.length === 0) {
    return <EmptyState title="No collaborators yet">Invite someone to share this organization's projects.</EmptyState>
  }
  return (
    <div className="overflow-x-auto rounded-lg border border-border bg-surface">
      <table className="w-full text-sm">
        <caption className="sr-only">Collaborators</caption>
        {/* Phones: each row is a stacked card (name, email, role and projects, actions); no header row. */}
        <thead className="border-b border-border bg-surface-muted text-left text-xs text-muted-foreground max-md:hidden">
          <tr>
            <th scope="col" className="px-4 py-2 font-medium">Name</th>
            <th scope="col" className="px-4 py-2 font-medium">Email</th>
            <th scope="col" className="px-4 py-2 font-medium">Role</th>
            <th scope="col" className="px-4 py-2 font-medium">Projects</th>
            {onAction ? (
              <th scope="col" className="px-4 py-2 text-right font-medium">
                Actions
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody className="divide-y divide-border">
          {collaborators.map((collaborator) => {
            const label = displayName(collaborator)
            const pending = collaborator.pending_invitation
            return (
              <tr
                key={collaborator.id}
                className="align-top max-md:flex max-md:flex-wrap max-md:items-center max-md:gap-x-3 max-md:gap-y-1 max-md:px-4 max-md:py-3"
              >
                <th scope="row" className="px-4 py-2.5 text-left font-medium max-md:basis-full max-md:p-0">
                  <span className="flex flex-wrap items-center gap-1.5">
                    <span className="break-words">{collaborator.name || <span className="text-muted-foreground">Invited</span>}</span>
                    {pending ? <Badge tone="warning">Pending</Badge> : null}
                    {collaborator.id === currentUserId && !pending ? <Badge tone="info">You</Badge> : null}
                  </span>
                </th>
                <td className="px-4 py-2.5 [overflow-wrap:break-word] max-md:basis-full max-md:p-0 max-md:text-muted-foreground">
                  {collaborator.email}
                </td>
                <td className="px-4 py-2.5 max-md:p-0">
                  {collaborator.is_admin ? <Badge tone="accent">Admin</Badge> : <Badge>Member</Badge>}
                </td>
                <td className="px-4 py-2.5 text-muted-foreground md:min-w-28 max-md:p-0">
                  {projectsLabel(collaborator.project_ids, projects)}
                </td>
                {onAction ? (
                  <td className="px-4 py-2 text-right max-md:basis-full max-md:p-0">
                    <div className="flex flex-wrap justify-end gap-1 max-md:-ml-2 max-md:justify-start">
                      {pending ? (
                        <Button
                          size="sm"
                          variant="ghost"
                          aria-label={`New invitation link for ${collaborator.email}`}
                          onClick={() => onAction('relink', collaborator)}
                        >
                          <Link2 aria-hidden="true" />
                          New link
                        </Button>
                      ) : null}
                      <Button
                        size="sm"
                        variant="ghost"
                        // The visible words first, so voice control ("click Make admin") finds it.
                        aria-label={collaborator.is_admin ? `Make member: ${label}` : `Make admin: ${label}`}
                        onClick={() => onAction('role', collaborator)}
                      >
                        {collaborator.is_admin ? <ShieldOff aria-hidden="true" /> : <ShieldCheck aria-hidden="true" />}
                        {collaborator.is_admin ? 'Make member' : 'Make admin'}
                      </Button>
                      {collaborator.is_admin ? null : (
                        <Button
                          size="sm"
                          variant="ghost"
                          aria-label={`Edit projects of ${label}`}
                          onClick={() => onAction('projects', collaborator)}
                        >
                          <SlidersHorizontal aria-hidden="true" />
                          Projects
                        </Button>
                      )}
                      <Button
                        size="sm"
                        variant="ghost"
                        className="text-danger"
                        aria-label={pending ? `Withdraw invitation for ${collaborator.email}` : `Remove ${label}`}
                        onClick={() => onAction('remove', collaborator)}
                      >
                        <Trash2 aria-hidden="true" />
                        {pending ? 'Withdraw' : 'Remove'}
                      </Button>
                    </div>
                  </td>
                ) : null}
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}
