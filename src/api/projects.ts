import { mutationOptions, queryOptions, type QueryClient } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { projectSchema, type CreateProject, type Project, type UpdateProject } from '../../contract/projects.ts'
import { apiUrl, getJson, sendEmpty, sendJson } from './http.ts'
import { cachePolicy, invalidate, noCacheEffects } from './mutation-policy.ts'
import { LIST_POLL_MS } from './polling.ts'

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
      getJson(apiUrl(`/organizations/${encodeURIComponent(organizationId)}/projects`), z.array(projectSchema), signal),
    // Open error counts move with every event: show the cached list at once, refresh on each visit.
    staleTime: 0,
  })

export const projectQuery = (projectId: string) =>
  queryOptions({
    queryKey: projectKeys.detail(projectId),
    queryFn: ({ signal }) => getJson(apiUrl(`/projects/${encodeURIComponent(projectId)}`), projectSchema, signal),
    // Read once per page load (the loader's read serves the page's readers on mount). The open
    // error count it carries is read again when it moves: after a status change or an event's
    // deletion (mutation-policy rules), and when the errors list's total changes as it polls
    // (refreshProject); otherwise as often as that list polls.
    staleTime: LIST_POLL_MS,
  })

export const createProject = (organizationId: string, input: CreateProject) =>
  sendJson('POST', apiUrl(`/organizations/${encodeURIComponent(organizationId)}/projects`), input, projectSchema)

const projectPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}`

export const updateProject = (projectId: string, input: UpdateProject) =>
  sendJson('PATCH', apiUrl(projectPath(projectId)), input, projectSchema)

/** Deletes the project with all its errors and events (204). */
export const deleteProject = (projectId: string) => sendEmpty('DELETE', apiUrl(projectPath(projectId)))

/** Answers the project with a new API key; notifiers sending the old one are refused from then on. */
export const regenerateProjectApiKey = (projectId: string) =>
  sendJson('DELETE', apiUrl(`${projectPath(projectId)}/api_key`), undefined, projectSchema)

/**
 * Reads the project again when something it counts moved outside a mutation (its open-errors
 * count, when the errors list's total changed while it polled).
 */
export const refreshProject = (client: QueryClient, projectId: string) =>
  client.invalidateQueries({ queryKey: projectKeys.detail(projectId) })

// Mutations: their cache consequences live in mutation-policy.ts, by mutationKey.

export const projectMutationKeys = {
  create: (organizationId: string) => ['projects', 'create', organizationId] as const,
  update: (projectId: string) => ['projects', 'update', projectId] as const,
}

export const createProjectMutation = (organizationId: string) =>
  mutationOptions({
    mutationKey: projectMutationKeys.create(organizationId),
    mutationFn: (input: CreateProject) => createProject(organizationId, input),
    meta: { inlineErrors: true },
  })

/** A new API key: the project comes back with it (and is written to the cache as any update). */
export const regenerateApiKeyMutation = (projectId: string) =>
  mutationOptions({
    mutationKey: projectMutationKeys.update(projectId),
    mutationFn: () => regenerateProjectApiKey(projectId),
    meta: { inlineErrors: true },
  })

/**
 * Deletes the project. What was read about it is dropped by the dialog, around its navigation
 * away (dropped before, the page still showing it would read it again and find a 404).
 */
export const deleteProjectMutation = (projectId: string) =>
  mutationOptions({
    mutationKey: ['projects', 'delete', projectId] as const,
    mutationFn: () => deleteProject(projectId),
    meta: { inlineErrors: true },
  })

/** A rename: the variables are the new name (settings/rename-form.tsx). */
export const renameProjectMutation = (projectId: string) =>
  mutationOptions({
    mutationKey: projectMutationKeys.update(projectId),
    mutationFn: (name: string) => updateProject(projectId, { name }),
    meta: { inlineErrors: true },
  })

cachePolicy<CreateProject, Project>('projects/create', {
  effects: ({ scope: [organizationId], data }) => ({
    write: data ? [[projectKeys.detail(data.id), data]] : [],
    ...invalidate(projectKeys.list(organizationId as string)),
  }),
})
// A rename or a new API key: the project as the server answered it.
cachePolicy<unknown, Project>('projects/update', {
  effects: ({ data }) => (data ? { write: [[projectKeys.detail(data.id), data]], ...invalidate(projectKeys.list(data.organization_id)) } : {}),
})
// What was read about a deleted project is dropped by its dialog (deleteProjectMutation).
cachePolicy('projects/delete', noCacheEffects)
