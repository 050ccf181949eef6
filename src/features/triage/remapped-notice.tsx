import { useMutation, useQuery, type UseMutationResult } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { FileCode2 } from 'lucide-react'
import { useState } from 'react'
import type { ErrorGroup, RemappedError } from '../../../contract/errors.ts'
import { mergeErrorsMutation } from '../../api/error-merges.ts'
import { errorRemappedQuery } from '../../api/errors.ts'
import { Button } from '../../components/ui/button.tsx'
import { Dialog } from '../../components/ui/dialog.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { errorClassLabel } from '../../lib/error-class.ts'
import { showToast } from '../../lib/toast.ts'

type MappedError = NonNullable<RemappedError['mapped_error']>

/**
 * On an error whose events arrived before their source map: says the map exists now, names the
 * error new (mapped) events group as, and offers to merge this one into it. Optional
 * information: while loading, on failure, or when no map applies, it shows nothing.
 */
export function RemappedNotice({ projectId, error }: { projectId: string; error: ErrorGroup }) {
  const remapped = useQuery({ ...errorRemappedQuery(projectId, error.id), enabled: !error.merged_into_id })
  const mapped = remapped.data?.mapped_error ?? null
  const navigate = useNavigate()
  // Here, with its callbacks in its options: the refetch after the merge marks this error merged,
  // which unmounts the dialog before a mutate() call's own callbacks would run.
  const merge = useMutation({
    ...mergeErrorsMutation(projectId),
    onSuccess: (_results, { intoId }) => {
      showToast({ title: `Merged into ${errorClassLabel(mapped?.error_class ?? '')}` })
      void navigate({ to: '/projects/$projectId/errors/$errorId', params: { projectId, errorId: intoId } })
    },
  })
  if (error.merged_into_id || !remapped.data?.map_available) return null
  return (
    <div role="note" aria-label="Source map uploaded" className="flex flex-wrap items-center gap-x-2 gap-y-2 rounded-md border border-border bg-accent-soft/40 px-4 py-2 text-sm">
      <span className="flex min-w-0 flex-1 basis-64 items-start gap-2">
        <FileCode2 aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
        <span className="min-w-0">
          A source map for these frames has been uploaded since these events arrived.{' '}
          {mapped ? (
            <>
              New events group as{' '}
              <Link
                to="/projects/$projectId/errors/$errorId"
                params={{ projectId, errorId: mapped.id }}
                className="font-mono font-medium break-all text-accent underline-offset-4 hover:underline"
              >
                {errorClassLabel(mapped.error_class)}
              </Link>
              {mapped.message ? <span className="text-muted-foreground"> ({mapped.message})</span> : null}.
            </>
          ) : (
            'New events will be mapped.'
          )}
        </span>
      </span>
      {mapped ? <MergeIntoMapped mapped={mapped} merge={merge} onConfirm={() => merge.mutate({ intoId: mapped.id, mergedIds: [error.id] })} /> : null}
    </div>
  )
}

/** Asks before merging this error into the mapped one (which stays). */
function MergeIntoMapped({
  mapped,
  merge,
  onConfirm,
}: {
  mapped: MappedError
  merge: Pick<UseMutationResult, 'error' | 'isPending'>
  onConfirm: () => void
}) {
  const [confirming, setConfirming] = useState(false)
  return (
    <>
      <Button size="sm" className="ml-auto" onClick={() => setConfirming(true)}>
        Merge into that error…
      </Button>
      <Dialog
        open={confirming}
        onClose={() => setConfirming(false)}
        title="Merge into the error new events group as?"
        description={`This error's events, users and trends then count on ${errorClassLabel(mapped.error_class)}, which stays. Its events keep their frames as they arrived; you can unmerge it later from that error's page.`}
      >
        <div className="flex flex-col gap-4">
          <FormErrors error={merge.error} />
          <div className="flex justify-end gap-2">
            <Button variant="ghost" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button variant="primary" disabled={merge.isPending} onClick={onConfirm} data-autofocus="">
              {merge.isPending ? 'Merging…' : 'Merge into that error'}
            </Button>
          </div>
        </div>
      </Dialog>
    </>
  )
}
