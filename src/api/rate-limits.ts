import { queryOptions } from '@tanstack/react-query'
import { rateLimitSchema, type UpdateRateLimit } from '../../contract/rate-limits.ts'
import { apiUrl, getJson, sendJson } from './http.ts'
import { mutationWithCacheRule } from './cache-rules.ts'

export const rateLimitKeys = {
  all: ['rate-limit'] as const,
  project: (projectId: string) => [...rateLimitKeys.all, projectId] as const,
}

const rateLimitPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}/rate_limit`

/** The project's event quotas and what sampling dropped (GET /projects/{id}/rate_limit). */
export const rateLimitQuery = (projectId: string) =>
  queryOptions({
    queryKey: rateLimitKeys.project(projectId),
    queryFn: ({ signal }) => getJson(apiUrl(rateLimitPath(projectId)), rateLimitSchema, signal),
    // The drop count moves while events arrive: read it again on each visit.
    staleTime: 0,
  })

/** Sets or clears the quotas (admins); null clears one. */
export const updateRateLimit = (projectId: string, input: UpdateRateLimit) =>
  sendJson('PATCH', apiUrl(rateLimitPath(projectId)), input, rateLimitSchema)

export const rateLimitMutationKeys = { update: (projectId: string) => ['rate-limit', 'update', projectId] as const }

export const updateRateLimitMutation = (projectId: string) =>
  mutationWithCacheRule({
    mutationKey: rateLimitMutationKeys.update(projectId),
    mutationFn: (input: UpdateRateLimit) => updateRateLimit(projectId, input),
    meta: { inlineErrors: true },
    cache: { afterSuccess: (rateLimit) => ({ write: [[rateLimitKeys.project(projectId), rateLimit]] }) },
  })
