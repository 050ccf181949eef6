import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { ChevronLeft, ChevronRight } from 'lucide-react'
import type { ErrorEvent } from '../../../contract/events.ts'
import { eventNeighboursQuery } from '../../api/events.ts'
import { buttonVariants } from '../../components/ui/button.tsx'
import { cn } from '../../lib/cn.ts'

const linkClass = cn(buttonVariants({ size: 'sm' }), 'h-8')
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
  const newer = neighbours.data?.newer
  const older = neighbours.data?.older
  const pending = neighbours.isPending

  return (
    <nav aria-label="Event navigation" className="flex shrink-0 items-center gap-2">
      {newer ? (
        <Link
          to="/projects/$projectId/errors/$errorId/events/$eventId"
          params={{ projectId, errorId, eventId: newer.id }}
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
      {older ? (
        <Link
          to="/projects/$projectId/errors/$errorId/events/$eventId"
          params={{ projectId, errorId, eventId: older.id }}
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
