import { queryOptions } from '@tanstack/react-query'
import type { Filters } from '../../contract/filters.ts'
import { stabilitySchema } from '../../contract/stability.ts'
import { withFilters } from './event-fields.ts'
import { apiUrl, getJson } from './http.ts'

export const stabilityKeys = {
  all: ['stability'] as const,
  project: (projectId: string, filters: Filters) => [...stabilityKeys.all, projectId, filters] as const,
}

/** Crash-free sessions per release (GET /projects/{id}/stability) for the period in `filters`. */
export const stabilityQuery = (projectId: string, filters: Filters) =>
  queryOptions({
    queryKey: stabilityKeys.project(projectId, filters),
    queryFn: ({ signal }) =>
      getJson(withFilters(apiUrl(`/projects/${encodeURIComponent(projectId)}/stability`), filters), stabilitySchema, signal),
    // Session counts arrive every few seconds to minutes; a visit a little later reads them again.
    staleTime: 30_000,
  })
