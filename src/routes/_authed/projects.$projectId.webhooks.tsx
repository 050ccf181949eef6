import { useSuspenseQuery } from '@tanstack/react-query'
import { createFileRoute } from '@tanstack/react-router'
import { z } from 'zod/mini'
import { currentUserQuery } from '../../api/auth.ts'
import { collaboratorsQuery } from '../../api/collaborators.ts'
import { projectQuery } from '../../api/projects.ts'
import { useIsOrganizationAdmin } from '../../features/collaborators/use-is-admin.ts'
import { orNotFound, PageSkeleton, ProjectNotFound, RouteError } from '../../features/layout/route-states.tsx'
import { ProjectNav } from '../../features/projects/project-nav.tsx'
import { WebhooksPage } from '../../features/webhooks/webhooks-page.tsx'

export const Route = createFileRoute('/_authed/projects/$projectId/webhooks')({
  // The webhook whose delivery log is open.
  validateSearch: z.object({ webhook: z.optional(z.string()) }),
  loader: async ({ context: { queryClient }, params: { projectId } }) => {
    const project = await orNotFound(queryClient.ensureQueryData(projectQuery(projectId)))
    // Decide whether the admin controls show before the page renders.
    await Promise.all([
      queryClient.ensureQueryData(collaboratorsQuery(project.organization_id)),
      queryClient.ensureQueryData(currentUserQuery()),
    ])
  },
  pendingComponent: () => <PageSkeleton label="Loading the webhooks" />,
  errorComponent: (props) => <RouteError {...props} title="Could not load the webhooks" />,
  notFoundComponent: NotFound,
  component: ProjectWebhooksRoute,
})

function ProjectWebhooksRoute() {
  const { projectId } = Route.useParams()
  const { webhook } = Route.useSearch()
  const navigate = Route.useNavigate()
  const { data: project } = useSuspenseQuery(projectQuery(projectId))
  return (
    <WebhooksPage
      projectId={projectId}
      projectName={project.name}
      isAdmin={useIsOrganizationAdmin(project.organization_id)}
      nav={<ProjectNav projectId={projectId} spacing="none" />}
      openWebhookId={webhook}
      onOpenWebhook={(next) => void navigate({ search: { webhook: next }, replace: true })}
    />
  )
}

function NotFound() {
  return <ProjectNotFound projectId={Route.useParams().projectId} />
}
