import { queryOptions } from '@tanstack/react-query'
import { projectStorageSchema, serverStorageSchema } from '../../contract/storage.ts'
import { apiUrl, getJson } from './http.ts'

export const storageKeys = {
  all: ['storage'] as const,
  project: (projectId: string) => [...storageKeys.all, 'project', projectId] as const,
  server: (organizationId: string) => [...storageKeys.all, 'server', organizationId] as const,
}

/** A project's disk use (GET /projects/{id}/storage, admins): measured when asked, read afresh on each visit. */
export const projectStorageQuery = (projectId: string) =>
  queryOptions({
    queryKey: storageKeys.project(projectId),
    queryFn: ({ signal }) => getJson(apiUrl(`/projects/${encodeURIComponent(projectId)}/storage`), projectStorageSchema, signal),
    staleTime: 0,
  })

/** This server's disk use and whether it is low (GET /organizations/{id}/storage, admins of that organization). */
export const serverStorageQuery = (organizationId: string) =>
  queryOptions({
    queryKey: storageKeys.server(organizationId),
    queryFn: ({ signal }) => getJson(apiUrl(`/organizations/${encodeURIComponent(organizationId)}/storage`), serverStorageSchema, signal),
    // The server measures it at most once a minute.
    staleTime: 30_000,
  })
