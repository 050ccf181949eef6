import { useSuspenseInfiniteQuery } from '@tanstack/react-query'
import { useWindowVirtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { errorsInfiniteQuery, type ErrorListParams } from '../../api/errors.ts'

const ROW_ESTIMATE = 58
/** Start loading the next page this many rows before the end, so scrolling rarely waits. */
const PREFETCH_ROWS = 15

/**
 * The errors list's rows: the pages loaded so far, virtualized against the window so tens of
 * thousands of rows scroll smoothly, and the next page loaded ahead of the scroll position by
 * following the API's Link headers. One row more than the errors while a next page exists: it
 * shows the page loading, or its failure. `measureList` is the rows' container's ref: the window
 * scrolls, so the virtualizer needs where the list starts.
 */
export function useErrorListRows(projectId: string, params: ErrorListParams) {
  const query = useSuspenseInfiniteQuery(errorsInfiniteQuery(projectId, params))
  const { hasNextPage, isFetchingNextPage, fetchNextPage, isFetchNextPageError } = query
  const errors = useMemo(() => query.data.pages.flatMap((page) => page.items), [query.data.pages])
  const total = query.data.pages[0]?.totalCount ?? errors.length

  const listRef = useRef<HTMLDivElement | null>(null)
  const [scrollMargin, setScrollMargin] = useState(0)
  const measureList = useCallback((element: HTMLDivElement | null) => {
    listRef.current = element
    if (element) setScrollMargin(element.getBoundingClientRect().top + window.scrollY)
  }, [])

  const virtualizer = useWindowVirtualizer({
    count: errors.length + (hasNextPage ? 1 : 0),
    estimateSize: () => ROW_ESTIMATE,
    overscan: 8,
    scrollMargin,
  })
  const items = virtualizer.getVirtualItems()
  const lastIndex = items.at(-1)?.index ?? 0

  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && !isFetchNextPageError && lastIndex >= errors.length - PREFETCH_ROWS) {
      void fetchNextPage()
    }
  }, [hasNextPage, isFetchingNextPage, isFetchNextPageError, fetchNextPage, lastIndex, errors.length])

  return { query, errors, total, virtualizer, items, listRef, measureList, scrollMargin }
}
