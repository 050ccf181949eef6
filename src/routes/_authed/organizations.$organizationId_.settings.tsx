import { createFileRoute } from '@tanstack/react-router'
import { ensureOrganizationAdminData } from '../../api/organizations.ts'
import { orNotFound, PageSkeleton, OrganizationNotFound, RouteError } from '../../features/layout/route-states.tsx'
import { OrganizationSettingsPage } from '../../features/organizations/organization-settings-page.tsx'

// `$organizationId_` keeps this page out of the organization page's layout (that page has no <Outlet/>).
export const Route = createFileRoute('/_authed/organizations/$organizationId_/settings')({
  loader: ({ context: { queryClient }, params: { organizationId } }) =>
    orNotFound(ensureOrganizationAdminData(queryClient, organizationId)),
  pendingComponent: () => <PageSkeleton label="Loading the organization settings" rows={2} />,
  errorComponent: (props) => <RouteError {...props} title="Could not load the organization settings" />,
  notFoundComponent: NotFound,
  component: OrganizationSettingsRoute,
})

function OrganizationSettingsRoute() {
  const { organizationId } = Route.useParams()
  return <OrganizationSettingsPage organizationId={organizationId} />
}

function NotFound() {
  return <OrganizationNotFound organizationId={Route.useParams().organizationId} />
}
