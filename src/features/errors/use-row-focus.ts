import type { Virtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react'
import type { ErrorGroup } from '../../../contract/errors.ts'
import { announce } from '../../lib/announce.ts'

/**
 * The row last focused in each list (project + sort + filters), kept for this tab (session
 * storage): Enter on a row then Back returns to that row, and j / k go on from it.
 */
const lastFocusedError = {
  get: (key: string) => window.sessionStorage.getItem(key),
  set: (key: string, errorId: string) => window.sessionStorage.setItem(key, errorId),
  forget: (key: string) => window.sessionStorage.removeItem(key),
}

/**
 * The errors list's focused row, held by error id: rows re-sort as events arrive (a refetch, Back
 * to a list read again), and the keys must act on the error the user chose, wherever it moved.
 * j / k move it (scrolling the virtualized rows), focusing a row makes it the focused one, Back
 * from an error focuses that error again, and after a bulk action started elsewhere the focus
 * returns to the rows where it was. A focused error that leaves the list is let go (and said so),
 * unless the list's own triage removed it: then the row that closes up under it takes the focus.
 */
export function useRowFocus({
  errors,
  virtualizer,
  listRef,
  listKey,
}: {
  errors: readonly ErrorGroup[]
  virtualizer: Virtualizer<Window, Element>
  listRef: RefObject<HTMLDivElement | null>
  /** Which list this is (project, sort, filters): the last focused row is remembered per list. */
  listKey: string
}) {
  const [focusedId, setFocusedIdState] = useState<string | null>(null)
  // Read by j/k: held keys repeat faster than React re-renders and than focus moves.
  const focusedRef = useRef<number | null>(null)
  // The focused error now, for focus moves deferred to the next frame: by then the rows may have
  // changed (Back shows the cached list, then the fresh one), and a row index names another error.
  const focusedIdRef = useRef<string | null>(null)
  // Set by "Show new errors" (focusTopOnRefresh): the first error shown then.
  const topOnRefresh = useRef<string | null>(null)
  const setFocused = useCallback((index: number | null, id: string | null) => {
    focusedRef.current = index
    focusedIdRef.current = id
    setFocusedIdState(id)
  }, [])
  const foundIndex = focusedId === null ? -1 : errors.findIndex((error) => error.id === focusedId)
  const focusedIndex = foundIndex === -1 ? null : foundIndex
  const focused = focusedIndex !== null ? errors[focusedIndex] : undefined

  /** The row's link, which takes the focus; only rendered rows have one. */
  const rowLink = (index: number) => listRef.current?.querySelector<HTMLElement>(`[data-row-index="${index}"]`)
  /** Focuses the row's link next frame, if that error is still the focused one. */
  const focusLater = (index: number, id: string | null, then?: (row: HTMLElement | null | undefined) => void) =>
    requestAnimationFrame(() => {
      if (focusedIdRef.current !== id) return
      const row = rowLink(index)
      row?.focus({ preventScroll: true })
      then?.(row)
    })

  const focusRow = (index: number, { scrollTo }: { scrollTo?: number } = {}) => {
    setFocused(index, errors[index]?.id ?? null)
    if (scrollTo === undefined) virtualizer.scrollToIndex(index, { align: 'auto' })
    else virtualizer.scrollToOffset(scrollTo)
    // A rendered row takes the focus now, so a key pressed next (Enter opens the focused link)
    // acts on it, however fast it follows.
    rowLink(index)?.focus({ preventScroll: true })
    // The row may only exist after the virtualizer re-renders; the browser then brings it fully
    // into view, below the sticky header (the rows' scroll margin), which estimates alone missed.
    focusLater(index, errors[index]?.id ?? null, (row) => row?.closest('[role="listitem"]')?.scrollIntoView({ block: 'nearest' }))
  }

  // Where the focused row sat on screen when it was focused, so a bulk action started elsewhere
  // (the bulk toolbar, a menu or a dialog, maybe after scrolling up to it) brings the list back as it was.
  const rowAnchor = useRef<{ index: number; top: number } | null>(null)

  /** A row took the focus (a click, Tab, or focusRow). */
  const onRowFocus = (index: number, row: HTMLElement) => {
    setFocused(index, errors[index]?.id ?? null)
    // Measured once the focus move has scrolled the row into view.
    requestAnimationFrame(() => {
      if (row.isConnected) rowAnchor.current = { index, top: row.getBoundingClientRect().top }
    })
  }

  /**
   * Focus the row the user was on (else the first row acted on) unless the focus is on a row
   * already, scrolled back to where it was. Rows that leave the list (fixed, ignored) close up
   * under it, so the focus ends on the next one, as after `f` on a single row.
   */
  const returnToRows = (ids: readonly string[]) => {
    if (listRef.current?.contains(document.activeElement)) return
    const index = focusedRef.current ?? errors.findIndex((error) => ids.includes(error.id))
    if (index < 0 || index >= errors.length) return
    const anchor = rowAnchor.current
    const start = virtualizer.measurementsCache[index]?.start
    focusRow(index, { scrollTo: anchor?.index === index && start !== undefined ? Math.max(0, start - anchor.top) : undefined })
  }

  const move = (step: 1 | -1) => {
    topOnRefresh.current = null
    if (errors.length === 0) return
    const current = focusedRef.current ?? -1
    focusRow(step === 1 ? Math.min(current + 1, errors.length - 1) : Math.max(current - 1, 0))
  }

  // "Show new errors": the top row takes the focus once the new errors are in (the first error changed).
  const focusTopOnRefresh = () => {
    topOnRefresh.current = errors[0]?.id ?? null
    focusRow(0)
  }

  // Errors the list's own triage acts on: when one leaves the list, the next row takes its place.
  const actedOn = useRef(new Set<string>())
  /** The list is about to change these errors (they may leave it). */
  const willAct = (ids: readonly string[]) => {
    for (const id of ids) actedOn.current.add(id)
  }
  // The error focused again on Back, until the user moves on: named as "the error you opened".
  const restoredId = useRef<string | null>(null)

  const storageKey = `errata.focused-error:${listKey}`
  useEffect(() => {
    if (focusedId) lastFocusedError.set(storageKey, focusedId)
  }, [storageKey, focusedId])

  // Back from an error (or to this list from elsewhere): the error it was opened from is focused
  // again, by id; where it is now is the next effect's business (the router restores the scroll).
  const restoredList = useRef<string | null>(null)
  // The focused error and the index it was last seen at: it "moved" only when the same error
  // changed index (a re-sort), not when the focus went to another row (a click on its checkbox).
  const shown = useRef<{ id: string; index: number } | null>(null)
  useLayoutEffect(() => {
    if (restoredList.current === storageKey) return
    restoredList.current = storageKey
    shown.current = null
    actedOn.current.clear()
    const id = lastFocusedError.get(storageKey)
    restoredId.current = id
    topOnRefresh.current = null
    setFocused(null, id)
  }, [storageKey, setFocused])

  // The focused error moved (the rows re-sorted) or left the list.
  useLayoutEffect(() => {
    if (focusedId === null) {
      shown.current = null
      return
    }
    const inList = listRef.current?.contains(document.activeElement) ?? false
    if (topOnRefresh.current !== null && errors[0] !== undefined && errors[0].id !== topOnRefresh.current) {
      topOnRefresh.current = null
      shown.current = { id: errors[0].id, index: 0 }
      focusRow(0)
      return
    }
    if (foundIndex !== -1) {
      focusedRef.current = foundIndex
      // Restored, or moved while its row held the focus: the focus follows the error.
      const moved = shown.current?.id === focusedId && shown.current.index !== foundIndex
      const restored = shown.current === null && focusedId === restoredId.current
      if ((moved && inList) || restored) {
        const index = foundIndex
        virtualizer.scrollToIndex(index, { align: 'auto' })
        focusLater(index, focusedId)
      }
      shown.current = { id: focusedId, index: foundIndex }
      return
    }
    const previous = focusedRef.current
    if (actedOn.current.has(focusedId) && previous !== null && errors.length > 0) {
      // Fixed or ignored from the list: the row closing up under it is focused (its link kept the focus).
      const index = Math.min(previous, errors.length - 1)
      setFocused(index, errors[index]!.id)
      shown.current = { id: errors[index]!.id, index }
      return
    }
    announce(
      focusedId === restoredId.current ? 'The error you opened is no longer in this list' : 'The focused error is no longer in this list',
    )
    restoredId.current = null
    shown.current = null
    setFocused(null, null)
    lastFocusedError.forget(storageKey)
    if (inList && document.activeElement instanceof HTMLElement) document.activeElement.blur()
    // rowLink and virtualizer are stable enough: the effect follows the data, not the render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [errors, focusedId, foundIndex, setFocused, storageKey])

  return { focusedIndex, focused, focusRow, focusTopOnRefresh, move, returnToRows, onRowFocus, willAct }
}
