import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { Users } from 'lucide-react'
import { collaboratorsQuery } from '../../api/collaborators.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { buttonVariants } from '../../components/ui/button.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { useIsOrganizationAdmin } from '../collaborators/use-is-admin.ts'

/** A side panel: loads on its own so a failure here never blanks the page. Managing happens on the collaborators page. */
export function CollaboratorsPanel({ organizationId }: { organizationId: string }) {
  const query = useQuery(collaboratorsQuery(organizationId))
  const isAdmin = useIsOrganizationAdmin(organizationId)
  return (
    <Card aria-labelledby="collaborators-title">
      <CardHeader>
        <CardTitle id="collaborators-title">Collaborators</CardTitle>
        <Link
          to="/organizations/$organizationId/collaborators"
          params={{ organizationId }}
          className={buttonVariants({ variant: 'link', size: 'sm' })}
        >
          <Users aria-hidden="true" />
          {isAdmin ? 'Manage collaborators' : 'All collaborators'}
        </Link>
      </CardHeader>
      <CardContent>
        {query.isPending ? (
          <LoadingRegion label="Loading collaborators">
            <Skeleton className="mb-2 h-5 w-2/3" />
            <Skeleton className="h-5 w-1/2" />
          </LoadingRegion>
        ) : query.isError ? (
          <ErrorState title="Could not load collaborators" error={query.error} onRetry={() => void query.refetch()} />
        ) : query.data.length === 0 ? (
          <p className="text-sm text-muted-foreground">No collaborators yet.</p>
        ) : (
          <ul className="flex flex-col gap-2 text-sm">
            {query.data.map((person) => (
              <li key={person.id} className="flex items-center gap-2">
                <span className="min-w-0 flex-1">
                  <span className="block truncate font-medium">{person.name || person.email}</span>
                  <span className="block truncate text-xs text-muted-foreground">{person.email}</span>
                </span>
                {person.pending_invitation ? <Badge tone="warning">pending</Badge> : null}
                {person.is_admin ? <Badge>admin</Badge> : null}
              </li>
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  )
}
