import { useQuery } from '@tanstack/react-query'
import { currentUserQuery } from '../../api/auth.ts'
import { collaboratorsQuery } from '../../api/collaborators.ts'
import { projectQuery } from '../../api/projects.ts'

/**
 * Whether the signed-in user administers the project's organization, to offer admin-only actions.
 * False until known (and if the lookup fails): the server refuses non-admins anyway.
 */
export function useIsProjectAdmin(projectId: string): boolean {
  const project = useQuery(projectQuery(projectId)).data
  const user = useQuery(currentUserQuery()).data
  const organizationId = project?.organization_id
  const collaborators = useQuery({ ...collaboratorsQuery(organizationId ?? ''), enabled: organizationId !== undefined }).data
  if (!user || !collaborators) return false
  return collaborators.some((c) => c.id === user.id && c.is_admin)
}
