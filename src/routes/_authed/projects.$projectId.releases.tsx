import { createFileRoute } from '@tanstack/react-router'
import { z } from 'zod/mini'
import { projectQuery } from '../../api/projects.ts'
import { releasesInfiniteQuery } from '../../api/releases.ts'
import { orNotFound, PageSkeleton, ProjectNotFound, RouteError } from '../../features/layout/route-states.tsx'
import { ProjectReleases } from '../../features/releases/project-releases.tsx'

// `stage` narrows the list to one release stage; none lists every stage.
export const Route = createFileRoute('/_authed/projects/$projectId/releases')({
  validateSearch: z.object({ stage: z.catch(z.optional(z.string().check(z.minLength(1), z.maxLength(1024))), undefined) }),
  loaderDeps: ({ search: { stage } }) => ({ stage }),
  loader: ({ context: { queryClient }, params: { projectId }, deps }) =>
    orNotFound(
      Promise.all([
        queryClient.ensureQueryData(projectQuery(projectId)),
        queryClient.ensureInfiniteQueryData(releasesInfiniteQuery(projectId, deps.stage)),
      ]),
    ),
  pendingComponent: () => <PageSkeleton label="Loading releases" rows={4} />,
  errorComponent: (props) => <RouteError {...props} title="Could not load this project’s releases" />,
  notFoundComponent: ReleasesNotFound,
  component: ReleasesPage,
})

function ReleasesPage() {
  const { projectId } = Route.useParams()
  const { stage } = Route.useSearch()
  const navigate = Route.useNavigate()
  return <ProjectReleases projectId={projectId} stage={stage} onStageChange={(next) => void navigate({ search: { stage: next } })} />
}

function ReleasesNotFound() {
  return <ProjectNotFound projectId={Route.useParams().projectId} />
}
