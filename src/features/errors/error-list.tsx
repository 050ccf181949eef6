import { useQueryClient, useSuspenseInfiniteQuery } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { useWindowVirtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type { Direction } from '../../../contract/common.ts'
import type { ErrorGroup, ErrorOperation, ErrorSort } from '../../../contract/errors.ts'
import {
  errorsInfiniteQuery,
  refreshErrorsList,
  type ErrorListParams,
} from '../../api/errors.ts'
import { Button } from '../../components/ui/button.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { cn } from '../../lib/cn.ts'
import { formatCount, formatCountOf } from '../../lib/relative-time.ts'
import { AssignDialog, AssigneeLabel, assigneeName, useAssignableCollaborators } from '../triage/assign-menu.tsx'
import { BulkToolbar } from '../triage/bulk-toolbar.tsx'
import { focusFilterInput, useShortcuts } from '../triage/keyboard-shortcuts.ts'
import { ShortcutsHelp, ShortcutsHelpButton } from '../triage/shortcuts-help.tsx'
import { SnoozeDialog } from '../triage/snooze-dialog.tsx'
import { useTriageOperations } from '../triage/use-triage-operations.ts'
import { Sparkline, useErrorSparklines } from '../trends/error-sparklines.tsx'
import { ErrorStatusBadge, HandledLabel, ReleaseLabel, SeverityIndicator } from './error-badges.tsx'
import { SortHeader } from './sort-header.tsx'
import { StatusTabs } from './status-tabs.tsx'
import { useListUpdates } from './use-list-updates.ts'
import { errorClassLabel } from '../../lib/error-class.ts'
import { eventScopedFilters } from '../filters/to-filter-search.ts'
import { errorFilterSearch } from '../pivots/to-pivot-filter.ts'

const ROW_ESTIMATE = 58
/** "Select all matching" loads at most this many rows: bulk actions send them 100 ids a request. */
const MAX_SELECT_ALL = 2000
/** Start loading the next page this many rows before the end, so scrolling rarely waits. */
const PREFETCH_ROWS = 15

type ErrorPageSearch = { f: string[] | undefined }

// Columns from md up; the sparkline and first seen only from lg, where the class and message
// still keep a readable width beside them. Below md, one meta line under the message.
const columns =
  'md:grid md:grid-cols-[minmax(0,1fr)_5rem_5rem_7rem] md:items-center md:gap-4 lg:grid-cols-[minmax(0,1fr)_5.5rem_5rem_5rem_7rem_7rem]'

function ErrorRow({
  error,
  projectId,
  errorSearch,
  index,
  selected,
  onToggle,
  assignee,
  sparkline,
}: {
  error: ErrorGroup
  projectId: string
  /** The error page's search: the list's event filters. */
  errorSearch: ErrorPageSearch
  index: number
  selected: boolean
  onToggle: () => void
  assignee: string | null
  sparkline: React.ReactNode
}) {
  // Many rows can share a class ("Error"): the message tells their checkbox and link apart.
  const messageId = `error-message-${error.id}`
  return (
    <div className="relative flex items-start gap-3 px-4 py-2 hover:bg-surface-muted">
      {/* Above the row-wide link overlay so it can be clicked. */}
      <input
        type="checkbox"
        className="relative z-10 mt-1 size-4 shrink-0"
        aria-label={`Select ${errorClassLabel(error.error_class)}`}
        aria-describedby={messageId}
        checked={selected}
        onChange={onToggle}
      />
      <div className={`min-w-0 flex-1 ${columns}`}>
        <div className="min-w-0">
          {/* Class and message on one line (the class is what a row is read by; the message cut
              first), then one line of what tells errors apart: status, handled, where, who. */}
          <div className="flex min-w-0 items-baseline gap-2">
            <Link
              to="/projects/$projectId/errors/$errorId"
              params={{ projectId, errorId: error.id }}
              search={errorSearch}
              data-row-index={index}
              aria-describedby={messageId}
              className="max-w-full shrink-0 truncate rounded font-semibold text-foreground after:absolute after:inset-0 hover:underline focus-visible:-outline-offset-2"
            >
              {errorClassLabel(error.error_class)}
            </Link>
            <p id={messageId} className="min-w-0 flex-1 truncate text-sm text-foreground/90" title={error.message}>
              {error.message || <span className="text-muted-foreground italic">(no message)</span>}
            </p>
          </div>
          <div className="mt-0.5 flex min-w-0 flex-wrap items-center gap-x-2.5 gap-y-0.5 text-xs text-muted-foreground md:flex-nowrap">
            <ErrorStatusBadge error={error} className="shrink py-0" />
            <SeverityIndicator severity={error.severity} className="hidden shrink-0 md:inline-flex" />
            <HandledLabel unhandled={error.unhandled} />
            <ReleaseLabel error={error} />
            <AssigneeLabel name={assignee} />
            {error.context ? (
              <span className="min-w-0 truncate font-mono" title={error.context}>
                <span className="sr-only">context </span>
                {error.context}
              </span>
            ) : null}
          </div>
        </div>
        {/* Narrow screens: one meta line instead of columns. */}
        <p className="mt-0.5 flex flex-wrap gap-x-3 text-xs text-muted-foreground tabular-nums md:hidden">
          <SeverityIndicator severity={error.severity} />
          <span>
            {error.matching_events === undefined
              ? formatCountOf(error.events, 'event')
              : `${formatCount(error.matching_events)} matching of ${formatCountOf(error.events, 'event')}`}
          </span>
          <span>
            {formatCountOf(error.users, 'user')}
            {error.matching_events === undefined ? null : ' in all'}
          </span>
          <span>
            last <RelativeTime value={error.last_seen} />
          </span>
          <span>
            first <RelativeTime value={error.first_seen} />
          </span>
        </p>
        <div className="hidden justify-end lg:flex">{sparkline}</div>
        <EventsCount error={error} />
        <p className="hidden text-right text-sm tabular-nums md:block">
          {formatCount(error.users)}
          <span className="sr-only"> users</span>
          {/* Users are counted over the error's whole life, also under filters: say so where Events says "of N". */}
          {error.matching_events === undefined ? null : <span className="block text-xs text-muted-foreground"> all time</span>}
        </p>
        <p className="hidden text-right text-xs text-muted-foreground lg:block">
          <span className="sr-only">first seen </span>
          <RelativeTime value={error.first_seen} />
        </p>
        <p className="hidden text-right text-xs text-muted-foreground md:block">
          <span className="sr-only">last seen </span>
          <RelativeTime value={error.last_seen} />
        </p>
      </div>
    </div>
  )
}

/**
 * The events column: the all-time count, or under filters that select events (a time range,
 * an event field) the matching count with the all-time count beneath it.
 */
function EventsCount({ error }: { error: ErrorGroup }) {
  if (error.matching_events === undefined) {
    return (
      <p className="hidden text-right text-sm tabular-nums md:block">
        {formatCount(error.events)}
        <span className="sr-only"> events</span>
      </p>
    )
  }
  return (
    <p className="hidden text-right text-sm tabular-nums md:block">
      {formatCount(error.matching_events)}
      <span className="sr-only"> matching events </span>
      <span className="block text-xs text-muted-foreground">
        of {formatCount(error.events)}
        <span className="sr-only"> in all</span>
      </span>
    </p>
  )
}

/**
 * The row last focused in each list (project + sort + filters), kept for this tab (session
 * storage): Enter on a row then Back returns to that row, and j / k go on from it.
 */
const lastFocusedError = {
  key: (projectId: string, params: ErrorListParams) => `errata.focused-error:${JSON.stringify([projectId, params])}`,
  get: (key: string) => window.sessionStorage.getItem(key),
  set: (key: string, errorId: string) => window.sessionStorage.setItem(key, errorId),
}

const isInteractive = (element: Element | null) =>
  element instanceof HTMLElement && element.matches('a[href], button, input, select, textarea, summary')

/**
 * The errors of a project, virtualized against the window so tens of thousands of rows scroll
 * smoothly; pages load ahead of the scroll position by following the API's Link headers.
 * Rows can be selected for bulk actions; `j` / `k` move the focused row, Enter opens it, and the
 * triage keys act on the selection (or the focused row when nothing is selected).
 */
export function ErrorList({
  projectId,
  params,
  onSortChange,
}: {
  projectId: string
  params: ErrorListParams
  /** A column header was clicked: the sort (and direction) to show, into the URL. */
  onSortChange: (next: { sort: ErrorSort; direction: Direction }) => void
}) {
  const query = useSuspenseInfiniteQuery(errorsInfiniteQuery(projectId, params))
  const { hasNextPage, isFetchingNextPage, fetchNextPage, isFetchNextPageError } = query
  const errors = useMemo(() => query.data.pages.flatMap((page) => page.items), [query.data.pages])
  const total = query.data.pages[0]?.totalCount ?? errors.length
  // The server counts matching events when the filters select events (a time range, an event field).
  const scoped = errors[0]?.matching_events !== undefined
  const navigate = useNavigate()
  // An error opens with the list's time range and event filters (its trend and pivots apply them
  // to its events); the list's status, assignee and severity filters say nothing about its events.
  const errorSearch: ErrorPageSearch = { f: errorFilterSearch(eventScopedFilters(params.filters)) }

  const errorIds = useMemo(() => errors.map((error) => error.id), [errors])
  const sparklines = useErrorSparklines(projectId, errorIds, params.filters)
  const { byId: collaboratorsById } = useAssignableCollaborators(projectId)

  // Selection is view state, not part of the URL: a shared link should not carry it.
  const [selection, setSelection] = useState<ReadonlySet<string>>(() => new Set())
  const [focusedIndex, setFocusedIndexState] = useState<number | null>(null)
  // Read by j/k: held keys repeat faster than React re-renders and than focus moves.
  const focusedRef = useRef<number | null>(null)
  const setFocusedIndex = useCallback((index: number) => {
    focusedRef.current = index
    setFocusedIndexState(index)
  }, [])
  const [snoozeTargets, setSnoozeTargets] = useState<readonly string[] | null>(null)
  const [assignTarget, setAssignTarget] = useState<ErrorGroup | null>(null)
  const [bulkAssignOpen, setBulkAssignOpen] = useState(false)
  const [helpOpen, setHelpOpen] = useState(false)

  const selectedIds = useMemo(() => errorIds.filter((id) => selection.has(id)), [errorIds, selection])
  const [selectingAll, setSelectingAll] = useState(false)
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
  const allSelected = errorIds.length > 0 && selectedIds.length === errorIds.length
  const focused = focusedIndex !== null ? errors[focusedIndex] : undefined

  const triage = useTriageOperations(projectId)

  const toggle = useCallback((id: string) => {
    setSelection((current) => {
      const next = new Set(current)
      if (next.has(id)) next.delete(id)
      else next.add(id)
      return next
    })
  }, [])

  const runOn = (ids: readonly string[], operation: ErrorOperation, fromSelection: boolean) => {
    if (ids.length === 0) return
    // A bulk action clears the selection, and with it the toolbar (or the menu or dialog that
    // started it) where the focus may be: send the focus back to the rows first.
    if (fromSelection) returnToRows(ids)
    // Failed errors stay selected so they can be retried.
    triage.run(ids, operation, fromSelection ? { asSelection: true, onDone: ({ failedIds }) => setSelection(new Set(failedIds)) } : {})
  }

  /** What the triage keys act on: the selection, else the focused row. */
  const targets = (): { ids: string[]; fromSelection: boolean } =>
    selectedIds.length > 0
      ? { ids: selectedIds, fromSelection: true }
      : { ids: focused ? [focused.id] : [], fromSelection: false }

  const listRef = useRef<HTMLDivElement | null>(null)
  const [scrollMargin, setScrollMargin] = useState(0)
  const measureList = useCallback((element: HTMLDivElement | null) => {
    listRef.current = element
    if (element) setScrollMargin(element.getBoundingClientRect().top + window.scrollY)
  }, [])
  const selectAllRef = useCallback(
    (element: HTMLInputElement | null) => {
      if (element) element.indeterminate = selectedIds.length > 0 && !allSelected
    },
    [selectedIds.length, allSelected],
  )

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

  const thisList = lastFocusedError.key(projectId, params)
  const focusedId = focused?.id
  useEffect(() => {
    if (focusedId) lastFocusedError.set(thisList, focusedId)
  }, [thisList, focusedId])
  // Back from an error: the row it was opened from is focused again (the router restores the scroll).
  const restoredList = useRef<string | null>(null)
  useEffect(() => {
    if (restoredList.current === thisList) return
    restoredList.current = thisList
    const id = lastFocusedError.get(thisList)
    const index = id === null ? -1 : errors.findIndex((error) => error.id === id)
    if (index === -1) return
    // Focusing the row makes it the focused index too (the row's onFocus).
    requestAnimationFrame(() => rowLink(index)?.focus({ preventScroll: true }))
  }, [thisList, errors])

  const move = (step: 1 | -1) => {
    if (errors.length === 0) return
    const current = focusedRef.current ?? -1
    focusRow(step === 1 ? Math.min(current + 1, errors.length - 1) : Math.max(current - 1, 0))
  }

  // New errors on the server: at the top of the list, with nothing selected and no row focused,
  // they simply show; otherwise a notice offers them, so a selection or a scroll position is never
  // pulled away. Either way only the first page is read again, not every page loaded.
  const queryClient = useQueryClient()
  const updates = useListUpdates(projectId, params, query.data.pages[0])
  const quiet = selection.size === 0 && !selectingAll && !query.isFetching
  useEffect(() => {
    if (!updates.changed || !quiet) return
    const atTop = window.scrollY === 0 || window.scrollY < scrollMargin
    if (!atTop || listRef.current?.contains(document.activeElement)) return
    void refreshErrorsList(queryClient, projectId, params)
  }, [updates.changed, quiet, scrollMargin, queryClient, projectId, params])
  const showNewErrors = () => {
    // The first row keeps the focus as the new errors come in above the old ones.
    focusRow(0)
    void refreshErrorsList(queryClient, projectId, params)
  }

  useShortcuts({
    j: () => move(1),
    k: () => move(-1),
    Enter: (event) => {
      // Links, buttons and checkboxes handle Enter themselves.
      if (!focused || isInteractive(document.activeElement)) return
      event.preventDefault()
      void navigate({ to: '/projects/$projectId/errors/$errorId', params: { projectId, errorId: focused.id }, search: errorSearch })
    },
    x: () => {
      if (focused) toggle(focused.id)
    },
    f: () => {
      const { ids, fromSelection } = targets()
      runOn(ids, { operation: 'fix' }, fromSelection)
    },
    i: () => {
      const { ids, fromSelection } = targets()
      runOn(ids, { operation: 'ignore' }, fromSelection)
    },
    s: () => {
      const { ids } = targets()
      if (ids.length > 0) setSnoozeTargets(ids)
    },
    a: () => {
      if (selectedIds.length > 0) setBulkAssignOpen(true)
      else if (focused) setAssignTarget(focused)
    },
    '/': () => focusFilterInput(),
    '?': () => setHelpOpen(true),
  })

  return (
    // overflow-clip, not hidden: a hidden overflow would make this box the sticky bar's scroller.
    <div className="overflow-clip rounded-lg border border-border bg-surface">
      {/* The toolbar and the column headers stick together below the app header (3rem and its
          border), so the bulk actions stay in reach and the numbers keep their labels far down the
          list, however many lines the toolbar wraps to. */}
      <div className="sticky top-[calc(3rem+1px)] z-[15] bg-surface">
        <div className="flex min-h-10 flex-wrap items-center gap-x-3 gap-y-1 border-b border-border bg-surface px-4 py-1">
          <input
            ref={selectAllRef}
            type="checkbox"
            className="size-4 shrink-0"
            aria-label="Select all loaded errors"
            checked={allSelected}
            onChange={() => setSelection(allSelected ? new Set() : new Set(errorIds))}
          />
          {selectedIds.length > 0 ? (
            <>
              <BulkToolbar
                projectId={projectId}
                count={selectedIds.length}
                pending={triage.bulkPending}
                onRun={(operation) => runOn(selectedIds, operation, true)}
                onSnooze={() => setSnoozeTargets(selectedIds)}
                assignOpen={bulkAssignOpen}
                onAssignOpenChange={setBulkAssignOpen}
                onClear={() => setSelection(new Set())}
              />
              {allSelected && hasNextPage && errors.length < MAX_SELECT_ALL ? (
                <Button size="sm" variant="ghost" disabled={selectingAll} onClick={() => void selectAllMatching()}>
                  {selectingAll
                    ? `Loading ${formatCount(errors.length)} of ${formatCount(Math.min(total, MAX_SELECT_ALL))}…`
                    : total > MAX_SELECT_ALL
                      ? `Select the first ${formatCount(MAX_SELECT_ALL)} of ${formatCount(total)}`
                      : `Select all ${formatCount(total)} matching`}
                </Button>
              ) : null}
            </>
          ) : (
            // The status tabs live in the list's bar: they stay in reach (sticky) and take no row of their own.
            <StatusTabs projectId={projectId} filters={params.filters} className="min-w-0 flex-1" />
          )}
          <span role="status" className="ml-auto flex items-center gap-1.5 text-xs text-muted-foreground">
            {updates.newErrors > 0 ? (
              <>
                <span className="font-medium text-foreground tabular-nums">{formatCountOf(updates.newErrors, 'new error')}</span>
                <span aria-hidden="true">·</span>
                <Button size="sm" variant="link" className="h-auto px-0" aria-label={`Show ${formatCountOf(updates.newErrors, 'new error')}`} onClick={showNewErrors}>
                  Show
                </Button>
              </>
            ) : null}
          </span>
          <span className="max-sm:hidden">
            <ShortcutsHelpButton onClick={() => setHelpOpen(true)} />
          </span>
        </div>
        <div className="hidden border-b border-border bg-surface-muted py-0.5 pr-4 pl-11 text-xs font-medium text-muted-foreground md:block">
          <div className={columns}>
            <span />
            <span className="hidden text-right lg:block" aria-hidden="true">{sparklines.label.replace(/^Events per /, 'Per ')}</span>
            <SortHeader sort="events" params={params} onSortChange={onSortChange} title={scoped ? 'Events matching the filters, of all the error’s events' : undefined}>
              {scoped ? 'Matching' : 'Events'}
            </SortHeader>
            <SortHeader sort="users" params={params} onSortChange={onSortChange} title={scoped ? 'Users affected over the error’s whole life, not only by the matching events' : undefined}>
              Users
            </SortHeader>
            <SortHeader sort="first_seen" params={params} onSortChange={onSortChange} className="hidden lg:flex">
              First seen
            </SortHeader>
            <SortHeader sort="last_seen" params={params} onSortChange={onSortChange}>
              Last seen
            </SortHeader>
          </div>
        </div>
      </div>
      <p className="sr-only" aria-live="polite">
        {formatCountOf(total, 'error')}. Press j and k to move between them, Enter to open one, question mark for all
        shortcuts.
      </p>
      <div ref={measureList} role="list" aria-label="Errors" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {items.map((item) => {
          const error = errors[item.index]
          return (
            <div
              key={item.key}
              role="listitem"
              aria-setsize={total}
              aria-posinset={item.index + 1}
              aria-current={error && item.index === focusedIndex ? 'true' : undefined}
              data-index={item.index}
              ref={virtualizer.measureElement}
              onFocus={(event) => {
                if (!error) return
                setFocusedIndex(item.index)
                // Measured once the focus move has scrolled the row into view.
                const row = event.currentTarget
                requestAnimationFrame(() => {
                  if (row.isConnected) rowAnchor.current = { index: item.index, top: row.getBoundingClientRect().top }
                })
              }}
              className={cn(
                // The scroll margin (with the page's scroll padding for the app header) keeps a row
                // scrolled into view clear of the sticky toolbar, and from sm of the column headers under it.
                'absolute top-0 left-0 w-full scroll-mt-14 scroll-mb-2 sm:scroll-mt-20 border-b border-l-2 border-b-border border-l-transparent',
                error && selection.has(error.id) && 'bg-accent-soft/40',
                error && item.index === focusedIndex && 'border-l-accent bg-surface-muted/60',
              )}
              style={{ transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` }}
            >
              {error ? (
                <ErrorRow
                  error={error}
                  projectId={projectId}
                  errorSearch={errorSearch}
                  index={item.index}
                  selected={selection.has(error.id)}
                  onToggle={() => toggle(error.id)}
                  assignee={assigneeName(error.assigned_collaborator_id, collaboratorsById)}
                  sparkline={<Sparkline buckets={sparklines.bucketsOf(error.id)} label={sparklines.label} />}
                />
              ) : isFetchNextPageError ? (
                <ErrorState
                  className="m-2"
                  title="Could not load more errors"
                  error={query.error}
                  onRetry={() => void fetchNextPage()}
                />
              ) : (
                <div role="status" className="flex flex-col gap-2 px-4 py-3">
                  <span className="sr-only">Loading more errors</span>
                  <Skeleton className="h-4 w-1/3" />
                  <Skeleton className="h-4 w-2/3" />
                </div>
              )}
            </div>
          )
        })}
      </div>

      <SnoozeDialog
        open={snoozeTargets !== null}
        title={snoozeTargets && snoozeTargets.length > 1 ? `Snooze ${snoozeTargets.length} errors` : 'Snooze error'}
        onClose={() => setSnoozeTargets(null)}
        onSnooze={(rules) => {
          const ids = snoozeTargets ?? []
          setSnoozeTargets(null)
          runOn(ids, { operation: 'snooze', reopen_rules: rules }, selectedIds.length > 0)
        }}
      />
      <AssignDialog
        projectId={projectId}
        open={assignTarget !== null}
        title={assignTarget ? `Assign ${errorClassLabel(assignTarget.error_class)}` : 'Assign'}
        assignedId={assignTarget?.assigned_collaborator_id ?? null}
        onClose={() => setAssignTarget(null)}
        onAssign={(id) => {
          if (assignTarget) runOn([assignTarget.id], { operation: 'assign', assigned_collaborator_id: id }, false)
        }}
      />
      <ShortcutsHelp open={helpOpen} onClose={() => setHelpOpen(false)} />
    </div>
  )
}
