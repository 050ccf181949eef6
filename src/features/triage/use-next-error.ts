import { useInfiniteQuery } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import type { Filters } from '../../../contract/filters.ts'
import { errorsInfiniteQuery, type ErrorListParams } from '../../api/errors.ts'
import { errorsListSearchFor } from '../errors/errors-list-return.ts'
import { fromFilterSearch } from '../filters/to-filter-search.ts'

/**
 * The error after this one in the list it was opened from (the list remembered for the way
 * back, errors-list-return.ts), so that after a fix the next error is one key away. Read from
 * the list's cache, or its first page when the page was opened directly. Once this error leaves
 * the list (fixed, it no longer matches "status is open"), the next one found before stays.
 */
export function useNextError(projectId: string, errorId: string, pageFilters: Filters): { id: string } | null {
  const params: ErrorListParams = useMemo(() => {
    const search = errorsListSearchFor(projectId, pageFilters)
    return { sort: search.sort ?? 'last_seen', direction: search.direction ?? 'desc', filters: fromFilterSearch(search.f) }
  }, [projectId, pageFilters])
  const list = useInfiniteQuery(errorsInfiniteQuery(projectId, params))
  // The next error seen while this one was in the list: kept once it leaves the list.
  const [seen, setSeen] = useState<{ errorId: string; next: string | null } | null>(null)
  const ids = list.data?.pages.flatMap((page) => page.items.map((error) => error.id)) ?? []
  const index = ids.indexOf(errorId)
  const inList = index >= 0 ? (ids[index + 1] ?? null) : undefined
  if (inList !== undefined && (seen?.errorId !== errorId || seen.next !== inList)) setSeen({ errorId, next: inList })
  if (seen?.errorId === errorId) return seen.next ? { id: seen.next } : null
  // Opened from elsewhere (not among the list's loaded rows): the list's first error, unless it is this one.
  const first = ids[0]
  return first !== undefined && first !== errorId ? { id: first } : null
}
