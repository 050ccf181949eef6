import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { createdOrganizationTokenSchema, organizationTokenSchema } from '../../contract/organization-tokens.ts'
import { invalidate, mutationWithCacheRule } from './cache-rules.ts'
import { apiUrl, getJson, sendEmpty, sendJson } from './http.ts'

const base = (organizationId: string) => `/organizations/${encodeURIComponent(organizationId)}/api_tokens`

export const organizationTokenKeys = {
  all: ['organization-tokens'] as const,
  list: (organizationId: string) => [...organizationTokenKeys.all, 'list', organizationId] as const,
}

export const organizationTokensQuery = (organizationId: string) =>
  queryOptions({
    queryKey: organizationTokenKeys.list(organizationId),
    queryFn: ({ signal }) => getJson(apiUrl(base(organizationId)), z.array(organizationTokenSchema), signal),
    // "Last used" moves with every script's request: refresh on each visit.
    staleTime: 0,
  })

export const organizationTokenMutationKeys = {
  create: (organizationId: string) => ['organization-tokens', 'create', organizationId] as const,
  revoke: (organizationId: string) => ['organization-tokens', 'revoke', organizationId] as const,
}

/** The answer carries the secret; it is never shown again. */
export const createOrganizationTokenMutation = (organizationId: string) =>
  mutationWithCacheRule({
    mutationKey: organizationTokenMutationKeys.create(organizationId),
    mutationFn: (name: string) => sendJson('POST', apiUrl(base(organizationId)), { name }, createdOrganizationTokenSchema),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => invalidate(organizationTokenKeys.list(organizationId)) },
  })

export const revokeOrganizationTokenMutation = (organizationId: string) =>
  mutationWithCacheRule({
    mutationKey: organizationTokenMutationKeys.revoke(organizationId),
    mutationFn: (tokenId: string) => sendEmpty('DELETE', apiUrl(`${base(organizationId)}/${encodeURIComponent(tokenId)}`)),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => invalidate(organizationTokenKeys.list(organizationId)) },
  })
