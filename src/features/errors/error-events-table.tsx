import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ChevronLeft, ChevronRight, ChevronsLeft } from 'lucide-react'
import type { ErrorEvent } from '../../../contract/events.ts'
import { errorEventsQuery } from '../../api/events.ts'
import { buttonVariants } from '../../components/ui/button.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { usePageTrail } from '../../lib/page-trail.ts'
import { formatCount, formatExactTime } from '../../lib/relative-time.ts'
import { SeverityIndicator } from './error-badges.tsx'

const cell = 'px-3 py-2 align-top'

/** Who an event happened to, for its link's name: the user, else its context. */
const eventWho = (event: ErrorEvent) => event.user.name ?? event.user.email ?? event.user_id ?? event.context

/** One page of the error's events, newest first; the page (cursor) lives in the URL. */
export function ErrorEventsTable({ projectId, errorId, cursor }: { projectId: string; errorId: string; cursor: string | undefined }) {
  const query = useQuery(errorEventsQuery(projectId, errorId, cursor))
  const total = query.data?.totalCount
  const trail = usePageTrail(cursor)

  return (
    <Card aria-labelledby="error-events-title">
      <CardHeader>
        <CardTitle id="error-events-title">
          Events{total != null ? <span className="font-normal text-muted-foreground tabular-nums"> ({formatCount(total)})</span> : null}
        </CardTitle>
        <nav aria-label="Events pages" className="flex items-center gap-2">
          {cursor && (trail.previous === null || trail.previous.cursor !== undefined) ? (
            <Link
              to="/projects/$projectId/errors/$errorId"
              params={{ projectId, errorId }}
              search={{}}
              className={buttonVariants({ size: 'sm' })}
            >
              <ChevronsLeft aria-hidden="true" />
              Newest
            </Link>
          ) : null}
          {trail.previous ? (
            <Link
              to="/projects/$projectId/errors/$errorId"
              params={{ projectId, errorId }}
              search={{ cursor: trail.previous.cursor }}
              state={trail.previous.state}
              className={buttonVariants({ size: 'sm' })}
            >
              <ChevronLeft aria-hidden="true" />
              Newer events
            </Link>
          ) : null}
          {query.data?.nextCursor ? (
            <Link
              to="/projects/$projectId/errors/$errorId"
              params={{ projectId, errorId }}
              search={{ cursor: query.data.nextCursor }}
              state={trail.nextState}
              className={buttonVariants({ size: 'sm' })}
            >
              Older events
              <ChevronRight aria-hidden="true" />
            </Link>
          ) : null}
        </nav>
      </CardHeader>
      <CardContent className="px-0 py-0">
        {query.isPending ? (
          <LoadingRegion label="Loading events" className="flex flex-col gap-2 p-4">
            {Array.from({ length: 5 }, (_, index) => (
              <Skeleton key={index} className="h-6" />
            ))}
          </LoadingRegion>
        ) : query.isError ? (
          <ErrorState className="m-4" title="Could not load events" error={query.error} onRetry={() => void query.refetch()} />
        ) : query.data.items.length === 0 ? (
          <p className="p-4 text-sm text-muted-foreground">No events on this page.</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full min-w-[40rem] text-sm">
              <thead className="bg-surface-muted text-left text-xs text-muted-foreground">
                <tr>
                  <th scope="col" className={`${cell} font-medium`}>Received</th>
                  <th scope="col" className={`${cell} font-medium`}>Context</th>
                  <th scope="col" className={`${cell} font-medium`}>User</th>
                  <th scope="col" className={`${cell} font-medium`}>Release stage</th>
                  <th scope="col" className={`${cell} font-medium`}>App version</th>
                  <th scope="col" className={`${cell} font-medium`}>Severity</th>
                </tr>
              </thead>
              <tbody>
                {query.data.items.map((event) => (
                  <tr key={event.id} className="border-t border-border hover:bg-surface-muted">
                    <td className={cell}>
                      {/* Named by the exact time and who it happened to: a list of links reads as
                          more than "7 minutes ago" over and over. The exact time shows beneath; the
                          name is the link's own text (an aria-label would differ from what is seen). */}
                      <Link
                        to="/projects/$projectId/errors/$errorId/events/$eventId"
                        params={{ projectId, errorId, eventId: event.id }}
                        className="group flex flex-col rounded whitespace-nowrap"
                      >
                        <RelativeTime value={event.received_at} className="text-accent group-hover:underline" />
                        <span className="sr-only">, </span>
                        <span className="text-xs text-muted-foreground tabular-nums">{formatExactTime(event.received_at)}</span>
                        {eventWho(event) ? <span className="sr-only">, {eventWho(event)}</span> : null}
                      </Link>
                    </td>
                    <td className={`${cell} max-w-64 truncate font-mono text-xs leading-5`} title={event.context ?? undefined}>
                      {event.context ?? '—'}
                    </td>
                    <td className={`${cell} max-w-48 truncate`} title={event.user.email ?? undefined}>
                      {event.user.name ?? event.user.email ?? event.user_id ?? '—'}
                    </td>
                    <td className={cell}>{event.release_stage ?? '—'}</td>
                    <td className={`${cell} tabular-nums`}>{event.app_version ?? '—'}</td>
                    <td className={cell}>
                      <SeverityIndicator severity={event.severity} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </CardContent>
    </Card>
  )
}
