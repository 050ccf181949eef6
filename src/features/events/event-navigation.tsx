import { useQuery } from '@tanstack/react-query'
import { Link, useRouterState } from '@tanstack/react-router'
import { ChevronLeft, ChevronRight } from 'lucide-react'
import { useEffect, useRef } from 'react'
import type { ErrorEvent } from '../../../contract/events.ts'
import { errorQuery } from '../../api/errors.ts'
import { eventNeighboursQuery, eventPositionQuery } from '../../api/events.ts'
import { formatCount } from '../../lib/relative-time.ts'
import { buttonVariants } from '../../components/ui/button.tsx'
import { cn } from '../../lib/cn.ts'

declare module '@tanstack/history' {
  interface HistoryState {
    /** The event link followed to get here, focused again once the new event's neighbours load. */
    eventNavigation?: 'newer' | 'older'
  }
}

const linkClass = buttonVariants({ size: 'toolbar' })
const disabledClass = cn(linkClass, 'pointer-events-none opacity-50')

/** Newer / older event of the same error; loads on its own so the event shows at once. */
export function EventNavigation({
  projectId,
  errorId,
  event,
}: {
  projectId: string
  errorId: string
  event: Pick<ErrorEvent, 'id' | 'received_at'>
}) {
  const neighbours = useQuery(eventNeighboursQuery(projectId, errorId, event))
  const position = useQuery(eventPositionQuery(projectId, errorId, event))
  const total = useQuery(errorQuery(projectId, errorId)).data?.events
  const newer = neighbours.data?.newer
  const older = neighbours.data?.older
  const pending = neighbours.isPending
  const newerRef = useRef<HTMLAnchorElement>(null)
  const olderRef = useRef<HTMLAnchorElement>(null)
  useRefocusFollowedLink(event.id, { newer: newerRef, older: olderRef }, neighbours.data)

  return (
    <nav aria-label="Event navigation" className="flex shrink-0 flex-wrap items-center gap-2">
      {newer ? (
        <Link
          to="/projects/$projectId/errors/$errorId/events/$eventId"
          params={{ projectId, errorId, eventId: newer.id }}
          state={{ eventNavigation: 'newer' }}
          ref={newerRef}
          className={linkClass}
          rel="prev"
        >
          <ChevronLeft aria-hidden="true" />
          Newer event
        </Link>
      ) : (
        <span className={disabledClass} aria-disabled="true">
          <ChevronLeft aria-hidden="true" />
          {pending ? 'Newer event' : 'No newer event'}
        </span>
      )}
      {/* Newest first, as the events list pages: event 1 is the newest. */}
      <span className="text-center text-xs sm:min-w-[7.5rem] text-muted-foreground tabular-nums" aria-live="polite">
        {position.data !== undefined && total !== undefined ? `Event ${formatCount(position.data)} of ${formatCount(total)}` : ''}
      </span>
      {older ? (
        <Link
          to="/projects/$projectId/errors/$errorId/events/$eventId"
          params={{ projectId, errorId, eventId: older.id }}
          state={{ eventNavigation: 'older' }}
          ref={olderRef}
          className={linkClass}
          rel="next"
        >
          Older event
          <ChevronRight aria-hidden="true" />
        </Link>
      ) : (
        <span className={disabledClass} aria-disabled="true">
          {pending ? 'Older event' : 'No older event'}
          <ChevronRight aria-hidden="true" />
        </span>
      )}
      {neighbours.isError ? (
        <button type="button" className="text-xs text-danger underline" onClick={() => void neighbours.refetch()}>
          Could not load neighbours; retry
        </button>
      ) : null}
    </nav>
  )
}

/**
 * Walking through events with the keyboard: the followed link is replaced while the next event's
 * neighbours load, and focus would fall back to the page. Once the link is back, it gets focus
 * again, unless the user has moved focus elsewhere meanwhile.
 */
function useRefocusFollowedLink(
  eventId: string,
  links: Record<'newer' | 'older', React.RefObject<HTMLAnchorElement | null>>,
  loaded: unknown,
) {
  const followed = useRouterState({ select: (state) => state.location.state.eventNavigation })
  const refocusedFor = useRef<string | null>(null)
  useEffect(() => {
    if (!followed || refocusedFor.current === eventId) return
    const link = links[followed].current
    if (!link) return
    refocusedFor.current = eventId
    const active = document.activeElement
    if (active === null || active === document.body || active.id === 'main') link.focus()
  }, [followed, eventId, links, loaded])
}
