import { useMutation } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { Merge } from 'lucide-react'
import { useState } from 'react'
import type { ErrorGroup } from '../../../contract/errors.ts'
import { unmergeErrorMutation } from '../../api/error-merges.ts'
import { Button } from '../../components/ui/button.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { Dialog } from '../../components/ui/dialog.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { errorClassLabel } from '../../lib/error-class.ts'
import { formatCountOf } from '../../lib/relative-time.ts'
import { showToast } from '../../lib/toast.ts'

/** On the page of an error merged into another: where its events are now. */
export function MergedIntoNotice({ projectId, error }: { projectId: string; error: ErrorGroup }) {
  if (!error.merged_into_id) return null
  return (
    <div role="note" className="flex flex-wrap items-center gap-x-2 gap-y-1 rounded-md border border-border bg-accent-soft/40 px-4 py-2 text-sm">
      <Merge aria-hidden="true" className="size-4 shrink-0" />
      <span>This error is merged into another: its events, users and trends count there, new ones too.</span>
      <Link
        to="/projects/$projectId/errors/$errorId"
        params={{ projectId, errorId: error.merged_into_id }}
        className="font-medium text-accent underline-offset-4 hover:underline"
      >
        Open the error it is merged into
      </Link>
    </div>
  )
}

/** The errors merged into this one, with their events here, and Unmerge (after a confirmation). */
export function MergedErrors({ projectId, error }: { projectId: string; error: ErrorGroup }) {
  const [confirming, setConfirming] = useState(false)
  // Here, not in the dialog: the refetch after it empties this list and unmounts the dialog
  // before the mutation's own callbacks run.
  const unmerge = useMutation(unmergeErrorMutation(projectId))
  const merged = error.merged_errors ?? []
  const count = formatCountOf(merged.length, 'error')
  const confirm = () =>
    unmerge.mutate(
      { errorId: error.id, mergedIds: merged.map((m) => m.id) },
      {
        onSuccess: () => {
          setConfirming(false)
          showToast({ title: `${count} unmerged` })
        },
      },
    )
  if (merged.length === 0) return null
  return (
    <Card aria-labelledby="merged-errors-title">
      <CardHeader>
        <CardTitle id="merged-errors-title" className="flex items-center gap-1.5">
          <Merge aria-hidden="true" className="size-4" />
          Merged into this error
        </CardTitle>
        <Button size="sm" onClick={() => setConfirming(true)}>
          Unmerge…
        </Button>
      </CardHeader>
      <CardContent>
        <ul aria-label="Merged errors" className="flex flex-col gap-2">
          {merged.map((m) => (
            <li key={m.id} className="flex min-w-0 flex-col text-sm">
              <Link
                to="/projects/$projectId/errors/$errorId"
                params={{ projectId, errorId: m.id }}
                className="truncate font-mono font-medium text-accent underline-offset-4 hover:underline"
              >
                {errorClassLabel(m.error_class)}
              </Link>
              <span className="truncate text-muted-foreground">{m.message || 'No message'}</span>
              <span className="text-xs text-muted-foreground tabular-nums">
                {formatCountOf(m.events, 'event')} · merged <RelativeTime value={m.merged_at} />
              </span>
            </li>
          ))}
        </ul>
      </CardContent>
      <Dialog
        open={confirming}
        onClose={() => setConfirming(false)}
        title={`Unmerge ${count}?`}
        description="Each gets back its own events (new ones included), users and trends, and is listed again with its own status."
      >
        <div className="flex flex-col gap-4">
          <FormErrors error={unmerge.error} />
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button variant="primary" disabled={unmerge.isPending} onClick={confirm}>
              {unmerge.isPending ? 'Unmerging…' : `Unmerge ${count}`}
            </Button>
          </div>
        </div>
      </Dialog>
    </Card>
  )
}
