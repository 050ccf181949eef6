import type { QueryClient } from '@tanstack/react-query'
import { isApiError } from '../../api/http.ts'
import { projectQuery } from '../../api/projects.ts'
import { forgetLastProject, readLastProject } from '../../lib/last-project.ts'

export const ORGANIZATION_PICKER = '/organizations'

/**
 * Where a sign-in without a page to return to lands: the project this user last opened in this
 * browser, when it still exists and they can still see it; otherwise the organization picker.
 * A project gone (404) is forgotten; a server that cannot answer now leaves it remembered.
 */
export async function landingAfterSignIn(queryClient: QueryClient, userId: string): Promise<string> {
  const projectId = readLastProject(userId)
  if (!projectId) return ORGANIZATION_PICKER
  try {
    await queryClient.fetchQuery(projectQuery(projectId))
    return `/projects/${encodeURIComponent(projectId)}/errors`
  } catch (error) {
    if (isApiError(error, 404)) forgetLastProject(userId)
    return ORGANIZATION_PICKER
  }
}
