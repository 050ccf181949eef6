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
  // A member limited to some projects sees other people's projects only as far as their own go.
  const viewer = collaborators.find((collaborator) => collaborator.id === currentUserId && !collaborator.pending_invitation)
  const viewerLimited = viewer !== undefined && !viewer.is_admin && viewer.project_ids !== null
  // The server refuses to demote or remove the last admin (pending invitations do not count): not offered.
  const adminCount = collaborators.filter((collaborator) => collaborator.is_admin && !collaborator.pending_invitation).length
  return (
    // The table follows the width it is given, not the viewport's: beside the invite form on a
    // laptop it may be narrower than on a phone in landscape. Below 48rem each row is a stacked
    // card (name and email, role and projects, actions) without a header row; from 48rem the
    // name and email share a column so the actions fit on one line beside them.
    <div className="@container overflow-x-auto rounded-lg border border-border bg-surface">
      <table className="w-full text-sm @max-3xl:table-fixed">
        <caption className="sr-only">Collaborators</caption>
        <thead className="border-b border-border bg-surface-muted text-left text-xs text-muted-foreground @max-3xl:hidden">
          <tr>
            <th scope="col" className="px-4 py-2 font-medium">Name</th>
            <th scope="col" className="w-px px-4 py-2 font-medium">Role</th>
            <th scope="col" className="px-4 py-2 font-medium">Projects</th>
            {onAction ? (
              <th scope="col" className="w-px px-4 py-2 text-right font-medium">
                Actions
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody className="divide-y divide-border">
          {collaborators.map((collaborator) => {
            const label = displayName(collaborator)
            const pending = collaborator.pending_invitation
            const partial = viewerLimited && collaborator !== viewer && collaborator.project_ids !== null
            const lastAdmin = collaborator.is_admin && !pending && adminCount <= 1
            return (
              <tr
                key={collaborator.id}
                className="@max-3xl:flex @max-3xl:flex-wrap @max-3xl:items-center @max-3xl:gap-x-3 @max-3xl:gap-y-1 @max-3xl:px-4 @max-3xl:py-3"
              >
                {/* Names and emails are whatever people typed: they wrap anywhere rather than widen the table. */}
                <th scope="row" className="px-4 py-2 text-left font-normal [overflow-wrap:anywhere] @max-3xl:min-w-0 @max-3xl:basis-full @max-3xl:p-0">
                  <span className="flex flex-wrap items-center gap-x-1.5 gap-y-0.5">
                    {/* A pending invitation has no name yet (the invitee picks it): its email is its name. */}
                    <span className="min-w-0 font-medium">{label}</span>
                    {pending ? <Badge tone="warning">Pending</Badge> : null}
                    {collaborator.id === currentUserId && !pending ? <Badge tone="info">You</Badge> : null}
                  </span>
                  {collaborator.name ? <span className="block text-muted-foreground">{collaborator.email}</span> : null}
                </th>
                <td className="w-px px-4 py-2 align-middle @max-3xl:w-auto @max-3xl:p-0">
                  {collaborator.is_admin ? <Badge tone="accent">Admin</Badge> : <Badge>Member</Badge>}
                </td>
                <td
                  className="px-4 py-2 align-middle text-muted-foreground [overflow-wrap:anywhere] @3xl:min-w-28 @max-3xl:min-w-0 @max-3xl:flex-1 @max-3xl:p-0"
                  title={partial ? 'Only the projects you can see are listed' : undefined}
                >
                  {projectsLabel(collaborator.project_ids, projects, { partial })}
                </td>
                {onAction ? (
                  <td className="w-px px-4 py-2 text-right align-middle @max-3xl:w-auto @max-3xl:basis-full @max-3xl:p-0">
                    <div className="flex justify-end gap-1 @max-3xl:-ml-2 @max-3xl:flex-wrap @max-3xl:justify-start">
                      {pending ? (
                        <Button
                          size="sm"
                          variant="ghost"
                          // The visible words first (WCAG 2.5.3), so voice control ("click New link") finds it.
                          aria-label={`New link for ${collaborator.email}`}
                          onClick={() => onAction('relink', collaborator)}
                        >
                          <Link2 aria-hidden="true" />
                          New link
                        </Button>
                      ) : null}
                      {lastAdmin ? (
                        <span className="px-2 py-1 text-xs text-muted-foreground @max-3xl:text-left">
                          The only admin: make someone else an admin to step down or leave
                        </span>
                      ) : (
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
                      )}
                      {collaborator.is_admin ? null : (
                        <Button
                          size="sm"
                          variant="ghost"
                          aria-label={`Projects of ${label}`}
                          onClick={() => onAction('projects', collaborator)}
                        >
                          <SlidersHorizontal aria-hidden="true" />
                          Projects
                        </Button>
                      )}
                      {lastAdmin ? null : (
                        <Button
                          size="sm"
                          variant="ghost"
                          tone="danger"
                          aria-label={pending ? `Withdraw invitation for ${collaborator.email}` : `Remove ${label}`}
                          onClick={() => onAction('remove', collaborator)}
                        >
                          <Trash2 aria-hidden="true" />
                          {pending ? 'Withdraw' : 'Remove'}
                        </Button>
                      )}
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
