import { useSuspenseQuery } from '@tanstack/react-query'
import { createFileRoute } from '@tanstack/react-router'
import { z } from 'zod/mini'
import { currentUserQuery } from '../../api/auth.ts'
import { collaboratorsQuery } from '../../api/collaborators.ts'
import { projectQuery } from '../../api/projects.ts'
import { useIsOrganizationAdmin } from '../../features/collaborators/use-is-admin.ts'
import { filterSearchSchema, fromErrorFilterSearch, toFilterSearch } from '../../features/filters/to-filter-search.ts'
import { orNotFound, PageSkeleton, ProjectNotFound, RouteError } from '../../features/layout/route-states.tsx'
import { PrivacyPage } from '../../features/privacy/privacy-page.tsx'
import { ProjectNav } from '../../features/projects/project-nav.tsx'

export const Route = createFileRoute('/_authed/projects/$projectId/privacy')({
  validateSearch: z.object({ f: filterSearchSchema }),
  loader: async ({ context: { queryClient }, params: { projectId } }) => {
    const project = await orNotFound(queryClient.ensureQueryData(projectQuery(projectId)))
    await Promise.all([
      queryClient.ensureQueryData(collaboratorsQuery(project.organization_id)),
      queryClient.ensureQueryData(currentUserQuery()),
    ])
  },
  pendingComponent: () => <PageSkeleton label="Loading privacy requests" />,
  errorComponent: (props) => <RouteError {...props} title="Could not load the privacy requests" />,
  notFoundComponent: NotFound,
  component: ProjectPrivacyRoute,
})

function ProjectPrivacyRoute() {
  const { projectId } = Route.useParams()
  const { f } = Route.useSearch()
  const navigate = Route.useNavigate()
  const { data: project } = useSuspenseQuery(projectQuery(projectId))
  return (
    <PrivacyPage
      nav={<ProjectNav projectId={projectId} spacing="none" />}
      scope={{ kind: 'project', projectId }}
      scopeName={project.name}
      projectNames={new Map([[project.id, project.name]])}
      isAdmin={useIsOrganizationAdmin(project.organization_id)}
      filters={fromErrorFilterSearch(f)}
      onFiltersChange={(next) => void navigate({ search: { f: toFilterSearch(next) }, replace: true })}
    />
  )
}

function NotFound() {
  return <ProjectNotFound projectId={Route.useParams().projectId} />
}
