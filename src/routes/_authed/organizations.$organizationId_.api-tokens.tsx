import { createFileRoute } from '@tanstack/react-router'
import { ensureOrganizationAdminData } from '../../api/organizations.ts'
import { orNotFound, PageSkeleton, OrganizationNotFound, RouteError } from '../../features/layout/route-states.tsx'
import { OrganizationTokensPage } from '../../features/settings/organization-tokens-page.tsx'

// `$organizationId_` keeps this page out of the organization page's layout (that page has no <Outlet/>).
export const Route = createFileRoute('/_authed/organizations/$organizationId_/api-tokens')({
  loader: ({ context: { queryClient }, params: { organizationId } }) =>
    orNotFound(ensureOrganizationAdminData(queryClient, organizationId)),
  pendingComponent: () => <PageSkeleton label="Loading the API tokens" rows={2} />,
  errorComponent: (props) => <RouteError {...props} title="Could not load the API tokens" />,
  notFoundComponent: NotFound,
  component: OrganizationTokensRoute,
})

function OrganizationTokensRoute() {
  const { organizationId } = Route.useParams()
  return <OrganizationTokensPage organizationId={organizationId} />
}

function NotFound() {
  return <OrganizationNotFound organizationId={Route.useParams().organizationId} />
}
