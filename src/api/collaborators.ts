import { queryOptions } from '@tanstack/react-query'
import { collaboratorSchema } from '../../contract/collaborators.ts'
import { apiUrl, getJson } from './http.ts'

export const collaboratorKeys = {
  all: ['collaborators'] as const,
  list: (organizationId: string) => [...collaboratorKeys.all, 'list', organizationId] as const,
}

export const collaboratorsQuery = (organizationId: string) =>
  queryOptions({
    queryKey: collaboratorKeys.list(organizationId),
    queryFn: ({ signal }) =>
      getJson(
        apiUrl(`/organizations/${encodeURIComponent(organizationId)}/collaborators`),
        collaboratorSchema.array(),
        signal,
      ),
    staleTime: 60_000,
  })
