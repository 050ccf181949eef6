import { useQueryClient } from '@tanstack/react-query'
import { useNavigate } from '@tanstack/react-router'
import { useCallback, useEffect, useMemo, useState } from 'react'
import type { Direction } from '../../../contract/common.ts'
import type { ErrorGroup, ErrorOperation, ErrorSort } from '../../../contract/errors.ts'
import { refreshErrorsList, type ErrorListParams } from '../../api/errors.ts'
import { Button } from '../../components/ui/button.tsx'
import { Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { cn } from '../../lib/cn.ts'
import { whenIdle } from '../../lib/lazy-component.tsx'
import { showToast } from '../../lib/toast.ts'
import { errorClassLabel } from '../../lib/error-class.ts'
import { formatCount, formatCountOf } from '../../lib/relative-time.ts'
import { eventScopedFilters } from '../filters/to-filter-search.ts'
import { errorFilterSearch } from '../pivots/to-pivot-filter.ts'
import { assigneeName, useAssignableCollaborators } from '../triage/assignee.tsx'
import { AssignDialog, BulkToolbar, MergeDialog, preloadTriageParts, ShortcutsHelp, SnoozeDialog } from '../triage/lazy-dialogs.tsx'
import { ShortcutsHelpButton } from '../triage/shortcuts-help-button.tsx'
import { useTriageOperations } from '../triage/use-triage-operations.ts'
import { Sparkline, useErrorSparklines } from '../trends/error-sparklines.tsx'
import { columns, ErrorRow, type ErrorPageSearch } from './error-row.tsx'
import { SortHeader } from './sort-header.tsx'
import { StatusTabs } from './status-tabs.tsx'
import { useErrorListRows } from './use-error-list-rows.ts'
import { MAX_SELECT_ALL, useErrorSelection } from './use-error-selection.ts'
import { useListShortcuts } from './use-list-shortcuts.ts'
import { useListUpdates } from './use-list-updates.ts'
import { useRowFocus } from './use-row-focus.ts'

/**
 * The errors of a project: rows virtualized against the window, pages loaded ahead of the scroll
 * position (use-error-list-rows.ts). Rows can be selected for bulk actions (use-error-selection.ts); `j` / `k` move the focused row
 * (use-row-focus.ts), Enter opens it, and the triage keys act on the selection, or the focused
 * row when nothing is selected (use-list-shortcuts.ts). This component is the view composing them.
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
  const { query, errors, total, virtualizer, items, listRef, measureList, scrollMargin } = useErrorListRows(projectId, params)
  const { hasNextPage, fetchNextPage, isFetchNextPageError } = query
  // The server counts matching events when the filters select events (a time range, an event field).
  const scoped = errors[0]?.matching_events !== undefined
  const navigate = useNavigate()
  // An error opens with the list's time range and event filters (its trend and pivots apply them
  // to its events); the list's status, assignee and severity filters say nothing about its events.
  const errorSearch: ErrorPageSearch = { f: errorFilterSearch(eventScopedFilters(params.filters)) }

  const errorIds = useMemo(() => errors.map((error) => error.id), [errors])
  const sparklines = useErrorSparklines(projectId, errorIds, params.filters)
  const { byId: collaboratorsById } = useAssignableCollaborators(projectId)
  const selection = useErrorSelection(errorIds, fetchNextPage)
  const triage = useTriageOperations(projectId)
  useEffect(() => whenIdle(() => preloadTriageParts({ bulk: true })), [])

  const { selectedIds, allSelected } = selection
  const selectAllRef = useCallback(
    (element: HTMLInputElement | null) => {
      if (element) element.indeterminate = selectedIds.length > 0 && !allSelected
    },
    [selectedIds.length, allSelected],
  )

  const focus = useRowFocus({ errors, virtualizer, listRef, listKey: JSON.stringify([projectId, params]) })
  const { focusedIndex } = focus

  const runOn = (ids: readonly string[], operation: ErrorOperation, fromSelection: boolean) => {
    if (ids.length === 0) return
    focus.willAct(ids)
    // A bulk action clears the selection, and with it the toolbar (or the menu or dialog that
    // started it) where the focus may be: send the focus back to the rows first.
    if (fromSelection) focus.returnToRows(ids)
    // Failed errors stay selected so they can be retried.
    triage.run(ids, operation, fromSelection ? { asSelection: true, onDone: ({ failedIds }) => selection.selectOnly(failedIds) } : {})
  }

  const dialogs = useListShortcuts({
    focused: focus.focused,
    selectedIds,
    move: focus.move,
    toggle: selection.toggle,
    open: (error) =>
      void navigate({ to: '/projects/$projectId/errors/$errorId', params: { projectId, errorId: error.id }, search: errorSearch }),
    runOn,
  })
  const { snoozeTargets, setSnoozeTargets, assignTarget, setAssignTarget, bulkAssignOpen, setBulkAssignOpen, helpOpen, setHelpOpen } = dialogs
  // The selected errors the merge dialog offers, in the list's order; null while it is closed.
  const [mergeTargets, setMergeTargets] = useState<ErrorGroup[] | null>(null)

  // New errors on the server: at the top of the list, with nothing selected and no row focused,
  // they simply show; otherwise a notice offers them, so a selection or a scroll position is never
  // pulled away. Either way only the first page is read again, not every page loaded.
  const queryClient = useQueryClient()
  const updates = useListUpdates(projectId, params, query.data.pages[0])
  const quiet = selection.selection.size === 0 && !selection.selectingAll && !query.isFetching
  useEffect(() => {
    if (!updates.changed || !quiet) return
    const atTop = window.scrollY === 0 || window.scrollY < scrollMargin
    if (!atTop || listRef.current?.contains(document.activeElement)) return
    void refreshErrorsList(queryClient, projectId, params)
  }, [updates.changed, quiet, scrollMargin, listRef, queryClient, projectId, params])
  const showNewErrors = () => {
    // The first row keeps the focus as the new errors come in above the old ones.
    focus.focusTopOnRefresh()
    void refreshErrorsList(queryClient, projectId, params)
  }

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
            onChange={selection.toggleAll}
          />
          {selectedIds.length > 0 ? (
            <>
              <BulkToolbar
                projectId={projectId}
                count={selectedIds.length}
                pending={triage.bulkPending}
                onRun={(operation) => runOn(selectedIds, operation, true)}
                onSnooze={() => setSnoozeTargets(selectedIds)}
                onMerge={() => setMergeTargets(errors.filter((error) => selection.isSelected(error.id)))}
                assignOpen={bulkAssignOpen}
                onAssignOpenChange={setBulkAssignOpen}
                onClear={selection.clear}
              />
              {allSelected && hasNextPage && errors.length < MAX_SELECT_ALL ? (
                <Button size="sm" variant="ghost" disabled={selection.selectingAll} onClick={() => void selection.selectAllMatching()}>
                  {selection.selectingAll
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
                <Button size="inline" variant="link" aria-label={`Show ${formatCountOf(updates.newErrors, 'new error')}`} onClick={showNewErrors}>
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
            <SortHeader sort="first_seen" params={params} onSortChange={onSortChange} fromLg>
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
                if (error) focus.onRowFocus(item.index, event.currentTarget)
              }}
              className={cn(
                // The scroll margin (with the page's scroll padding for the app header) keeps a row
                // scrolled into view clear of the sticky toolbar, and from sm of the column headers under it.
                'absolute top-0 left-0 w-full scroll-mt-14 scroll-mb-2 sm:scroll-mt-20 border-b border-l-2 border-b-border',
                error && item.index === focusedIndex
                  ? 'border-l-accent bg-surface-muted/60'
                  : ['border-l-transparent', error && selection.isSelected(error.id) && 'bg-accent-soft/40'],
              )}
              style={{ transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` }}
            >
              {error ? (
                <ErrorRow
                  error={error}
                  projectId={projectId}
                  errorSearch={errorSearch}
                  index={item.index}
                  selected={selection.isSelected(error.id)}
                  onToggle={() => selection.toggle(error.id)}
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
      <MergeDialog
        projectId={projectId}
        open={mergeTargets !== null}
        errors={mergeTargets ?? []}
        onClose={() => setMergeTargets(null)}
        onMerged={(into, mergedCount) => {
          setMergeTargets(null)
          focus.returnToRows([into.id])
          selection.clear()
          showToast({ title: `${formatCountOf(mergedCount, 'error')} merged into ${errorClassLabel(into.error_class)}` })
        }}
      />
      <ShortcutsHelp open={helpOpen} onClose={() => setHelpOpen(false)} />
    </div>
  )
}
