import { queryOptions } from '@tanstack/react-query'
import { collaboratorSchema } from '../../contract/collaborators.ts'
import { apiUrl, getJson } from './http.ts'

/** Who can see a project: the people an error of it can be assigned to. */
export const projectCollaboratorsQuery = (projectId: string) =>
  queryOptions({
    queryKey: ['collaborators', 'project', projectId] as const,
    queryFn: ({ signal }) =>
      getJson(
        apiUrl(`/projects/${encodeURIComponent(projectId)}/collaborators`),
        collaboratorSchema.array(),
        signal,
      ),
    staleTime: 60_000,
  })
