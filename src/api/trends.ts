import { keepPreviousData, queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import type { Filters } from '../../contract/filters.ts'
import { errorSchema } from '../../contract/errors.ts'
import { errorTrendsSchema, trendBucketSchema } from '../../contract/trends.ts'
import { withFilters } from './event-fields.ts'
import { EMPTY_POLL_MS } from './polling.ts'
import { apiUrl, getJson, getPage } from './http.ts'

const projectPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}`

export interface TrendParams {
  /** `<number><unit>`, such as 1h or 1d. */
  resolution: string
  filters: Filters
}

export const trendKeys = {
  all: ['trends'] as const,
  /** Every trend and sparkline of a project; each key ends with its params. */
  inProject: (projectId: string) => [...trendKeys.all, projectId] as const,
  project: (projectId: string, params: TrendParams) => [...trendKeys.inProject(projectId), 'project', params] as const,
  extent: (projectId: string, filters: Filters) => [...trendKeys.inProject(projectId), 'extent', filters] as const,
  error: (projectId: string, errorId: string, params: TrendParams) =>
    [...trendKeys.inProject(projectId), 'error', errorId, params] as const,
  errors: (projectId: string, errorIds: readonly string[], params: TrendParams) =>
    [...trendKeys.inProject(projectId), 'errors', errorIds, params] as const,
}

/** Event volume of the project's filtered events (GET /projects/{id}/trend), oldest bucket first. */
export const projectTrendQuery = (projectId: string, params: TrendParams) =>
  queryOptions({
    queryKey: trendKeys.project(projectId, params),
    queryFn: ({ signal }) =>
      getJson(
        withFilters(apiUrl(`${projectPath(projectId)}/trend`, { resolution: params.resolution }), params.filters),
        z.array(trendBucketSchema),
        signal,
      ),
    staleTime: 30_000,
    placeholderData: keepPreviousData,
    // Like the errors list beside it, an empty chart watches for events to arrive; otherwise
    // the first errors would show under a chart still saying "No events".
    refetchInterval: (query) => (query.state.data?.every((bucket) => bucket.events_count === 0) ? EMPTY_POLL_MS : false),
  })

/**
 * When the data of a project's trend begins: the first_seen of the oldest error the filters
 * match (GET /projects/{id}/errors?sort=first_seen&direction=asc&per_page=1), null when none
 * does. No matching event is older, so a chart can start there instead of drawing a window that
 * is mostly empty (a young project's events as a sliver at the edge).
 */
export const trendExtentQuery = (projectId: string, filters: Filters) =>
  queryOptions({
    queryKey: trendKeys.extent(projectId, filters),
    queryFn: async ({ signal }) => {
      const page = await getPage(
        withFilters(apiUrl(`${projectPath(projectId)}/errors`, { sort: 'first_seen', direction: 'asc', per_page: 1 }), filters),
        errorSchema,
        signal,
      )
      return page.items[0]?.first_seen ?? null
    },
    staleTime: 60_000,
    // Waits for the first event like the chart and the list do.
    refetchInterval: (query) => (query.state.data === null ? EMPTY_POLL_MS : false),
  })

/** One error's histogram (GET /projects/{id}/errors/{error_id}/trend). */
export const errorTrendQuery = (projectId: string, errorId: string, params: TrendParams) =>
  queryOptions({
    queryKey: trendKeys.error(projectId, errorId, params),
    queryFn: ({ signal }) =>
      getJson(
        withFilters(
          apiUrl(`${projectPath(projectId)}/errors/${encodeURIComponent(errorId)}/trend`, { resolution: params.resolution }),
          params.filters,
        ),
        z.array(trendBucketSchema),
        signal,
      ),
    staleTime: 30_000,
    placeholderData: keepPreviousData,
  })

/** The server's limit of ids per GET /projects/{id}/error_trends. */
export const MAX_ERROR_TRENDS_IDS = 100

/** Sparklines of up to 100 errors in one request: error id → buckets. */
export const errorTrendsQuery = (projectId: string, errorIds: readonly string[], params: TrendParams) =>
  queryOptions({
    queryKey: trendKeys.errors(projectId, errorIds, params),
    queryFn: ({ signal }) =>
      getJson(
        withFilters(
          apiUrl(`${projectPath(projectId)}/error_trends`, { error_ids: errorIds.join(','), resolution: params.resolution }),
          params.filters,
        ),
        errorTrendsSchema,
        signal,
      ),
    staleTime: 60_000,
    enabled: errorIds.length > 0,
    // The next page of rows grows the id list: keep the drawn sparklines meanwhile.
    placeholderData: keepPreviousData,
  })
