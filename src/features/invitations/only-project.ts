import type { QueryClient } from '@tanstack/react-query'
import { organizationsQuery } from '../../api/organizations.ts'
import { projectsQuery } from '../../api/projects.ts'

/**
 * The one project the signed-in user can open, when there is exactly one (a member just joined
 * with access to a single project: that is where they are going). Null when there are more or
 * none, or the lists cannot be read: the caller's usual page then.
 */
export async function onlyProjectId(queryClient: QueryClient): Promise<string | null> {
  try {
    // Read afresh: joining just changed them (and a cache may hold another user's lists).
    const organizations = await queryClient.fetchQuery({ ...organizationsQuery(), staleTime: 0 })
    const lists = await Promise.all(organizations.map((organization) => queryClient.fetchQuery(projectsQuery(organization.id))))
    const projects = lists.flat()
    return projects.length === 1 ? projects[0]!.id : null
  } catch {
    return null
  }
}
