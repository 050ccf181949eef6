import { useQuery } from '@tanstack/react-query'
import { UserRound } from 'lucide-react'
import { useMemo } from 'react'
import type { Collaborator } from '../../../contract/collaborators.ts'
import { projectCollaboratorsQuery } from '../../api/collaborators.ts'

/** People an error of this project can be assigned to (pending invitations have no account yet). */
export function useAssignableCollaborators(projectId: string) {
  const query = useQuery(projectCollaboratorsQuery(projectId))
  const collaborators = useMemo(
    () => (query.data ?? []).filter((c) => !c.pending_invitation),
    [query.data],
  )
  const byId = useMemo(() => new Map(collaborators.map((c) => [c.id, c])), [collaborators])
  return { query, collaborators, byId }
}

/** The assignee's name; "someone" when they are no longer a collaborator we can see. */
export function assigneeName(id: string | null, byId: ReadonlyMap<string, Collaborator>): string | null {
  if (!id) return null
  return byId.get(id)?.name ?? 'someone'
}

export function AssigneeLabel({ name, className }: { name: string | null; className?: string }) {
  if (!name) return null
  return (
    <span className={className ?? 'inline-flex min-w-0 items-center gap-1 text-xs text-muted-foreground'}>
      <UserRound aria-hidden="true" className="size-3.5 shrink-0" />
      <span className="sr-only">Assigned to </span>
      <span className="truncate">{name}</span>
    </span>
  )
}
