import { useSuspenseInfiniteQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useWindowVirtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type { ErrorGroup } from '../../../contract/errors.ts'
import { errorsInfiniteQuery, type ErrorListParams } from '../../api/errors.ts'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { formatCount, formatCountOf } from '../../lib/relative-time.ts'
import { SeverityIndicator, StatusBadge } from './error-badges.tsx'

const ROW_ESTIMATE = 76
/** Start loading the next page this many rows before the end, so scrolling rarely waits. */
const PREFETCH_ROWS = 15

const columns = 'sm:grid sm:grid-cols-[minmax(0,1fr)_5rem_5rem_7rem_7rem] sm:items-center sm:gap-4'

function ErrorRow({ error, projectId, index }: { error: ErrorGroup; projectId: string; index: number }) {
  return (
    <div className={`relative px-4 py-3 hover:bg-surface-muted ${columns}`}>
      <div className="min-w-0">
        <div className="flex min-w-0 items-center gap-2">
          <Link
            to="/projects/$projectId/errors/$errorId"
            params={{ projectId, errorId: error.id }}
            data-row-index={index}
            className="min-w-0 truncate rounded font-semibold text-foreground after:absolute after:inset-0 hover:underline focus-visible:-outline-offset-2"
          >
            {error.error_class}
          </Link>
          <StatusBadge status={error.status} />
          <SeverityIndicator severity={error.severity} className="hidden sm:inline-flex" />
        </div>
        <p className="truncate text-sm text-foreground/90" title={error.message}>
          {error.message || <span className="text-muted-foreground italic">(no message)</span>}
        </p>
        {error.context ? (
          <p className="truncate font-mono text-xs text-muted-foreground" title={error.context}>
            {error.context}
          </p>
        ) : null}
      </div>
      {/* Narrow screens: one meta line instead of columns. */}
      <p className="mt-1 flex flex-wrap gap-x-3 text-xs text-muted-foreground tabular-nums sm:hidden">
        <SeverityIndicator severity={error.severity} />
        <span>{formatCountOf(error.events, 'event')}</span>
        <span>{formatCountOf(error.users, 'user')}</span>
        <span>
          last <RelativeTime value={error.last_seen} />
        </span>
        <span>
          first <RelativeTime value={error.first_seen} />
        </span>
      </p>
      <p className="hidden text-right text-sm tabular-nums sm:block">
        {formatCount(error.events)}
        <span className="sr-only"> events</span>
      </p>
      <p className="hidden text-right text-sm tabular-nums sm:block">
        {formatCount(error.users)}
        <span className="sr-only"> users</span>
      </p>
      <p className="hidden text-right text-xs text-muted-foreground sm:block">
        <span className="sr-only">first seen </span>
        <RelativeTime value={error.first_seen} />
      </p>
      <p className="hidden text-right text-xs text-muted-foreground sm:block">
        <span className="sr-only">last seen </span>
        <RelativeTime value={error.last_seen} />
      </p>
    </div>
  )
}

function isTyping(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))
  )
}

/**
 * The errors of a project, virtualized against the window so tens of thousands of rows scroll
 * smoothly; pages load ahead of the scroll position by following the API's Link headers.
 * `j` / `k` move between rows, Enter opens one.
 */
export function ErrorList({ projectId, params }: { projectId: string; params: ErrorListParams }) {
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

  useEffect(() => {
    const focusRow = (index: number) => {
      virtualizer.scrollToIndex(index, { align: 'auto' })
      // The row may only exist after the virtualizer re-renders.
      requestAnimationFrame(() =>
        listRef.current?.querySelector<HTMLElement>(`[data-row-index="${index}"]`)?.focus(),
      )
    }
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || isTyping(event.target)) return
      if (event.key !== 'j' && event.key !== 'k') return
      const active = document.activeElement
      const current = active instanceof HTMLElement && active.dataset.rowIndex ? Number(active.dataset.rowIndex) : -1
      const next = event.key === 'j' ? Math.min(current + 1, errors.length - 1) : Math.max(current - 1, 0)
      if (errors.length === 0) return
      event.preventDefault()
      focusRow(next)
    }
    document.addEventListener('keydown', onKeyDown)
    return () => document.removeEventListener('keydown', onKeyDown)
  }, [virtualizer, errors.length])

  return (
    <div className="overflow-hidden rounded-lg border border-border bg-surface">
      <div
        aria-hidden="true"
        className={`hidden border-b border-border bg-surface-muted px-4 py-2 text-xs font-medium text-muted-foreground ${columns}`}
      >
        <span>
          Error <span className="font-normal tabular-nums">({formatCount(total)})</span>
        </span>
        <span className="text-right">Events</span>
        <span className="text-right">Users</span>
        <span className="text-right">First seen</span>
        <span className="text-right">Last seen</span>
      </div>
      <p className="sr-only" aria-live="polite">
        {formatCountOf(total, 'error')}. Press j and k to move between them, Enter to open one.
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
              data-index={item.index}
              ref={virtualizer.measureElement}
              className="absolute top-0 left-0 w-full border-b border-border"
              style={{ transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` }}
            >
              {error ? (
                <ErrorRow error={error} projectId={projectId} index={item.index} />
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
    </div>
  )
}

export function ErrorListSkeleton() {
  return (
    <div role="status" className="overflow-hidden rounded-lg border border-border bg-surface">
      <span className="sr-only">Loading errors</span>
      {Array.from({ length: 8 }, (_, index) => (
        <div key={index} className="flex flex-col gap-2 border-b border-border px-4 py-3">
          <Skeleton className="h-4 w-1/4" />
          <Skeleton className="h-4 w-3/4" />
        </div>
      ))}
    </div>
  )
}
