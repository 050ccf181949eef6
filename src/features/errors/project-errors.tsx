import {
  useInfiniteQuery,
  useQueryClient,
  useQueryErrorResetBoundary,
  useSuspenseInfiniteQuery,
  useSuspenseQuery,
} from '@tanstack/react-query'
import { CatchBoundary } from '@tanstack/react-router'
import { ChartColumn } from 'lucide-react'
import { Suspense, useEffect, useId, useRef } from 'react'
import type { Direction } from '../../../contract/common.ts'
import type { ErrorSort } from '../../../contract/errors.ts'
import type { Filters } from '../../../contract/filters.ts'
import type { Project } from '../../../contract/projects.ts'
import { errorsInfiniteQuery, type ErrorListParams } from '../../api/errors.ts'
import { projectQuery, refreshProject } from '../../api/projects.ts'
import { Button } from '../../components/ui/button.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { EmptyState, ErrorState } from '../../components/ui/states.tsx'
import { lazyComponent } from '../../lib/lazy-component.tsx'
import { formatCount, formatCountOf } from '../../lib/relative-time.ts'
import { FilterBar } from '../filters/filter-bar.tsx'
import { DEFAULT_FILTERS, isDefaultFilters, toFilterSearch, withTimeRange } from '../filters/to-filter-search.ts'
import { DroppedEventsNotice } from '../projects/dropped-events-notice.tsx'
import { ProjectNav } from '../projects/project-nav.tsx'
import { ProjectTrendChart } from '../trends/project-trend-chart.tsx'
import type { ResolutionChoice, TrendScale } from '../trends/to-trend-series.ts'
import { ErrorList } from './error-list.tsx'
import { ErrorListSkeleton } from './error-list-skeleton.tsx'
import { ErrorSortControls } from './error-sort-controls.tsx'
import { rememberErrorsList, toErrorsListSearch } from './errors-list-return.ts'
import { StatusTabs } from './status-tabs.tsx'
import { useTrendCollapsed } from './use-trend-collapsed.ts'

// The setup help shows only while a project has no errors at all: its code (every notifier's
// instructions) is a chunk of its own, not part of every errors list's first load.
const setupHelp = lazyComponent(() => import('./send-first-error.tsx').then((module) => module.SendFirstError))

function SendFirstError(props: { project: Project; origin: string }) {
  return (
    <setupHelp.Component
      {...props}
      fallback={
        <LoadingRegion label="Loading the setup help">
          <Skeleton rounded="lg" className="h-80 w-full" />
        </LoadingRegion>
      }
    />
  )
}

/** The trend's bars on the errors page, when shown: short, so the list stays high. */
const TREND_HEIGHT = 64

/** What the page writes to the URL. */
export interface ErrorsSearchChange {
  sort?: ErrorSort
  direction?: Direction
  /** Filters in the URL form (`field:type:value`). */
  f?: string[]
  resolution?: ResolutionChoice
  scale?: TrendScale
}

const hasErrors = (pages: { items: unknown[]; nextUrl: string | null }[]) =>
  pages[0] !== undefined && (pages[0].items.length > 0 || pages[0].nextUrl !== null)

/** Nothing matches the filters: an empty project gets the setup help, otherwise a way out of the filters. */
function NoMatchingErrors({
  projectId,
  params,
  onFiltersChange,
}: {
  projectId: string
  params: ErrorListParams
  onFiltersChange: (next: Filters) => void
}) {
  const { data: project } = useSuspenseQuery(projectQuery(projectId))
  const { data: unfiltered } = useSuspenseInfiniteQuery(errorsInfiniteQuery(projectId, { ...params, filters: {} }))
  if (!hasErrors(unfiltered.pages)) return <SendFirstError project={project} origin={window.location.origin} />
  return (
    <div className="flex flex-col gap-2">
      <StatusTabs projectId={projectId} filters={params.filters} />
      <EmptyState title="No errors match these filters">
        <p>Widen the time range, remove a filter, or start over.</p>
        <div className="mt-3 flex justify-center gap-2">
          <Button size="sm" onClick={() => onFiltersChange({})}>
            Show all errors
          </Button>
          <Button size="sm" variant="ghost" onClick={() => onFiltersChange(DEFAULT_FILTERS)}>
            Reset to open errors
          </Button>
        </div>
      </EmptyState>
    </div>
  )
}

/**
 * The list's place on the page: the list, or what to say when nothing matches. When the list
 * cannot be loaded (the server is unreachable after a sort or filter change), the failure shows
 * here with a Retry, under the page's own controls, rather than instead of the whole page.
 */
function ErrorsListArea({
  projectId,
  params,
  onFiltersChange,
  onSortChange,
  isEmpty,
  loadedAt,
}: {
  projectId: string
  params: ErrorListParams
  onFiltersChange: (next: Filters) => void
  onSortChange: (next: { sort: ErrorSort; direction: Direction }) => void
  isEmpty: boolean
  /** When the list's data last arrived: a list that loads after all (a refetch) replaces the failure. */
  loadedAt: number
}) {
  const queryErrorResetBoundary = useQueryErrorResetBoundary()
  return (
    <CatchBoundary
      getResetKey={() => JSON.stringify([projectId, params, loadedAt])}
      errorComponent={({ error, reset }) => (
        <ErrorState
          title="Could not load this project’s errors"
          error={error}
          onRetry={() => {
            // The list's queries fetch again when mounted instead of throwing the cached error.
            queryErrorResetBoundary.reset()
            reset()
          }}
        />
      )}
    >
      <Suspense fallback={<ErrorListSkeleton />}>
        {isEmpty ? (
          <NoMatchingErrors projectId={projectId} params={params} onFiltersChange={onFiltersChange} />
        ) : (
          <ErrorList projectId={projectId} params={params} onSortChange={onSortChange} />
        )}
      </Suspense>
    </CatchBoundary>
  )
}

/**
 * A project's errors page: the filter bar, the event trend and the list with sort controls, or
 * what to do when nothing has arrived yet. All of the view's state lives in the URL.
 */
export function ProjectErrors({
  projectId,
  params,
  resolution,
  scale,
  onSearchChange,
}: {
  projectId: string
  params: ErrorListParams
  resolution: ResolutionChoice
  /** The trend's count scale. */
  scale: TrendScale
  onSearchChange: (next: ErrorsSearchChange) => void
}) {
  const { data: project } = useSuspenseQuery(projectQuery(projectId))
  // Not a suspense query: a list the loader could not load must not take the page's controls
  // with it (ErrorsListArea shows the failure). The loader has already tried (with retries), so
  // this reader never fetches a list that failed with nothing loaded, on mount or when the sort
  // or filters change: Retry does that. Otherwise the failure shown would be fetching again
  // behind it and vanish on its own, under the user's Retry.
  const list = useInfiniteQuery({
    ...errorsInfiniteQuery(projectId, params),
    enabled: (query) => query.state.data !== undefined || query.state.status !== 'error',
  })
  const pages = list.data?.pages
  // Unknown (failed, or loading) is not empty: the sort controls stay.
  const isEmpty = pages !== undefined && !hasErrors(pages)
  const total = pages?.[0]?.totalCount ?? null
  const filtered = Object.keys(params.filters).length > 0
  const isDefaultView = isDefaultFilters(params.filters)

  // The header's open count comes with the project; when the list's total moves (the first error
  // arrived while the page polled, or a refetch found new ones), the project is read again.
  const queryClient = useQueryClient()
  const shownTotal = useRef(total)
  useEffect(() => {
    // No total (the list failed): nothing to compare, and the server may well be unreachable.
    if (total === null || shownTotal.current === total) return
    shownTotal.current = total
    void refreshProject(queryClient, projectId)
  }, [queryClient, projectId, total])
  const onFiltersChange = (next: Filters) => onSearchChange({ f: toFilterSearch(next) })
  const [trendCollapsed, setTrendCollapsed] = useTrendCollapsed()
  const trendId = useId()

  // The way back from an error opened here (its breadcrumb) leads to this list as it is shown.
  const listSearch = JSON.stringify(toErrorsListSearch(params))
  useEffect(() => rememberErrorsList(projectId, JSON.parse(listSearch)), [projectId, listSearch])

  // A project with no errors at all and the default view: only the setup help.
  if (isEmpty && !filtered) {
    return (
      <>
        <ProjectNav projectId={projectId} />
        <PageHeader title={`${project.name}: errors`} />
        <DroppedEventsNotice projectId={projectId} className="mb-4" />
        <SendFirstError project={project} origin={window.location.origin} />
      </>
    )
  }

  const count =
    total !== null ? (
      <span className="text-sm text-muted-foreground tabular-nums">
        {/* Under filters the list's count is not the project's: say which is which. The
            default view (status is open) counts the open errors: one number says it. */}
        {isDefaultView
          ? formatCountOf(total, 'open error')
          : filtered
            ? `${formatCount(total)} matching · ${formatCount(project.open_error_count)} open in project`
            : `${formatCountOf(total, 'error')} · ${formatCount(project.open_error_count)} open`}
      </span>
    ) : null

  // Compact on purpose: the title and its controls on one line, so the list (its status tabs in
  // its sticky bar) starts within the first 300 px of a laptop screen.
  return (
    <>
      <ProjectNav projectId={projectId} spacing="compact" />
      <PageHeader
        title={`${project.name}: errors`}
        spacing="compact"
        actions={
          <>
            {count}
            <Button
              size="toolbar"
              aria-expanded={!trendCollapsed}
              aria-controls={trendId}
              onClick={() => setTrendCollapsed(!trendCollapsed)}
            >
              <ChartColumn aria-hidden="true" />
              {trendCollapsed ? 'Show trend' : 'Hide trend'}
            </Button>
            {/* The column headers sort too (from md); the control also says the order in words. */}
            {isEmpty ? null : (
              <ErrorSortControls
                sort={params.sort}
                direction={params.direction}
                onChange={(next) => onSearchChange(next)}
              />
            )}
          </>
        }
      />
      <div className="flex flex-col gap-3">
        <DroppedEventsNotice projectId={projectId} />
        <FilterBar projectId={projectId} filters={params.filters} onChange={onFiltersChange} offerValuesPage />
        <div id={trendId} hidden={trendCollapsed}>
          {trendCollapsed ? null : (
            <ProjectTrendChart
              projectId={projectId}
              filters={params.filters}
              height={TREND_HEIGHT}
              resolution={resolution}
              onResolutionChange={(next) =>
                onSearchChange({
                  resolution: next === 'auto' ? undefined : next,
                })
              }
              onSelectRange={(range) => onFiltersChange(withTimeRange(params.filters, { kind: 'absolute', ...range }))}
              scale={scale}
              onScaleChange={(next) => onSearchChange({ scale: next === 'log' ? next : undefined })}
            />
          )}
        </div>
        <ErrorsListArea
          projectId={projectId}
          params={params}
          onFiltersChange={onFiltersChange}
          onSortChange={(next) => onSearchChange(next)}
          isEmpty={isEmpty}
          loadedAt={list.dataUpdatedAt}
        />
      </div>
    </>
  )
}
