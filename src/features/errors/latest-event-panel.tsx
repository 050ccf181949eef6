import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ChevronRight } from 'lucide-react'
import { latestEventQuery } from '../../api/errors.ts'
import { isApiError } from '../../api/http.ts'
import { buttonVariants } from '../../components/ui/button.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { ExceptionChain } from '../events/exception-chain.tsx'

/** The latest event's stack trace, loaded beside the summary (a failure here keeps the page). */
export function LatestEventPanel({ projectId, errorId }: { projectId: string; errorId: string }) {
  const query = useQuery(latestEventQuery(projectId, errorId))
  return (
    <Card aria-labelledby="latest-event-title">
      <CardHeader>
        <CardTitle id="latest-event-title">
          Latest event
          {query.data ? (
            <span className="font-normal text-muted-foreground">
              {' '}
              · <RelativeTime value={query.data.received_at} />
            </span>
          ) : null}
        </CardTitle>
        {query.data ? (
          <Link
            to="/projects/$projectId/errors/$errorId/events/$eventId"
            params={{ projectId, errorId, eventId: query.data.id }}
            className={buttonVariants({ size: 'sm' })}
          >
            Open latest event
            <ChevronRight aria-hidden="true" />
          </Link>
        ) : null}
      </CardHeader>
      <CardContent>
        {query.isPending ? (
          <LoadingRegion label="Loading the latest event" className="flex flex-col gap-2">
            <Skeleton className="h-5 w-1/3" />
            <Skeleton className="h-4 w-2/3" />
            <Skeleton className="h-4 w-1/2" />
            <Skeleton className="h-4 w-3/5" />
          </LoadingRegion>
        ) : query.isError ? (
          isApiError(query.error, 404) ? (
            <p className="text-sm text-muted-foreground">This error has no stored events.</p>
          ) : (
            <ErrorState title="Could not load the latest event" error={query.error} onRetry={() => void query.refetch()} />
          )
        ) : (
          <ExceptionChain exceptions={query.data.exceptions} />
        )}
      </CardContent>
    </Card>
  )
}
