import { useSuspenseQuery } from '@tanstack/react-query'
import { createFileRoute } from '@tanstack/react-router'
import { organizationsQuery } from '../../api/organizations.ts'
import { Card, CardContent } from '../../components/ui/card.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { PageSkeleton, RouteError } from '../../features/layout/route-states.tsx'
import { PendingInvitations } from '../../features/invitations/pending-invitations.tsx'
import { CreateOrganizationForm } from '../../features/organizations/create-organization-form.tsx'
import { OrganizationList } from '../../features/organizations/organization-list.tsx'

export const Route = createFileRoute('/_authed/organizations/')({
  loader: ({ context }) => context.queryClient.ensureQueryData(organizationsQuery()),
  pendingComponent: () => <PageSkeleton label="Loading organizations" rows={3} />,
  errorComponent: (props) => <RouteError {...props} title="Could not load your organizations" />,
  component: OrganizationsPage,
})

function OrganizationsPage() {
  const { data: organizations } = useSuspenseQuery(organizationsQuery())
  const navigate = Route.useNavigate()
  return (
    <div className="mx-auto flex max-w-3xl flex-col gap-6">
      <PageHeader title="Organizations" description="Pick an organization to see its projects." spacing="none" />
      <PendingInvitations />
      <OrganizationList organizations={organizations} />
      <Card>
        <CardContent padding={4}>
          <CreateOrganizationForm
            onCreated={(organization) =>
              void navigate({ to: '/organizations/$organizationId', params: { organizationId: organization.id } })
            }
          />
        </CardContent>
      </Card>
    </div>
  )
}
