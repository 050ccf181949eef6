import { infiniteQueryOptions } from '@tanstack/react-query'
import { releaseSchema } from '../../contract/releases.ts'
import { apiUrl, getPage } from './http.ts'

export const RELEASES_PAGE_SIZE = 30

export const releaseKeys = {
  all: ['releases'] as const,
  list: (projectId: string, stage: string | undefined) => [...releaseKeys.all, projectId, stage ?? null] as const,
}

/** A project's releases by stage, then version newest first (GET /projects/{id}/releases?sort=version), a page at a time. */
export const releasesInfiniteQuery = (projectId: string, stage: string | undefined) =>
  infiniteQueryOptions({
    queryKey: releaseKeys.list(projectId, stage),
    queryFn: ({ pageParam, signal }) =>
      getPage(
        pageParam ??
          apiUrl(`/projects/${encodeURIComponent(projectId)}/releases`, { release_stage: stage, sort: 'version', per_page: RELEASES_PAGE_SIZE }),
        releaseSchema,
        signal,
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (lastPage) => lastPage.nextUrl,
    // Session counts and new errors arrive all the time; a visit a little later reads them again.
    staleTime: 30_000,
  })
