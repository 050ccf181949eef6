import { useQuery } from '@tanstack/react-query'
import { History } from 'lucide-react'
import type { ErrorStatusChange } from '../../../contract/errors.ts'
import { errorStatusChangesQuery } from '../../api/errors.ts'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { Skeleton } from '../../components/ui/skeleton.tsx'
import { ErrorState } from '../../components/ui/states.tsx'
import { describeReopenRules } from './snooze-text.ts'

const VERBS: Record<NonNullable<ErrorStatusChange['to_status']>, string> = {
  open: 'reopened',
  fixed: 'fixed',
  snoozed: 'snoozed',
  ignored: 'ignored',
}

/** An error as a history line names it: its class, or its message when it has none. */
const nameOf = (error: { error_class: string; message: string }) => error.error_class || error.message || 'an error'

/** One change in words: "Ada fixed this", "Reopened automatically by a new event", "Ada merged TypeError into this". */
export function describeStatusChange(change: ErrorStatusChange): string {
  if (change.reason === 'event') return 'Reopened automatically by a new event'
  if (change.reason === 'snooze_rule') return 'Snooze rule met: reopened automatically'
  const who = change.actor?.name || change.actor?.email || 'Someone'
  if (change.merge) {
    const { into, merged } = change.merge
    const isInto = change.error_id === into.id
    if (change.reason === 'merge') return isInto ? `${who} merged ${nameOf(merged)} into this` : `${who} merged this into ${nameOf(into)}`
    return isInto ? `${who} unmerged ${nameOf(merged)} from this` : `${who} unmerged this from ${nameOf(into)}`
  }
  if (!change.to_status) return `${who} changed this`
  const rule = change.to_status === 'snoozed' ? describeReopenRules(change.reopen_rules) : null
  return `${who} ${VERBS[change.to_status]} this${rule ? ` ${rule}` : ''}`
}

/** Who changed the error's status and when, newest first; automatic changes say why. */
export function StatusHistory({ projectId, errorId }: { projectId: string; errorId: string }) {
  const query = useQuery(errorStatusChangesQuery(projectId, errorId))
  return (
    <Card aria-labelledby="status-history-title">
      <CardHeader>
        <CardTitle id="status-history-title" className="flex items-center gap-1.5">
          <History aria-hidden="true" className="size-4" />
          Status history
        </CardTitle>
      </CardHeader>
      <CardContent>
        {query.isPending ? (
          <div role="status" className="flex flex-col gap-2">
            <span className="sr-only">Loading status history</span>
            <Skeleton className="h-4 w-2/3" />
            <Skeleton className="h-4 w-1/2" />
          </div>
        ) : query.isError ? (
          <ErrorState title="Could not load the status history" error={query.error} onRetry={() => void query.refetch()} />
        ) : query.data.length === 0 ? (
          <p className="text-sm text-muted-foreground">No status changes yet.</p>
        ) : (
          <ol aria-label="Status changes" className="flex flex-col gap-2">
            {query.data.map((change) => (
              <li key={change.id} className="text-sm">
                <span>{describeStatusChange(change)}</span>
                <span className="text-muted-foreground">
                  {' · '}
                  <RelativeTime value={change.created_at} />
                </span>
              </li>
            ))}
          </ol>
        )}
      </CardContent>
    </Card>
  )
}
