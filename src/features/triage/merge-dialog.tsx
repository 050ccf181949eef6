import { useMutation } from '@tanstack/react-query'
import { useId, useState, type FormEvent } from 'react'
import { MAX_BULK_ERROR_IDS, type ErrorGroup } from '../../../contract/errors.ts'
import { mergeErrorsMutation } from '../../api/error-merges.ts'
import { Button } from '../../components/ui/button.tsx'
import { Dialog } from '../../components/ui/dialog.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { errorClassLabel } from '../../lib/error-class.ts'
import { formatCountOf } from '../../lib/relative-time.ts'

/**
 * Merge the selected errors into one: choose the error that stays (the first selected unless
 * changed); the others' events, users and history then count on it, until it is unmerged.
 */
export function MergeDialog({
  projectId,
  errors,
  open,
  onClose,
  onMerged,
}: {
  projectId: string
  /** The selected errors, in the order they were selected. */
  errors: readonly ErrorGroup[]
  open: boolean
  onClose: () => void
  /** After the server merged them: the error that stayed. */
  onMerged: (into: ErrorGroup, mergedCount: number) => void
}) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={`Merge ${errors.length} errors`}
      description="Their events, users and trends count on the error that stays. Comments and history stay with each error, and you can unmerge them later from that error's page."
    >
      <MergeForm projectId={projectId} errors={errors} onCancel={onClose} onMerged={onMerged} />
    </Dialog>
  )
}

function MergeForm({
  projectId,
  errors,
  onCancel,
  onMerged,
}: {
  projectId: string
  errors: readonly ErrorGroup[]
  onCancel: () => void
  onMerged: (into: ErrorGroup, mergedCount: number) => void
}) {
  const id = useId()
  const [intoId, setIntoId] = useState(errors[0]?.id ?? '')
  const merge = useMutation(mergeErrorsMutation(projectId))
  const tooMany = errors.length > MAX_BULK_ERROR_IDS

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const mergedIds = errors.map((e) => e.id).filter((e) => e !== intoId)
    merge.mutate(
      { intoId, mergedIds },
      {
        onSuccess: (results) => {
          const into = results.find((r) => r.id === intoId)?.error
          if (into) onMerged(into, mergedIds.length)
        },
      },
    )
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" aria-busy={merge.isPending || undefined}>
      <fieldset className="flex min-w-0 flex-col gap-1">
        <legend className="mb-1 text-sm font-medium">Error that stays</legend>
        <ul className="flex max-h-80 flex-col gap-1 overflow-y-auto">
          {errors.map((error, index) => (
            <li key={error.id}>
              <label
                htmlFor={`${id}-${error.id}`}
                className="flex cursor-pointer items-start gap-2 rounded-md border border-border px-3 py-2 has-[:checked]:border-accent has-[:checked]:bg-accent-soft/40"
              >
                <input
                  id={`${id}-${error.id}`}
                  type="radio"
                  name={`${id}-into`}
                  value={error.id}
                  className="mt-1 shrink-0"
                  checked={intoId === error.id}
                  onChange={() => setIntoId(error.id)}
                  data-autofocus={index === 0 ? '' : undefined}
                />
                <span className="flex min-w-0 flex-1 flex-col">
                  <span className="truncate font-mono text-sm font-medium">{errorClassLabel(error.error_class)}</span>
                  <span className="truncate text-sm text-muted-foreground">{error.message || 'No message'}</span>
                </span>
                <span className="shrink-0 text-sm tabular-nums text-muted-foreground">{formatCountOf(error.events, 'event')}</span>
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
      {tooMany ? (
        <p role="alert" className="text-sm text-danger">
          Select at most {MAX_BULK_ERROR_IDS} errors to merge at once.
        </p>
      ) : null}
      <FormErrors error={merge.error} />
      <div className="flex justify-end gap-2">
        <Button type="button" variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" variant="primary" disabled={merge.isPending || tooMany || errors.length < 2}>
          {merge.isPending ? 'Merging…' : `Merge ${errors.length} errors`}
        </Button>
      </div>
    </form>
  )
}
