import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query'
import type { Direction } from '../../contract/common.ts'
import { errorSchema, type ErrorSort } from '../../contract/errors.ts'
import { eventSchema } from '../../contract/events.ts'
import { apiUrl, getJson, getPage } from './http.ts'

export interface ErrorListParams {
  sort: ErrorSort
  direction: Direction
}

/** Rows per request: large enough that a fast scroll rarely waits, small enough for a quick first screen. */
export const ERRORS_PAGE_SIZE = 50

const EMPTY_POLL_MS = 3_000

const projectPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}`

export const errorKeys = {
  all: ['errors'] as const,
  lists: () => [...errorKeys.all, 'list'] as const,
  list: (projectId: string, params: ErrorListParams) => [...errorKeys.lists(), projectId, params] as const,
  details: () => [...errorKeys.all, 'detail'] as const,
  detail: (projectId: string, errorId: string) => [...errorKeys.details(), projectId, errorId] as const,
  latestEvent: (projectId: string, errorId: string) => [...errorKeys.detail(projectId, errorId), 'latest-event'] as const,
}

/** The errors list, page after page, following each page's `Link: rel="next"`. */
export const errorsInfiniteQuery = (projectId: string, params: ErrorListParams) =>
  infiniteQueryOptions({
    queryKey: errorKeys.list(projectId, params),
    queryFn: ({ pageParam, signal }) =>
      getPage(
        pageParam ??
          apiUrl(`${projectPath(projectId)}/errors`, {
            sort: params.sort,
            direction: params.direction,
            per_page: ERRORS_PAGE_SIZE,
          }),
        errorSchema,
        signal,
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (lastPage) => lastPage.nextUrl,
    staleTime: 5_000,
    // A project waiting for its first error watches for it to arrive.
    refetchInterval: (query) => {
      const first = query.state.data?.pages[0]
      return first && first.items.length === 0 && !first.nextUrl ? EMPTY_POLL_MS : false
    },
  })

export const errorQuery = (projectId: string, errorId: string) =>
  queryOptions({
    queryKey: errorKeys.detail(projectId, errorId),
    queryFn: ({ signal }) =>
      getJson(apiUrl(`${projectPath(projectId)}/errors/${encodeURIComponent(errorId)}`), errorSchema, signal),
    staleTime: 15_000,
  })

export const latestEventQuery = (projectId: string, errorId: string) =>
  queryOptions({
    queryKey: errorKeys.latestEvent(projectId, errorId),
    queryFn: ({ signal }) =>
      getJson(
        apiUrl(`${projectPath(projectId)}/errors/${encodeURIComponent(errorId)}/latest_event`),
        eventSchema,
        signal,
      ),
    staleTime: 15_000,
  })
