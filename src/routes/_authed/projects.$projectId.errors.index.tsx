import { createFileRoute } from '@tanstack/react-router'
import { z } from 'zod'
import { directionSchema } from '../../../contract/common.ts'
import { errorSortSchema } from '../../../contract/errors.ts'
import { errorsInfiniteQuery } from '../../api/errors.ts'
import { projectQuery } from '../../api/projects.ts'
import { Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorListSkeleton } from '../../features/errors/error-list.tsx'
import { ProjectErrors } from '../../features/errors/project-errors.tsx'
import { orNotFound, ResourceNotFound, RouteError } from '../../features/layout/route-states.tsx'

const searchSchema = z.object({
  sort: errorSortSchema.default('last_seen').catch('last_seen'),
  direction: directionSchema.default('desc').catch('desc'),
})

export const Route = createFileRoute('/_authed/projects/$projectId/errors/')({
  validateSearch: searchSchema,
  loaderDeps: ({ search: { sort, direction } }) => ({ sort, direction }),
  loader: ({ context: { queryClient }, params: { projectId }, deps }) =>
    orNotFound(
      Promise.all([
        queryClient.ensureQueryData({ ...projectQuery(projectId), revalidateIfStale: true }),
        queryClient.ensureInfiniteQueryData(errorsInfiniteQuery(projectId, deps)),
      ]),
    ),
  pendingComponent: () => (
    <div className="flex flex-col gap-4">
      <Skeleton className="h-7 w-1/3" />
      <ErrorListSkeleton />
    </div>
  ),
  errorComponent: (props) => <RouteError {...props} title="Could not load this project’s errors" />,
  notFoundComponent: ProjectNotFound,
  component: ErrorsPage,
})

function ErrorsPage() {
  const { projectId } = Route.useParams()
  const search = Route.useSearch()
  const navigate = Route.useNavigate()
  return (
    <ProjectErrors
      projectId={projectId}
      params={search}
      onParamsChange={(next) => void navigate({ search: next })}
    />
  )
}

function ProjectNotFound() {
  const { projectId } = Route.useParams()
  return (
    <ResourceNotFound title="Project not found">
      No project with id <code className="font-mono break-all">{projectId}</code> exists, or you
      cannot see it.
    </ResourceNotFound>
  )
}
