import { useIsMutating, useQuery } from '@tanstack/react-query'
import { errorKeys, errorsHeadQuery, toErrorsHead, type ErrorListParams, type ErrorsHead, type ErrorsPage } from '../../api/errors.ts'

/** What changed on the server since the list's first page was read. */
export interface ListUpdates {
  /** How many more errors the list has now (its total grew by that much). */
  newErrors: number
  /** Whether the total or the first row (which, how many events, last seen) differs at all. */
  changed: boolean
}

const NO_UPDATES: ListUpdates = { newErrors: 0, changed: false }

/** A first page older than this when the list opens came from the cache. */
const CACHED_PAGE_MS = 1_000

/** The head's refetchOnMount: at once when the page shown was read before the list opened (called as it mounts, not while rendering). */
const checkWhenCached = (shownAt: number) => (): 'always' | false => (Date.now() - shownAt > CACHED_PAGE_MS ? 'always' : false)

/** The list's first page (`shown`) against the head read since (`latest`). */
export function compareErrorsHead(shown: ErrorsHead, latest: ErrorsHead): ListUpdates {
  const newErrors = shown.total !== null && latest.total !== null ? Math.max(0, latest.total - shown.total) : 0
  const changed =
    latest.total !== shown.total ||
    latest.first?.id !== shown.first?.id ||
    latest.first?.events !== shown.first?.events ||
    latest.first?.last_seen !== shown.first?.last_seen
  return { newErrors, changed }
}

/**
 * Watches an open errors list for changes on the server: its head (one row and the total) every
 * LIST_POLL_MS while the tab is visible, compared with the first page on screen. Only a head
 * read after that page counts, and none while a triage change is under way: the list shows the
 * change at once, the server's count only once it has made it.
 */
export function useListUpdates(projectId: string, params: ErrorListParams, firstPage: ErrorsPage | undefined): ListUpdates {
  const shown = toErrorsHead(firstPage)
  const shownAt = firstPage?.fetchedAt ?? 0
  // The list's own first page is the head as of when it was read: no request when the list opens
  // on a page it has just read. A page from the cache (read a while ago: by the empty project's
  // poll while its first errors were arriving, or before an error was opened) is checked at once,
  // so what arrived meanwhile shows now, not at the next poll.
  const head = useQuery({
    ...errorsHeadQuery(projectId, params),
    initialData: shown,
    initialDataUpdatedAt: shownAt,
    refetchOnMount: checkWhenCached(shownAt),
  })
  const triaging = useIsMutating({ mutationKey: errorKeys.all }) > 0
  if (triaging || head.dataUpdatedAt <= shownAt) return NO_UPDATES
  return compareErrorsHead(shown, head.data)
}
