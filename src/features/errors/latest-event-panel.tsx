import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Link } from '@tanstack/react-router'
import { ChevronRight } from 'lucide-react'
import type { Filters } from '../../../contract/filters.ts'
import { latestEventQuery } from '../../api/errors.ts'
import { isApiError } from '../../api/http.ts'
import { buttonVariants } from '../../components/ui/button.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { ExceptionChain } from '../events/exception-chain.tsx'
import { hasMappedFrames, MinifiedFramesToggle, SourceMapNotice } from '../events/source-map-notice.tsx'

/**
 * The latest event's stack trace, loaded beside the summary (a failure here keeps the page): the
 * newest of the events the page's filters match (a pivot value clicked, a time range), as the
 * events table and the trend beside it show.
 */
export function LatestEventPanel({ projectId, errorId, filters = {} }: { projectId: string; errorId: string; filters?: Filters }) {
  const query = useQuery(latestEventQuery(projectId, errorId, filters))
  const filtered = Object.keys(filters).length > 0
  const [showMinified, setShowMinified] = useState(false)
  return (
    <Card aria-labelledby="latest-event-title">
      <CardHeader>
        <CardTitle id="latest-event-title">
          {filtered ? 'Latest matching event' : 'Latest event'}
          {query.data ? (
            <span className="font-normal text-muted-foreground">
              {' '}
              · <RelativeTime value={query.data.received_at} />
            </span>
          ) : null}
        </CardTitle>
        {query.data ? (
          <div className="flex flex-wrap items-center gap-2">
            {hasMappedFrames(query.data.exceptions) ? <MinifiedFramesToggle pressed={showMinified} onChange={setShowMinified} /> : null}
            <Link
              to="/projects/$projectId/errors/$errorId/events/$eventId"
              params={{ projectId, errorId, eventId: query.data.id }}
              search={showMinified ? { frames: 'minified' } : {}}
              className={buttonVariants({ size: 'sm' })}
            >
              Open latest event
              <ChevronRight aria-hidden="true" />
            </Link>
          </div>
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
        ) : query.data === null ? (
          <p className="text-sm text-muted-foreground">No event of this error matches the filters.</p>
        ) : (
          <div className="flex flex-col gap-3">
            <SourceMapNotice projectId={projectId} symbolication={query.data.symbolication} />
            <ExceptionChain exceptions={query.data.exceptions} showMinified={showMinified} />
          </div>
        )}
      </CardContent>
    </Card>
  )
}
