import { queryOptions } from '@tanstack/react-query'
import type { Filters } from '../../contract/filters.ts'
import { stabilitySchema, stabilityTrendSchema } from '../../contract/stability.ts'
import { withFilters } from './event-fields.ts'
import { apiUrl, getJson } from './http.ts'

export const stabilityKeys = {
  all: ['stability'] as const,
  project: (projectId: string, filters: Filters) => [...stabilityKeys.all, projectId, filters] as const,
  trend: (projectId: string, resolution: string, filters: Filters) => [...stabilityKeys.all, projectId, 'trend', resolution, filters] as const,
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

/** Crash-free sessions per time bucket (GET /projects/{id}/stability/trend), oldest first. */
export const stabilityTrendQuery = (projectId: string, resolution: string, filters: Filters) =>
  queryOptions({
    queryKey: stabilityKeys.trend(projectId, resolution, filters),
    queryFn: ({ signal }) =>
      getJson(
        withFilters(apiUrl(`/projects/${encodeURIComponent(projectId)}/stability/trend`, { resolution }), filters),
        stabilityTrendSchema,
        signal,
      ),
    staleTime: 30_000,
  })
