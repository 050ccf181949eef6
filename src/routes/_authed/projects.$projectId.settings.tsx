import { createFileRoute } from '@tanstack/react-router'
import { currentUserQuery } from '../../api/auth.ts'
import { collaboratorsQuery } from '../../api/collaborators.ts'
import { projectQuery } from '../../api/projects.ts'
import { orNotFound, PageSkeleton, ProjectNotFound, RouteError } from '../../features/layout/route-states.tsx'
import { ProjectNav } from '../../features/projects/project-nav.tsx'
import { ProjectSettingsPage } from '../../features/projects/project-settings-page.tsx'

export const Route = createFileRoute('/_authed/projects/$projectId/settings')({
  loader: async ({ context: { queryClient }, params: { projectId } }) => {
    const project = await orNotFound(queryClient.ensureQueryData(projectQuery(projectId)))
    // Decide whether the admin controls show before the page renders.
    await Promise.all([
      queryClient.ensureQueryData(collaboratorsQuery(project.organization_id)),
      queryClient.ensureQueryData(currentUserQuery()),
    ])
  },
  pendingComponent: () => <PageSkeleton label="Loading the project settings" rows={3} />,
  errorComponent: (props) => <RouteError {...props} title="Could not load the project settings" />,
  notFoundComponent: NotFound,
  component: ProjectSettingsRoute,
})

function ProjectSettingsRoute() {
  const { projectId } = Route.useParams()
  return (
    <>
      <ProjectNav projectId={projectId} />
      <ProjectSettingsPage projectId={projectId} />
    </>
  )
}

function NotFound() {
  return <ProjectNotFound projectId={Route.useParams().projectId} />
}
