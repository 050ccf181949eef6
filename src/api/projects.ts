import { queryOptions, type QueryClient } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { projectSchema, type CreateProject, type Project, type UpdateProject } from '../../contract/projects.ts'
import { apiUrl, getJson, sendEmpty, sendJson } from './http.ts'
import { invalidate, mutationWithCacheRule, type CacheRule } from './cache-rules.ts'
import { errorKeys } from './errors.ts'
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
    // deletion (the mutations' cache rules), and when the errors list's total changes as it polls
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

// Mutations: each carries what it changes in the cache (cache-rules.ts).

export const projectMutationKeys = {
  create: (organizationId: string) => ['projects', 'create', organizationId] as const,
  update: (projectId: string) => ['projects', 'update', projectId] as const,
}

/** A new project, a rename or a new API key: the project as the server answered it, and its organization's list. */
const writeProject: CacheRule<Project> = {
  afterSuccess: (project) => ({ write: [[projectKeys.detail(project.id), project]], ...invalidate(projectKeys.list(project.organization_id)) }),
}

export const createProjectMutation = (organizationId: string) =>
  mutationWithCacheRule({
    mutationKey: projectMutationKeys.create(organizationId),
    mutationFn: (input: CreateProject) => createProject(organizationId, input),
    meta: { inlineErrors: true },
    cache: writeProject,
  })

/** A new API key: the project comes back with it. */
export const regenerateApiKeyMutation = (projectId: string) =>
  mutationWithCacheRule({
    mutationKey: projectMutationKeys.update(projectId),
    mutationFn: () => regenerateProjectApiKey(projectId),
    meta: { inlineErrors: true },
    cache: writeProject,
  })

/**
 * Deletes the project: the organization page reads its list afresh, and what was read about the
 * project itself is dropped once the dialog has navigated away.
 */
export const deleteProjectMutation = (project: Pick<Project, 'id' | 'organization_id'>) =>
  mutationWithCacheRule({
    mutationKey: ['projects', 'delete', project.id] as const,
    mutationFn: () => deleteProject(project.id),
    meta: { inlineErrors: true },
    cache: {
      afterSuccess: () => ({ remove: [projectKeys.list(project.organization_id)] }),
      afterCallerSuccess: () => ({
        remove: [projectKeys.detail(project.id), [...errorKeys.lists(), project.id], [...errorKeys.details(), project.id]],
      }),
    },
  })

/** A rename: the variables are the new name (settings/rename-form.tsx). */
export const renameProjectMutation = (projectId: string) =>
  mutationWithCacheRule({
    mutationKey: projectMutationKeys.update(projectId),
    mutationFn: (name: string) => updateProject(projectId, { name }),
    meta: { inlineErrors: true },
    cache: writeProject,
  })

/** The project's event retention: days, or null for the server's default. */
export const updateRetentionMutation = (projectId: string) =>
  mutationWithCacheRule({
    mutationKey: projectMutationKeys.update(projectId),
    mutationFn: (days: number | null) => updateProject(projectId, { event_retention_days: days }),
    meta: { inlineErrors: true },
    cache: writeProject,
  })
