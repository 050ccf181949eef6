import type { Virtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react'
import type { ErrorGroup } from '../../../contract/errors.ts'

/**
 * The row last focused in each list (project + sort + filters), kept for this tab (session
 * storage): Enter on a row then Back returns to that row, and j / k go on from it.
 */
const lastFocusedError = {
  get: (key: string) => window.sessionStorage.getItem(key),
  set: (key: string, errorId: string) => window.sessionStorage.setItem(key, errorId),
}

/**
 * The errors list's focused row: j / k move it (scrolling the virtualized rows), focusing a row
 * makes it the focused one, Back from an error focuses the row it was opened from, and after a
 * bulk action started elsewhere the focus returns to the rows where it was.
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
  const [focusedIndex, setFocusedIndexState] = useState<number | null>(null)
  // Read by j/k: held keys repeat faster than React re-renders and than focus moves.
  const focusedRef = useRef<number | null>(null)
  const setFocusedIndex = useCallback((index: number) => {
    focusedRef.current = index
    setFocusedIndexState(index)
  }, [])
  const focused = focusedIndex !== null ? errors[focusedIndex] : undefined

  /** The row's link, which takes the focus; only rendered rows have one. */
  const rowLink = (index: number) => listRef.current?.querySelector<HTMLElement>(`[data-row-index="${index}"]`)

  const focusRow = (index: number, { scrollTo }: { scrollTo?: number } = {}) => {
    setFocusedIndex(index)
    if (scrollTo === undefined) virtualizer.scrollToIndex(index, { align: 'auto' })
    else virtualizer.scrollToOffset(scrollTo)
    // The row may only exist after the virtualizer re-renders; the browser then brings it fully
    // into view, below the sticky header (the rows' scroll margin), which estimates alone missed.
    requestAnimationFrame(() => {
      const row = rowLink(index)
      row?.focus({ preventScroll: true })
      row?.closest('[role="listitem"]')?.scrollIntoView({ block: 'nearest' })
    })
  }

  // Where the focused row sat on screen when it was focused, so a bulk action started elsewhere
  // (the bulk toolbar, a menu or a dialog, maybe after scrolling up to it) brings the list back as it was.
  const rowAnchor = useRef<{ index: number; top: number } | null>(null)

  /** A row took the focus (a click, Tab, or focusRow). */
  const onRowFocus = (index: number, row: HTMLElement) => {
    setFocusedIndex(index)
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
    if (errors.length === 0) return
    const current = focusedRef.current ?? -1
    focusRow(step === 1 ? Math.min(current + 1, errors.length - 1) : Math.max(current - 1, 0))
  }

  const storageKey = `errata.focused-error:${listKey}`
  const focusedId = focused?.id
  useEffect(() => {
    if (focusedId) lastFocusedError.set(storageKey, focusedId)
  }, [storageKey, focusedId])
  // Back from an error: the row it was opened from is focused again (the router restores the scroll).
  const restoredList = useRef<string | null>(null)
  useEffect(() => {
    if (restoredList.current === storageKey) return
    restoredList.current = storageKey
    const id = lastFocusedError.get(storageKey)
    const index = id === null ? -1 : errors.findIndex((error) => error.id === id)
    if (index === -1) return
    // Focusing the row makes it the focused index too (onRowFocus).
    requestAnimationFrame(() => listRef.current?.querySelector<HTMLElement>(`[data-row-index="${index}"]`)?.focus({ preventScroll: true }))
  }, [storageKey, errors, listRef])

  return { focusedIndex, focused, focusRow, move, returnToRows, onRowFocus }
}
