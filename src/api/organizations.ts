import { queryOptions } from '@tanstack/react-query'
import { organizationSchema, type CreateOrganization } from '../../contract/organizations.ts'
import { apiUrl, getJson, sendJson } from './http.ts'

export const organizationKeys = {
  all: ['organizations'] as const,
  list: () => [...organizationKeys.all, 'list'] as const,
  detail: (organizationId: string) => [...organizationKeys.all, 'detail', organizationId] as const,
}

export const organizationsQuery = () =>
  queryOptions({
    queryKey: organizationKeys.list(),
    queryFn: ({ signal }) => getJson(apiUrl('/user/organizations'), organizationSchema.array(), signal),
    staleTime: 60_000,
  })

export const organizationQuery = (organizationId: string) =>
  queryOptions({
    queryKey: organizationKeys.detail(organizationId),
    queryFn: ({ signal }) =>
      getJson(apiUrl(`/organizations/${encodeURIComponent(organizationId)}`), organizationSchema, signal),
    staleTime: 60_000,
  })

export const createOrganization = (input: CreateOrganization) =>
  sendJson('POST', apiUrl('/user/organizations'), input, organizationSchema)
