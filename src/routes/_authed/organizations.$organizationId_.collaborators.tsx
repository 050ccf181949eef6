import { createFileRoute } from '@tanstack/react-router'
import { currentUserQuery } from '../../api/auth.ts'
import { collaboratorsQuery } from '../../api/collaborators.ts'
import { organizationQuery } from '../../api/organizations.ts'
import { projectsQuery } from '../../api/projects.ts'
import { CollaboratorsPage } from '../../features/collaborators/collaborators-page.tsx'
import { orNotFound, PageSkeleton, OrganizationNotFound, RouteError } from '../../features/layout/route-states.tsx'

// `$organizationId_` keeps this page out of the organization page's layout (that page has no <Outlet/>).
export const Route = createFileRoute('/_authed/organizations/$organizationId_/collaborators')({
  loader: ({ context: { queryClient }, params: { organizationId } }) =>
    orNotFound(
      Promise.all([
        queryClient.ensureQueryData(organizationQuery(organizationId)),
        queryClient.ensureQueryData({ ...collaboratorsQuery(organizationId), revalidateIfStale: true }),
        queryClient.ensureQueryData(projectsQuery(organizationId)),
        // Decides whether the admin controls show.
        queryClient.ensureQueryData(currentUserQuery()),
      ]),
    ),
  pendingComponent: () => <PageSkeleton label="Loading collaborators" />,
  errorComponent: (props) => <RouteError {...props} title="Could not load the collaborators" />,
  notFoundComponent: CollaboratorsNotFound,
  component: CollaboratorsRoute,
})

function CollaboratorsRoute() {
  const { organizationId } = Route.useParams()
  return <CollaboratorsPage organizationId={organizationId} />
}

function CollaboratorsNotFound() {
  return <OrganizationNotFound organizationId={Route.useParams().organizationId} />
}
