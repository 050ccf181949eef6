import { createFileRoute, notFound, redirect } from '@tanstack/react-router'
import { organizationsQuery } from '../../api/organizations.ts'
import { projectsQuery } from '../../api/projects.ts'
import { PageSkeleton, ResourceNotFound, RouteError } from '../../features/layout/route-states.tsx'

// Bugsnag's dashboard addresses an error as /{organization slug}/{project slug}/errors/{id}, and
// Bugsnag's API clients build such links from the slugs the API returns (the SmartBear MCP
// server shows one with every error): they lead to the error's page here.
export const Route = createFileRoute('/_authed/$organizationSlug/$projectSlug/errors/$errorId')({
  loader: async ({ context: { queryClient }, params }) => {
    const organization = (await queryClient.ensureQueryData(organizationsQuery())).find((o) => o.slug === params.organizationSlug)
    if (!organization) throw notFound()
    const project = (await queryClient.ensureQueryData(projectsQuery(organization.id))).find((p) => p.slug === params.projectSlug)
    if (!project) throw notFound()
    throw redirect({
      to: '/projects/$projectId/errors/$errorId',
      params: { projectId: project.id, errorId: params.errorId },
      replace: true,
    })
  },
  pendingComponent: () => <PageSkeleton label="Opening the error" rows={2} />,
  errorComponent: (props) => <RouteError {...props} title="Could not open this error" />,
  notFoundComponent: () => <ResourceNotFound title="No such project">No project of yours has this address.</ResourceNotFound>,
})
