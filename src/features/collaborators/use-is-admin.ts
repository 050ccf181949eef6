import { useQuery } from '@tanstack/react-query'
import { currentUserQuery } from '../../api/auth.ts'
import { collaboratorsQuery } from '../../api/collaborators.ts'
import { projectQuery } from '../../api/projects.ts'

/**
 * Whether the signed-in user administers the organization, to offer admin-only actions.
 * False until known (and if the lookup fails): the server refuses non-admins anyway.
 */
export function useIsOrganizationAdmin(organizationId: string | undefined): boolean {
  const user = useQuery(currentUserQuery()).data
  const collaborators = useQuery({ ...collaboratorsQuery(organizationId ?? ''), enabled: organizationId !== undefined }).data
  if (!user || !collaborators) return false
  return collaborators.some((c) => c.id === user.id && c.is_admin && !c.pending_invitation)
}

/** Whether the signed-in user administers the project's organization. */
export function useIsProjectAdmin(projectId: string): boolean {
  return useIsOrganizationAdmin(useQuery(projectQuery(projectId)).data?.organization_id)
}
