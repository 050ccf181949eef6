import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ChevronLeft, ChevronRight, ChevronsLeft } from 'lucide-react'
import { useEffect, useRef } from 'react'
import type { ErrorEvent } from '../../../contract/events.ts'
import type { Filters } from '../../../contract/filters.ts'
import { errorEventsQuery } from '../../api/events.ts'
import { projectQuery } from '../../api/projects.ts'
import { buttonVariants } from '../../components/ui/button.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { cn } from '../../lib/cn.ts'
import { usePageTrail } from '../../lib/page-trail.ts'
import { formatCount, formatExactTime } from '../../lib/relative-time.ts'
import { formatDays } from '../projects/retention-section.tsx'
import { SeverityIndicator } from './error-badges.tsx'

const cell = 'px-3 py-2 align-top'

/** Who an event happened to, for its link's name: the user, else its context. */
const eventWho = (event: ErrorEvent) => event.user.name ?? event.user.email ?? event.user_id ?? event.context

type PageLink = 'newest' | 'newer' | 'older'

/**
 * One page of the error's events, newest first; the page (cursor) lives in the URL. Paging changes
 * only the cursor: the page's other search parameters (filters, pivot tab, resolution), its scroll
 * position and the focus stay where they were.
 */
export function ErrorEventsTable({
  projectId,
  errorId,
  cursor,
  filters = {},
}: {
  projectId: string
  errorId: string
  cursor: string | undefined
  /** The page's time range and pivot values: only the events they match are listed. */
  filters?: Filters
}) {
  const query = useQuery(errorEventsQuery(projectId, errorId, cursor, filters))
  // How far back events go (the page has read the project already; a hint, so nothing while it loads).
  const retentionDays = useQuery(projectQuery(projectId)).data?.effective_event_retention_days
  const filtered = Object.keys(filters).length > 0
  const total = query.data?.totalCount
  const trail = usePageTrail(cursor)
  // While the next page loads the last one stays on screen, but its cursor is not this page's next.
  const nextCursor = query.isPlaceholderData ? null : query.data?.nextCursor

  // The followed link is gone while its page loads (Older), or for good (Newest, Older to the last
  // page), and the focus falls back to the page: once the page is there, it goes back to the link,
  // else to the table, unless the user has moved it elsewhere meanwhile.
  const followed = useRef<PageLink | null>(null)
  const newestRef = useRef<HTMLAnchorElement>(null)
  const newerRef = useRef<HTMLAnchorElement>(null)
  const olderRef = useRef<HTMLAnchorElement>(null)
  const tableRef = useRef<HTMLTableElement>(null)
  const loaded = query.isSuccess && !query.isPlaceholderData
  useEffect(() => {
    const link = followed.current
    if (!link || !loaded) return
    followed.current = null
    const active = document.activeElement
    if (active !== null && active !== document.body && active.id !== 'main') return
    const target = { newest: newestRef, newer: newerRef, older: olderRef }[link].current ?? tableRef.current
    target?.focus({ preventScroll: true })
  }, [loaded, cursor])

  return (
    <Card aria-labelledby="error-events-title">
      <CardHeader>
        <CardTitle id="error-events-title">
          Events{total != null ? <span className="font-normal text-muted-foreground tabular-nums"> ({formatCount(total)})</span> : null}
          {filtered ? <span className="font-normal text-muted-foreground"> · matching the filters</span> : null}
        </CardTitle>
        <nav aria-label="Events pages" className="flex items-center gap-2">
          {cursor && (trail.previous === null || trail.previous.cursor !== undefined) ? (
            <Link
              to="/projects/$projectId/errors/$errorId"
              params={{ projectId, errorId }}
              search={(prev) => ({ ...prev, cursor: undefined })}
              resetScroll={false}
              ref={newestRef}
              onClick={() => (followed.current = 'newest')}
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
              search={(prev) => ({ ...prev, cursor: trail.previous?.cursor })}
              state={trail.previous.state}
              resetScroll={false}
              ref={newerRef}
              onClick={() => (followed.current = 'newer')}
              className={buttonVariants({ size: 'sm' })}
            >
              <ChevronLeft aria-hidden="true" />
              Newer events
            </Link>
          ) : null}
          {nextCursor ? (
            <Link
              to="/projects/$projectId/errors/$errorId"
              params={{ projectId, errorId }}
              search={(prev) => ({ ...prev, cursor: nextCursor })}
              state={trail.nextState}
              resetScroll={false}
              ref={olderRef}
              onClick={() => (followed.current = 'older')}
              className={buttonVariants({ size: 'sm' })}
            >
              Older events
              <ChevronRight aria-hidden="true" />
            </Link>
          ) : null}
        </nav>
      </CardHeader>
      <CardContent padding={0}>
        {query.isPending ? (
          <LoadingRegion label="Loading events" className="flex flex-col gap-2 p-4">
            {Array.from({ length: 5 }, (_, index) => (
              <Skeleton key={index} className="h-6" />
            ))}
          </LoadingRegion>
        ) : query.isError ? (
          <ErrorState className="m-4" title="Could not load events" error={query.error} onRetry={() => void query.refetch()} />
        ) : query.data.items.length === 0 ? (
          <p className="p-4 text-sm text-muted-foreground">
            {filtered && !cursor ? 'No events of this error match the filters.' : cursor ? 'No events on this page.' : 'No events of this error are stored any more.'}
          </p>
        ) : (
          // Fixed column widths: the time, the release and the severity get what they need, and the
          // context and the user share the rest, cut with an ellipsis (the full text on hover). In a
          // container narrower than 42rem each event is a stacked card without a header row.
          <div aria-busy={query.isPlaceholderData} className={cn('@container', query.isPlaceholderData && 'opacity-60')}>
            <table ref={tableRef} tabIndex={-1} className="w-full table-fixed text-sm outline-none">
              <thead className="bg-surface-muted text-left text-xs text-muted-foreground @max-2xl:hidden">
                <tr>
                  <th scope="col" className={`${cell} w-52 font-medium`}>Received</th>
                  <th scope="col" className={`${cell} font-medium`}>Context</th>
                  <th scope="col" className={`${cell} font-medium`}>User</th>
                  <th scope="col" className={`${cell} w-32 font-medium`}>Release</th>
                  <th scope="col" className={`${cell} w-24 font-medium`}>Severity</th>
                </tr>
              </thead>
              <tbody>
                {query.data.items.map((event) => {
                  const user = event.user.name ?? event.user.email ?? event.user_id
                  return (
                    <tr
                      key={event.id}
                      className="border-t border-border hover:bg-surface-muted @max-2xl:grid @max-2xl:grid-cols-[minmax(0,1fr)_minmax(0,auto)] @max-2xl:gap-x-3 @max-2xl:gap-y-1 @max-2xl:px-4 @max-2xl:py-3"
                    >
                      <td className={`${cell} @max-2xl:p-0`}>
                        {/* Named by the exact time and who it happened to: a list of links reads as
                            more than "7 minutes ago" over and over. The exact time shows beneath; the
                            name is the link's own text (an aria-label would differ from what is seen). */}
                        <Link
                          to="/projects/$projectId/errors/$errorId/events/$eventId"
                          params={{ projectId, errorId, eventId: event.id }}
                          className="group flex min-w-0 flex-col rounded whitespace-nowrap"
                        >
                          <RelativeTime value={event.received_at} className="truncate text-accent group-hover:underline" />
                          <span className="sr-only">, </span>
                          <span className="truncate text-xs text-muted-foreground tabular-nums">{formatExactTime(event.received_at)}</span>
                          {eventWho(event) ? <span className="sr-only">, {eventWho(event)}</span> : null}
                        </Link>
                      </td>
                      <td
                        className={cn(
                          `${cell} truncate font-mono text-xs leading-5 @max-2xl:order-1 @max-2xl:col-span-full @max-2xl:p-0`,
                          // A card has no column header to tell what a dash stands for.
                          event.context === null && '@max-2xl:hidden',
                        )}
                        title={event.context ?? undefined}
                      >
                        {event.context ?? '—'}
                      </td>
                      <td
                        className={cn(`${cell} truncate @max-2xl:order-2 @max-2xl:p-0`, user === null && '@max-2xl:hidden')}
                        title={event.user.email ?? undefined}
                      >
                        {user ?? '—'}
                      </td>
                      {/* On a card, at most 40% of the width: a long stage or version must not push the time out. */}
                      <td
                        className={`${cell} @max-2xl:order-3 @max-2xl:flex @max-2xl:max-w-[40cqw] @max-2xl:min-w-0 @max-2xl:justify-end @max-2xl:gap-2 @max-2xl:p-0`}
                      >
                        <span className="block truncate" title={event.release_stage ?? undefined}>
                          {event.release_stage ?? '—'}
                        </span>
                        {event.app_version ? (
                          <span className="block truncate text-xs leading-5 text-muted-foreground tabular-nums" title={event.app_version}>
                            {event.app_version}
                          </span>
                        ) : null}
                      </td>
                      <td className={`${cell} @max-2xl:row-start-1 @max-2xl:col-start-2 @max-2xl:p-0 @max-2xl:text-right`}>
                        <SeverityIndicator severity={event.severity} />
                      </td>
                    </tr>
                  )
                })}
              </tbody>
            </table>
          </div>
        )}
        {retentionDays !== undefined ? (
          <p className="border-t border-border px-4 py-2 text-xs text-muted-foreground">
            Events are kept for {formatDays(retentionDays)} after they arrive; older ones are deleted.
          </p>
        ) : null}
      </CardContent>
    </Card>
  )
}
