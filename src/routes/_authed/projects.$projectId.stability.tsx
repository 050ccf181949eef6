import { createFileRoute } from '@tanstack/react-router'
import { z } from 'zod/mini'
import { projectQuery } from '../../api/projects.ts'
import { stabilityQuery } from '../../api/stability.ts'
import { filterSearchSchema, toFilterSearch } from '../../features/filters/to-filter-search.ts'
import { orNotFound, PageSkeleton, ProjectNotFound, RouteError } from '../../features/layout/route-states.tsx'
import { ProjectStability } from '../../features/stability/project-stability.tsx'
import { stabilityViewFilters, toStabilityFilters } from '../../features/stability/to-stability-view.ts'

// The period is `f=event.since:eq:7d` as on the errors page; no `f` is all time, as there.
export const Route = createFileRoute('/_authed/projects/$projectId/stability')({
  validateSearch: z.object({ f: filterSearchSchema }),
  loaderDeps: ({ search: { f } }) => ({ filters: stabilityViewFilters(f) }),
  loader: ({ context: { queryClient }, params: { projectId }, deps }) =>
    orNotFound(
      Promise.all([
        queryClient.ensureQueryData(projectQuery(projectId)),
        queryClient.ensureQueryData(stabilityQuery(projectId, toStabilityFilters(deps.filters))),
      ]),
    ),
  pendingComponent: () => <PageSkeleton label="Loading stability" rows={3} />,
  errorComponent: (props) => <RouteError {...props} title="Could not load this project’s stability" />,
  notFoundComponent: StabilityNotFound,
  component: StabilityPage,
})

function StabilityPage() {
  const { projectId } = Route.useParams()
  const { f } = Route.useSearch()
  const navigate = Route.useNavigate()
  return (
    <ProjectStability
      projectId={projectId}
      filters={stabilityViewFilters(f)}
      onFiltersChange={(next) => {
        const entries = toFilterSearch(next)
        void navigate({ search: { f: entries.length > 0 ? entries : undefined } })
      }}
    />
  )
}

function StabilityNotFound() {
  return <ProjectNotFound projectId={Route.useParams().projectId} />
}
