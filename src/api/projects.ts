import { queryOptions } from '@tanstack/react-query'
import { projectSchema, type CreateProject } from '../../contract/projects.ts'
import { apiUrl, getJson, sendJson } from './http.ts'

export const projectKeys = {
  all: ['projects'] as const,
  lists: () => [...projectKeys.all, 'list'] as const,
  list: (organizationId: string) => [...projectKeys.lists(), organizationId] as const,
  detail: (projectId: string) => [...projectKeys.all, 'detail', projectId] as const,
}

export const projectsQuery = (organizationId: string) =>
  queryOptions({
    queryKey: projectKeys.list(organizationId),
    queryFn: ({ signal }) =>
      getJson(apiUrl(`/organizations/${encodeURIComponent(organizationId)}/projects`), projectSchema.array(), signal),
    // Open error counts move with every event: show the cached list at once, refresh on each visit.
    staleTime: 0,
  })

export const projectQuery = (projectId: string) =>
  queryOptions({
    queryKey: projectKeys.detail(projectId),
    queryFn: ({ signal }) => getJson(apiUrl(`/projects/${encodeURIComponent(projectId)}`), projectSchema, signal),
    // Carries the open error count shown beside the errors list.
    staleTime: 0,
  })

export const createProject = (organizationId: string, input: CreateProject) =>
  sendJson('POST', apiUrl(`/organizations/${encodeURIComponent(organizationId)}/projects`), input, projectSchema)
