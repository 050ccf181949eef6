import { createFileRoute, notFound } from '@tanstack/react-router'
import { z } from 'zod/mini'
import { directionSchema } from '../../../contract/common.ts'
import { errorSortSchema } from '../../../contract/errors.ts'
import { projectCollaboratorsQuery } from '../../api/collaborators.ts'
import { errorsInfiniteQuery } from '../../api/errors.ts'
import { isApiError } from '../../api/http.ts'
import { organizationQuery } from '../../api/organizations.ts'
import { projectQuery } from '../../api/projects.ts'
import { Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorListSkeleton } from '../../features/errors/error-list-skeleton.tsx'
import { ProjectErrors } from '../../features/errors/project-errors.tsx'
import { filterSearchSchema, fromFilterSearch } from '../../features/filters/to-filter-search.ts'
import { orNotFound, ProjectNotFound, RouteError } from '../../features/layout/route-states.tsx'
import { RESOLUTION_CHOICES, TREND_SCALES } from '../../features/trends/to-trend-series.ts'

// Filters are `f=field:type:value` entries (features/filters/to-filter-search.ts); no `f` is the default view.
const searchSchema = z.object({
  sort: z.catch(z._default(errorSortSchema, 'last_seen'), 'last_seen'),
  direction: z.catch(z._default(directionSchema, 'desc'), 'desc'),
  f: filterSearchSchema,
  resolution: z.catch(z.optional(z.enum(RESOLUTION_CHOICES)), undefined),
  scale: z.catch(z.optional(z.enum(TREND_SCALES)), undefined),
})

export const Route = createFileRoute('/_authed/projects/$projectId/errors/')({
  validateSearch: searchSchema,
  loaderDeps: ({ search: { sort, direction, f } }) => ({ sort, direction, filters: fromFilterSearch(f) }),
  loader: async ({ context: { queryClient }, params: { projectId }, deps, cause }) => {
    const list = queryClient.ensureInfiniteQueryData(errorsInfiniteQuery(projectId, deps))
    // The rows name their assignees: asked for beside the list (on a page load the page's own
    // request, src/first-paint/first-requests.ts, is taken here), not after the list has rendered.
    void queryClient.prefetchQuery(projectCollaboratorsQuery(projectId))
    // Handled below; not left unhandled when the project fails first.
    list.catch(() => undefined)
    // Without the project there is no page: its failure is the route's error (or not-found) page.
    const cachedProject = queryClient.getQueryData(projectQuery(projectId).queryKey) !== undefined
    const shown = await orNotFound(queryClient.ensureQueryData(projectQuery(projectId)))
    // The header's breadcrumbs name its organization: asked for with the page, not after it rendered.
    void queryClient.prefetchQuery(organizationQuery(shown.organization_id))
    const settled = (async () => {
      try {
        const first = (await list).pages[0]
        // Nothing matches: is the project empty altogether (show how to send a first error)?
        if (first && first.items.length === 0 && !first.nextUrl && Object.keys(deps.filters).length > 0) {
          await queryClient.ensureInfiniteQueryData(errorsInfiniteQuery(projectId, { ...deps, filters: {} }))
        }
      } catch (error) {
        if (isApiError(error, 404)) throw notFound()
        // The page keeps its controls and shows this failure in the list's place (ProjectErrors),
        // once: the project is not read again below, so no "Could not refresh data" toast repeats it.
        return
      }
      // The server answered: a project read earlier is read again for the header's open count
      // (refreshed on every visit), in the background like any refetch of data already on screen.
      if (cachedProject) void queryClient.prefetchQuery(projectQuery(projectId))
    })()
    // Entering the page (a page load, or from another page) shows it at once, the list's skeleton
    // in its place until the list arrives: waiting for a slow list left a blank window for up to
    // pendingMs. A sort or filter change ('stay') waits for the list instead, below.
    if (cause === 'enter') {
      settled.catch(() => undefined)
      return
    }
    await settled
  },
  // A filter or sort change keeps the current list on screen (with the progress bar) unless
  // the answer takes really long.
  pendingMs: 3_000,
  pendingComponent: () => (
    <div className="flex flex-col gap-4">
      <Skeleton className="h-7 w-1/3" />
      <ErrorListSkeleton />
    </div>
  ),
  errorComponent: (props) => <RouteError {...props} title="Could not load this project’s errors" />,
  notFoundComponent: NotFound,
  component: ErrorsPage,
})

function ErrorsPage() {
  const { projectId } = Route.useParams()
  const { sort, direction, f, resolution = 'auto', scale = 'linear' } = Route.useSearch()
  const navigate = Route.useNavigate()
  return (
    <ProjectErrors
      projectId={projectId}
      params={{ sort, direction, filters: fromFilterSearch(f) }}
      resolution={resolution}
      scale={scale}
      onSearchChange={(next) => void navigate({ search: (prev) => ({ ...prev, ...next }) })}
    />
  )
}

function NotFound() {
  return <ProjectNotFound projectId={Route.useParams().projectId} />
}
