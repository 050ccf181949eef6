import { useSuspenseQuery } from '@tanstack/react-query'
import { createFileRoute } from '@tanstack/react-router'
import { z } from 'zod'
import { errorQuery, latestEventQuery } from '../../api/errors.ts'
import { errorEventsQuery } from '../../api/events.ts'
import { ErrorEventsTable } from '../../features/errors/error-events-table.tsx'
import { ErrorSummary } from '../../features/errors/error-summary.tsx'
import { LatestEventPanel } from '../../features/errors/latest-event-panel.tsx'
import { orNotFound, PageSkeleton, ResourceNotFound, RouteError } from '../../features/layout/route-states.tsx'

export const Route = createFileRoute('/_authed/projects/$projectId/errors/$errorId/')({
  validateSearch: z.object({ cursor: z.string().optional().catch(undefined) }),
  loaderDeps: ({ search: { cursor } }) => ({ cursor }),
  loader: ({ context: { queryClient }, params: { projectId, errorId }, deps }) => {
    // The side panels load on their own; start them now so they arrive with the page.
    void queryClient.prefetchQuery(latestEventQuery(projectId, errorId))
    void queryClient.prefetchQuery(errorEventsQuery(projectId, errorId, deps.cursor))
    return orNotFound(queryClient.ensureQueryData(errorQuery(projectId, errorId)))
  },
  pendingComponent: () => <PageSkeleton label="Loading the error" />,
  errorComponent: (props) => <RouteError {...props} title="Could not load this error" />,
  notFoundComponent: ErrorNotFound,
  component: ErrorPage,
})

function ErrorPage() {
  const { projectId, errorId } = Route.useParams()
  const { cursor } = Route.useSearch()
  const { data: error } = useSuspenseQuery(errorQuery(projectId, errorId))
  return (
    <div className="flex flex-col gap-4">
      <ErrorSummary error={error} />
      <LatestEventPanel projectId={projectId} errorId={errorId} />
      <ErrorEventsTable projectId={projectId} errorId={errorId} cursor={cursor} />
    </div>
  )
}

function ErrorNotFound() {
  const { errorId } = Route.useParams()
  return (
    <ResourceNotFound title="Error not found">
      No error with id <code className="font-mono break-all">{errorId}</code> exists in this
      project, or you cannot see it.
    </ResourceNotFound>
  )
}
