import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { eventFieldSchema, filtersToParams, type Filters } from '../../contract/filters.ts'
import { apiUrl, getJson } from './http.ts'

/** Appends filters in the API's pair form (filters[<field>][][type]/[value]) to an apiUrl(). */
export function withFilters(url: string, filters: Filters): string {
  const params = filtersToParams(filters).toString()
  if (!params) return url
  return `${url}${url.includes('?') ? '&' : '?'}${params}`
}

export const eventFieldKeys = {
  all: ['event-fields'] as const,
  list: (projectId: string) => [...eventFieldKeys.all, projectId] as const,
}

/** The filterable fields of a project (GET /projects/{id}/event_fields): the filter bar's first suggestions. */
export const eventFieldsQuery = (projectId: string) =>
  queryOptions({
    queryKey: eventFieldKeys.list(projectId),
    queryFn: ({ signal }) => getJson(apiUrl(`/projects/${encodeURIComponent(projectId)}/event_fields`), z.array(eventFieldSchema), signal),
    // The field registry changes with releases of Errata, not with events.
    staleTime: 10 * 60_000,
  })
