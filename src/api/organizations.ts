import { queryOptions, type QueryClient } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { organizationSchema, type CreateOrganization, type Organization, type UpdateOrganization } from '../../contract/organizations.ts'
import { apiUrl, getJson, sendEmpty, sendJson } from './http.ts'
import { invalidate, mutationWithCacheRule, type CacheRule } from './cache-rules.ts'
import { currentUserQuery } from './auth.ts'
import { collaboratorKeys, collaboratorsQuery } from './collaborators.ts'
import { projectKeys } from './projects.ts'

export const organizationKeys = {
  all: ['organizations'] as const,
  list: () => [...organizationKeys.all, 'list'] as const,
  detail: (organizationId: string) => [...organizationKeys.all, 'detail', organizationId] as const,
}

export const organizationsQuery = () =>
  queryOptions({
    queryKey: organizationKeys.list(),
    queryFn: ({ signal }) => getJson(apiUrl('/user/organizations'), z.array(organizationSchema), signal),
    staleTime: 60_000,
  })

export const organizationQuery = (organizationId: string) =>
  queryOptions({
    queryKey: organizationKeys.detail(organizationId),
    queryFn: ({ signal }) =>
      getJson(apiUrl(`/organizations/${encodeURIComponent(organizationId)}`), organizationSchema, signal),
    staleTime: 60_000,
  })

/**
 * What an organization's settings pages load before they render: the organization, and its
 * collaborators and who is signed in, which decide whether the admin's controls show.
 */
export const ensureOrganizationAdminData = (queryClient: QueryClient, organizationId: string) =>
  Promise.all([
    queryClient.ensureQueryData(organizationQuery(organizationId)),
    queryClient.ensureQueryData(collaboratorsQuery(organizationId)),
    queryClient.ensureQueryData(currentUserQuery()),
  ])

export const createOrganization = (input: CreateOrganization) =>
  sendJson('POST', apiUrl('/user/organizations'), input, organizationSchema)

const organizationPath = (organizationId: string) => `/organizations/${encodeURIComponent(organizationId)}`

export const updateOrganization = (organizationId: string, input: UpdateOrganization) =>
  sendJson('PATCH', apiUrl(organizationPath(organizationId)), input, organizationSchema)

/** Deletes the organization with all its projects, errors and events (204). */
export const deleteOrganization = (organizationId: string) => sendEmpty('DELETE', apiUrl(organizationPath(organizationId)))

// Mutations: each carries what it changes in the cache (cache-rules.ts).

export const organizationMutationKeys = {
  create: () => ['organizations', 'create'] as const,
  update: (organizationId: string) => ['organizations', 'update', organizationId] as const,
}

/** The organization as the server answered it, and the list it is in. */
const writeOrganization: CacheRule<Organization> = {
  afterSuccess: (organization) => ({ write: [[organizationKeys.detail(organization.id), organization]], ...invalidate(organizationKeys.list()) }),
}

export const createOrganizationMutation = () =>
  mutationWithCacheRule({
    mutationKey: organizationMutationKeys.create(),
    mutationFn: (input: CreateOrganization) => createOrganization(input),
    meta: { inlineErrors: true },
    cache: writeOrganization,
  })

/**
 * Deletes the organization: the organizations page reads its list afresh, and what was read about
 * the organization itself is dropped once the dialog has navigated away.
 */
export const deleteOrganizationMutation = (organizationId: string) =>
  mutationWithCacheRule({
    mutationKey: ['organizations', 'delete', organizationId] as const,
    mutationFn: () => deleteOrganization(organizationId),
    meta: { inlineErrors: true },
    cache: {
      afterSuccess: () => ({ remove: [organizationKeys.list()] }),
      afterCallerSuccess: () => ({
        remove: [organizationKeys.detail(organizationId), projectKeys.list(organizationId), collaboratorKeys.list(organizationId)],
      }),
    },
  })

/** A rename: the variables are the new name (settings/rename-form.tsx). */
export const renameOrganizationMutation = (organizationId: string) =>
  mutationWithCacheRule({
    mutationKey: organizationMutationKeys.update(organizationId),
    mutationFn: (name: string) => updateOrganization(organizationId, { name }),
    meta: { inlineErrors: true },
    cache: writeOrganization,
  })
