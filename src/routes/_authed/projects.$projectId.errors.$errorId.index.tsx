import { useSuspenseQuery } from '@tanstack/react-query'
import { createFileRoute } from '@tanstack/react-router'
import { useMemo } from 'react'
import { z } from 'zod/mini'
import { errorQuery, errorStatusChangesQuery, latestEventQuery } from '../../api/errors.ts'
import { errorEventsQuery } from '../../api/events.ts'
import { CommentThread } from '../../features/comments/comment-thread.tsx'
import { ErrorEventsTable } from '../../features/errors/error-events-table.tsx'
import { ErrorSummary } from '../../features/errors/error-summary.tsx'
import { LatestEventPanel } from '../../features/errors/latest-event-panel.tsx'
import { filterSearchSchema, fromErrorFilterSearch, toFilterSearch } from '../../features/filters/to-filter-search.ts'
import { orNotFound, PageSkeleton, ResourceNotFound, RouteError } from '../../features/layout/route-states.tsx'
import { ErrorPivotsPanel } from '../../features/pivots/error-pivots-panel.tsx'
import { ERROR_PIVOT_FIELDS } from '../../features/pivots/pivot-fields.ts'
import { ErrorActions } from '../../features/triage/error-actions.tsx'
import { MergedErrors, MergedIntoNotice } from '../../features/triage/merged-errors.tsx'
import { RemappedNotice } from '../../features/triage/remapped-notice.tsx'
import { StatusHistory } from '../../features/triage/status-history.tsx'
import { ErrorTrendChart } from '../../features/trends/error-trend-chart.tsx'
import { RESOLUTION_CHOICES, TREND_SCALES } from '../../features/trends/to-trend-series.ts'

export const Route = createFileRoute('/_authed/projects/$projectId/errors/$errorId/')({
  validateSearch: z.object({
    cursor: z.catch(z.optional(z.string()), undefined),
    /** The trend's time range and pivot filters (same `f` form as the list); none by default. */
    f: filterSearchSchema,
    /** The trend's resolution; auto by default. */
    resolution: z.catch(z.optional(z.enum(RESOLUTION_CHOICES)), undefined),
    /** The trend's count scale; linear by default. */
    scale: z.catch(z.optional(z.enum(TREND_SCALES)), undefined),
    /** The open pivot tab; the first by default. */
    pivot: z.catch(z.optional(z.enum(ERROR_PIVOT_FIELDS)), undefined),
  }),
  loaderDeps: ({ search: { cursor, f } }) => ({ cursor, filters: fromErrorFilterSearch(f) }),
  loader: ({ context: { queryClient }, params: { projectId, errorId }, deps }) => {
    // The side panels load on their own; start them now so they arrive with the page.
    void queryClient.prefetchQuery(latestEventQuery(projectId, errorId, deps.filters))
    void queryClient.prefetchQuery(errorEventsQuery(projectId, errorId, deps.cursor, deps.filters))
    void queryClient.prefetchQuery(errorStatusChangesQuery(projectId, errorId))
    return orNotFound(queryClient.ensureQueryData(errorQuery(projectId, errorId)))
  },
  pendingComponent: () => <PageSkeleton label="Loading the error" />,
  errorComponent: (props) => <RouteError {...props} title="Could not load this error" />,
  notFoundComponent: ErrorNotFound,
  component: ErrorPage,
})

function ErrorPage() {
  const { projectId, errorId } = Route.useParams()
  const { cursor, f, resolution, scale, pivot } = Route.useSearch()
  const navigate = Route.useNavigate()
  const { data: error } = useSuspenseQuery(errorQuery(projectId, errorId))
  // Unlike the list, the error page has no default status filter: its charts show all its events.
  const filters = useMemo(() => fromErrorFilterSearch(f), [f])
  return (
    <div className="flex flex-col gap-4">
      <ErrorSummary error={error} />
      <MergedIntoNotice projectId={projectId} error={error} />
      <RemappedNotice projectId={projectId} error={error} />
      <ErrorActions projectId={projectId} error={error} filters={filters} />
      <ErrorTrendChart
        projectId={projectId}
        errorId={errorId}
        filters={filters}
        onFiltersChange={(next) => {
          const entries = toFilterSearch(next)
          // Other filters, other events: their list starts again from the newest.
          void navigate({ search: (prev) => ({ ...prev, f: entries.length > 0 ? entries : undefined, cursor: undefined }), replace: true })
        }}
        resolution={resolution}
        onResolutionChange={(next) =>
          void navigate({ search: (prev) => ({ ...prev, resolution: next === 'auto' ? undefined : next }), replace: true })
        }
        scale={scale}
        onScaleChange={(next) => void navigate({ search: (prev) => ({ ...prev, scale: next === 'log' ? next : undefined }), replace: true })}
      />
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <div className="flex min-w-0 flex-col gap-4">
          <LatestEventPanel projectId={projectId} errorId={errorId} filters={filters} />
          <ErrorEventsTable projectId={projectId} errorId={errorId} cursor={cursor} filters={filters} />
        </div>
        <div className="flex min-w-0 flex-col gap-4">
          <ErrorPivotsPanel
            projectId={projectId}
            errorId={errorId}
            filters={filters}
            pivot={pivot}
            onPivotChange={(next) =>
              void navigate({ search: (prev) => ({ ...prev, pivot: next === ERROR_PIVOT_FIELDS[0] ? undefined : next }), replace: true })
            }
          />
          <MergedErrors projectId={projectId} error={error} />
          <StatusHistory projectId={projectId} errorId={errorId} />
          <CommentThread projectId={projectId} errorId={errorId} />
        </div>
      </div>
    </div>
  )
}

function ErrorNotFound() {
  const { projectId, errorId } = Route.useParams()
  return (
    <ResourceNotFound title="Error not found" projectId={projectId}>
      No error with id <code className="font-mono break-all">{errorId}</code> exists in this
      project, or you cannot see it.
    </ResourceNotFound>
  )
}
