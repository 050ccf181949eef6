import { useQuery, useSuspenseQuery } from '@tanstack/react-query'
import { createFileRoute } from '@tanstack/react-router'
import { z } from 'zod/mini'
import { currentUserQuery } from '../../api/auth.ts'
import { collaboratorsQuery } from '../../api/collaborators.ts'
import { newestProjectEventQuery } from '../../api/events.ts'
import { projectQuery } from '../../api/projects.ts'
import { useIsOrganizationAdmin } from '../../features/collaborators/use-is-admin.ts'
import { orNotFound, PageSkeleton, ProjectNotFound, RouteError } from '../../features/layout/route-states.tsx'
import { ProjectNav } from '../../features/projects/project-nav.tsx'
import { SourceMapsPage } from '../../features/source-maps/source-maps-page.tsx'

// `url` and `version` come from an event's "no source map for …" link and prefill the form;
// `kind=native` (the native symbols tab) from its "symbols missing for …" notice.
export const Route = createFileRoute('/_authed/projects/$projectId/source-maps')({
  validateSearch: z.object({
    kind: z.catch(z.optional(z.enum(['js', 'native'])), undefined),
    q: z.catch(z.optional(z.string()), undefined),
    url: z.catch(z.optional(z.string()), undefined),
    version: z.catch(z.optional(z.string()), undefined),
  }),
  loader: async ({ context: { queryClient }, params: { projectId } }) => {
    const project = await orNotFound(queryClient.ensureQueryData(projectQuery(projectId)))
    // Whether Delete shows is known before the page renders.
    await Promise.all([
      queryClient.ensureQueryData(collaboratorsQuery(project.organization_id)),
      queryClient.ensureQueryData(currentUserQuery()),
    ])
  },
  pendingComponent: () => <PageSkeleton label="Loading source maps" rows={3} />,
  errorComponent: (props) => <RouteError {...props} title="Could not load the source maps" />,
  notFoundComponent: NotFound,
  component: SourceMapsRoute,
})

function SourceMapsRoute() {
  const { projectId } = Route.useParams()
  const { kind = 'js', q = '', url, version } = Route.useSearch()
  const navigate = Route.useNavigate()
  const { data: project } = useSuspenseQuery(projectQuery(projectId))
  const newestEvent = useQuery(newestProjectEventQuery(projectId)).data
  return (
    <SourceMapsPage
      nav={<ProjectNav projectId={projectId} spacing="none" />}
      projectId={projectId}
      projectName={project.name}
      apiKey={project.api_key}
      isAdmin={useIsOrganizationAdmin(project.organization_id)}
      kind={kind}
      onKindChange={(next) => void navigate({ search: (prev) => ({ ...prev, kind: next === 'js' ? undefined : next }), replace: true })}
      search={q}
      onSearchChange={(next) => void navigate({ search: (prev) => ({ ...prev, q: next || undefined }), replace: true })}
      defaultAppVersion={version ?? newestEvent?.app_version ?? ''}
      defaultMinifiedUrl={url}
    />
  )
}

function NotFound() {
  return <ProjectNotFound projectId={Route.useParams().projectId} />
}
