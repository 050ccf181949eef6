import { useSuspenseQuery } from '@tanstack/react-query'
import { createFileRoute, Link } from '@tanstack/react-router'
import { Settings, ShieldCheck } from 'lucide-react'
import { organizationQuery } from '../../api/organizations.ts'
import { projectsQuery } from '../../api/projects.ts'
import { buttonVariants } from '../../components/ui/button.tsx'
import { Card, CardContent } from '../../components/ui/card.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { orNotFound, PageSkeleton, OrganizationNotFound, RouteError } from '../../features/layout/route-states.tsx'
import { CollaboratorsPanel } from '../../features/organizations/collaborators-panel.tsx'
import { CreateProjectForm } from '../../features/projects/create-project-form.tsx'
import { useIsOrganizationAdmin } from '../../features/collaborators/use-is-admin.ts'
import { ProjectList } from '../../features/projects/project-list.tsx'

export const Route = createFileRoute('/_authed/organizations/$organizationId')({
  loader: ({ context: { queryClient }, params: { organizationId } }) =>
    orNotFound(
      Promise.all([
        queryClient.ensureQueryData(organizationQuery(organizationId)),
        // Open error counts move with every event: refresh them on each visit, behind the cached list.
        queryClient.ensureQueryData({ ...projectsQuery(organizationId), revalidateIfStale: true }),
      ]),
    ),
  pendingComponent: () => <PageSkeleton label="Loading the organization" />,
  errorComponent: (props) => <RouteError {...props} title="Could not load this organization" />,
  notFoundComponent: NotFound,
  component: OrganizationPage,
})

function OrganizationPage() {
  const { organizationId } = Route.useParams()
  const navigate = Route.useNavigate()
  const { data: organization } = useSuspenseQuery(organizationQuery(organizationId))
  const { data: projects } = useSuspenseQuery(projectsQuery(organizationId))
  const isAdmin = useIsOrganizationAdmin(organizationId)
  return (
    <>
      <PageHeader
        title={organization.name}
        description={`${projects.length} ${projects.length === 1 ? 'project' : 'projects'}`}
        actions={
          <>
            {isAdmin ? (
              <Link
                to="/organizations/$organizationId/privacy"
                params={{ organizationId }}
                className={buttonVariants({ variant: 'secondary', size: 'sm' })}
              >
                <ShieldCheck aria-hidden="true" />
                Privacy requests
              </Link>
            ) : null}
            <Link
              to="/organizations/$organizationId/settings"
              params={{ organizationId }}
              className={buttonVariants({ variant: 'secondary', size: 'sm' })}
            >
              <Settings aria-hidden="true" />
              Organization settings
            </Link>
          </>
        }
      />
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,1fr)_18rem]">
        <div className="flex min-w-0 flex-col gap-6">
          <ProjectList projects={projects} />
          {/* Only admins create projects (the server checks too); members are not offered a form that would fail. */}
          {isAdmin ? (
            <Card>
              <CardContent padding={4}>
                <CreateProjectForm
                  organizationId={organizationId}
                  onCreated={(project) => void navigate({ to: '/projects/$projectId/errors', params: { projectId: project.id } })}
                />
              </CardContent>
            </Card>
          ) : null}
        </div>
        <aside aria-label="Organization details">
          <CollaboratorsPanel organizationId={organizationId} />
        </aside>
      </div>
    </>
  )
}

function NotFound() {
  return <OrganizationNotFound organizationId={Route.useParams().organizationId} />
}
