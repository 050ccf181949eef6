import { mutationOptions, queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { organizationSchema, type CreateOrganization, type Organization, type UpdateOrganization } from '../../contract/organizations.ts'
import { apiUrl, getJson, sendEmpty, sendJson } from './http.ts'
import { cachePolicy, invalidate, noCacheEffects } from './mutation-policy.ts'

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

export const createOrganization = (input: CreateOrganization) =>
  sendJson('POST', apiUrl('/user/organizations'), input, organizationSchema)

const organizationPath = (organizationId: string) => `/organizations/${encodeURIComponent(organizationId)}`

export const updateOrganization = (organizationId: string, input: UpdateOrganization) =>
  sendJson('PATCH', apiUrl(organizationPath(organizationId)), input, organizationSchema)

/** Deletes the organization with all its projects, errors and events (204). */
export const deleteOrganization = (organizationId: string) => sendEmpty('DELETE', apiUrl(organizationPath(organizationId)))

// Mutations: their cache consequences live in mutation-policy.ts, by mutationKey.

export const organizationMutationKeys = {
  create: () => ['organizations', 'create'] as const,
  update: (organizationId: string) => ['organizations', 'update', organizationId] as const,
}

export const createOrganizationMutation = () =>
  mutationOptions({
    mutationKey: organizationMutationKeys.create(),
    mutationFn: (input: CreateOrganization) => createOrganization(input),
    meta: { inlineErrors: true },
  })

/**
 * Deletes the organization. What was read about it is dropped by the dialog, around its
 * navigation away (dropped before, the page still showing it would read it again and find a 404).
 */
export const deleteOrganizationMutation = (organizationId: string) =>
  mutationOptions({
    mutationKey: ['organizations', 'delete', organizationId] as const,
    mutationFn: () => deleteOrganization(organizationId),
    meta: { inlineErrors: true },
  })

/** A rename: the variables are the new name (settings/rename-form.tsx). */
export const renameOrganizationMutation = (organizationId: string) =>
  mutationOptions({
    mutationKey: organizationMutationKeys.update(organizationId),
    mutationFn: (name: string) => updateOrganization(organizationId, { name }),
    meta: { inlineErrors: true },
  })

const writeOrganization = ({ data }: { data: Organization | undefined }) =>
  data ? { write: [[organizationKeys.detail(data.id), data]] as [readonly unknown[], unknown][], ...invalidate(organizationKeys.list()) } : {}
cachePolicy<unknown, Organization>('organizations/create', { effects: writeOrganization })
cachePolicy<unknown, Organization>('organizations/update', { effects: writeOrganization })
// What was read about a deleted organization is dropped by its dialog (deleteOrganizationMutation).
cachePolicy('organizations/delete', noCacheEffects)
