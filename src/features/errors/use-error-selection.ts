import { useCallback, useMemo, useState } from 'react'
import type { ErrorsPage } from '../../api/errors.ts'

/** "Select all matching" loads at most this many rows: bulk actions send them 100 ids a request. */
export const MAX_SELECT_ALL = 2000

/** What fetchNextPage answers, as far as loading more rows to select needs it. */
interface NextPageResult {
  data?: { pages: ErrorsPage[] }
  hasNextPage: boolean
  isError: boolean
}

/**
 * The errors list's selection: view state, not part of the URL (a shared link should not carry
 * it). Ids of rows no longer loaded (fixed away, filtered out) are kept but not counted.
 */
export function useErrorSelection(errorIds: readonly string[], fetchNextPage: () => Promise<NextPageResult>) {
  const [selection, setSelection] = useState<ReadonlySet<string>>(() => new Set())
  const [selectingAll, setSelectingAll] = useState(false)
  const selectedIds = useMemo(() => errorIds.filter((id) => selection.has(id)), [errorIds, selection])
  const allSelected = errorIds.length > 0 && selectedIds.length === errorIds.length

  const toggle = useCallback((id: string) => {
    setSelection((current) => {
      const next = new Set(current)
      if (next.has(id)) next.delete(id)
      else next.add(id)
      return next
    })
  }, [])

  /** Loads the remaining pages (up to MAX_SELECT_ALL rows) and selects every row loaded. */
  const selectAllMatching = async () => {
    setSelectingAll(true)
    try {
      let result = await fetchNextPage()
      const loaded = () => result.data?.pages.reduce((n, page) => n + page.items.length, 0) ?? 0
      while (result.hasNextPage && !result.isError && loaded() < MAX_SELECT_ALL) result = await fetchNextPage()
      const ids = (result.data?.pages ?? []).flatMap((page) => page.items.map((error) => error.id))
      setSelection(new Set(ids.slice(0, MAX_SELECT_ALL)))
    } finally {
      setSelectingAll(false)
    }
  }

  return {
    selection,
    selectedIds,
    allSelected,
    selectingAll,
    isSelected: (id: string) => selection.has(id),
    toggle,
    /** Select every loaded row, or none when all are. */
    toggleAll: () => setSelection(allSelected ? new Set() : new Set(errorIds)),
    selectOnly: (ids: readonly string[]) => setSelection(new Set(ids)),
    clear: () => setSelection(new Set()),
    selectAllMatching,
  }
}
