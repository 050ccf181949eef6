import { useQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import type { Filters } from '../../../contract/filters.ts'
import { completedDeletions, deletionsQuery, privacyPreviewQuery, type PrivacyScope } from '../../api/privacy.ts'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { cn } from '../../lib/cn.ts'
import { shortErrorClassLabel } from '../../lib/error-class.ts'
import { formatCountOf } from '../../lib/relative-time.ts'
import { MatchedPeople } from './matched-people.tsx'

/**
 * How many events the selection matches right now, and the newest few, so the officer can see
 * they found the right person before exporting or deleting. Event text comes from events: text only.
 */
export function SelectionPreview({
  scope,
  filters,
  projectNames,
  onFiltersChange,
}: {
  scope: PrivacyScope
  filters: Filters
  projectNames: ReadonlyMap<string, string>
  /** "Only this person": the selection narrowed to one user id. */
  onFiltersChange: (next: Filters) => void
}) {
  // The scope's deletions (the list below polls them): a completed one changes the count.
  const preview = useQuery(privacyPreviewQuery(scope, filters, completedDeletions(useQuery(deletionsQuery(scope)).data)))
  if (preview.isPending) {
    return (
      <LoadingRegion label="Counting matching events">
        <Skeleton className="h-16 w-full" />
      </LoadingRegion>
    )
  }
  if (preview.isError) {
    return <ErrorState title="Could not count the matching events" error={preview.error} onRetry={() => void preview.refetch()} />
  }
  const { total, events, people } = preview.data
  return (
    <div className={cn('flex flex-col gap-2 transition-opacity', preview.isPlaceholderData && 'opacity-60')} aria-busy={preview.isFetching || undefined}>
      <p role="status" className="text-sm">
        <span className="text-base font-semibold tabular-nums">{formatCountOf(total, 'matching event')}</span>
        {total > events.length && events.length > 0 ? <span className="text-muted-foreground"> · the newest {events.length}:</span> : null}
      </p>
      {total > 0 ? <MatchedPeople people={people} filters={filters} onFiltersChange={onFiltersChange} /> : null}
      {events.length > 0 ? (
        <ul aria-label="Newest matching events" className="divide-y divide-border rounded-md border border-border">
          {events.map((event) => (
            <li key={event.id} className="flex flex-col gap-0.5 px-3 py-2 text-sm sm:flex-row sm:items-baseline sm:gap-3">
              <Link
                to="/projects/$projectId/errors/$errorId/events/$eventId"
                params={{ projectId: event.project_id, errorId: event.error_id, eventId: event.id }}
                className="min-w-0 truncate font-mono text-accent hover:underline"
                title={event.message ? `${event.error_class}: ${event.message}` : event.error_class}
              >
                {shortErrorClassLabel(event.error_class)}
                {event.message ? <span className="text-muted-foreground">: {event.message}</span> : null}
              </Link>
              <span className="flex shrink-0 flex-wrap gap-x-3 text-xs text-muted-foreground sm:ml-auto">
                <span className="max-w-[16rem] truncate" title={[event.user.id, event.user.email, event.user.name].filter(Boolean).join(' · ')}>
                  {event.user.email ?? event.user.id ?? event.user.name ?? 'no user'}
                </span>
                {scope.kind === 'organization' ? <span>{projectNames.get(event.project_id) ?? 'a project'}</span> : null}
                <RelativeTime value={event.received_at} />
              </span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-muted-foreground">No event matches: check the spelling, or try the email or name instead.</p>
      )}
    </div>
  )
}
