import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { Gauge } from 'lucide-react'
import { rateLimitQuery } from '../../api/rate-limits.ts'
import { cn } from '../../lib/cn.ts'
import { formatCountOf } from '../../lib/relative-time.ts'

/**
 * On the project's page: how many events rate limiting dropped (counted, not stored) in the last
 * 24 hours, with the way to the quota. Nothing while there are none, or while it loads or fails:
 * the page's own content does not depend on it.
 */
export function DroppedEventsNotice({ projectId, className }: { projectId: string; className?: string }) {
  const { data } = useQuery(rateLimitQuery(projectId))
  if (!data || data.dropped_last_24h === 0) return null
  return (
    <div
      role="status"
      className={cn('flex items-start gap-2 rounded-md border border-warning/40 bg-warning-soft/40 px-3 py-2 text-sm', className)}
    >
      <Gauge aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-warning" />
      <p className="flex flex-wrap gap-x-3 gap-y-1">
        {/* "24 h" stays on one line. */}
        <span className="tabular-nums">{formatCountOf(data.dropped_last_24h, 'event')} dropped by rate limiting in the last 24&nbsp;h</span>
        <Link to="/projects/$projectId/settings" params={{ projectId }} className="font-medium text-accent hover:underline">
          Rate limit settings
        </Link>
      </p>
    </div>
  )
}
