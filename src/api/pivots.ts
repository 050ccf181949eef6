import { keepPreviousData, queryOptions } from '@tanstack/react-query'
import type { Filters, PivotFieldId } from '../../contract/filters.ts'
import { pivotValueSchema } from '../../contract/pivots.ts'
import { withFilters } from './event-fields.ts'
import { apiUrl, getPage } from './http.ts'

const projectPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}`

export interface PivotValuesParams {
  filters: Filters
  perPage: number
  /** Cursor from the previous page's Link rel="next" (the pivot page keeps it in the URL). */
  cursor?: string
}

export const pivotKeys = {
  all: ['pivots'] as const,
  /** Every pivot of a project; each key ends with its params. */
  project: (projectId: string) => [...pivotKeys.all, projectId] as const,
  values: (projectId: string, errorId: string | null, pivotId: PivotFieldId, params: PivotValuesParams) =>
    [...pivotKeys.project(projectId), errorId ?? 'project', pivotId, params] as const,
}

/**
 * One page of a pivot's values, most events first: for the whole project (errorId null,
 * GET /projects/{id}/pivots/{display_id}/values) or one error.
 */
export const pivotValuesQuery = (
  projectId: string,
  errorId: string | null,
  pivotId: PivotFieldId,
  params: PivotValuesParams,
) =>
  queryOptions({
    queryKey: pivotKeys.values(projectId, errorId, pivotId, params),
    queryFn: ({ signal }) => {
      const base = errorId
        ? `${projectPath(projectId)}/errors/${encodeURIComponent(errorId)}/pivots/${encodeURIComponent(pivotId)}/values`
        : `${projectPath(projectId)}/pivots/${encodeURIComponent(pivotId)}/values`
      return getPage(
        withFilters(apiUrl(base, { per_page: params.perPage, cursor: params.cursor }), params.filters),
        pivotValueSchema,
        signal,
      )
    },
    staleTime: 30_000,
    // Typing in the filter bar changes the filters: keep the last values on screen meanwhile.
    placeholderData: keepPreviousData,
  })
