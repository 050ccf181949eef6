import { useSuspenseQuery } from '@tanstack/react-query'
import { createFileRoute } from '@tanstack/react-router'
import { z } from 'zod/mini'
import { currentUserQuery } from '../../api/auth.ts'
import { collaboratorsQuery } from '../../api/collaborators.ts'
import { organizationQuery } from '../../api/organizations.ts'
import { projectsQuery } from '../../api/projects.ts'
import { useIsOrganizationAdmin } from '../../features/collaborators/use-is-admin.ts'
import { filterSearchSchema, fromErrorFilterSearch, toFilterSearch } from '../../features/filters/to-filter-search.ts'
import { orNotFound, OrganizationNotFound, PageSkeleton, RouteError } from '../../features/layout/route-states.tsx'
import { PrivacyPage } from '../../features/privacy/privacy-page.tsx'

export const Route = createFileRoute('/_authed/organizations/$organizationId_/privacy')({
  validateSearch: z.object({ f: filterSearchSchema }),
  loader: ({ context: { queryClient }, params: { organizationId } }) =>
    orNotFound(
      Promise.all([
        queryClient.ensureQueryData(organizationQuery(organizationId)),
        queryClient.ensureQueryData(projectsQuery(organizationId)),
        // Decide whether the page is the admin's before it renders.
        queryClient.ensureQueryData(collaboratorsQuery(organizationId)),
        queryClient.ensureQueryData(currentUserQuery()),
      ]),
    ),
  pendingComponent: () => <PageSkeleton label="Loading privacy requests" />,
  errorComponent: (props) => <RouteError {...props} title="Could not load the privacy requests" />,
  notFoundComponent: NotFound,
  component: OrganizationPrivacyRoute,
})

function OrganizationPrivacyRoute() {
  const { organizationId } = Route.useParams()
  const { f } = Route.useSearch()
  const navigate = Route.useNavigate()
  const { data: organization } = useSuspenseQuery(organizationQuery(organizationId))
  const { data: projects } = useSuspenseQuery(projectsQuery(organizationId))
  return (
    <PrivacyPage
      scope={{ kind: 'organization', organizationId }}
      scopeName={organization.name}
      projectNames={new Map(projects.map((p) => [p.id, p.name]))}
      isAdmin={useIsOrganizationAdmin(organizationId)}
      filters={fromErrorFilterSearch(f)}
      onFiltersChange={(next) => void navigate({ search: { f: toFilterSearch(next) }, replace: true })}
    />
  )
}

function NotFound() {
  return <OrganizationNotFound organizationId={Route.useParams().organizationId} />
}
