import { useMutation, type UseMutationOptions } from '@tanstack/react-query'
import type { ErrorGroup, ErrorOperation } from '../../../contract/errors.ts'
import { bulkErrorOperationMutation, errorOperationMutation, type BulkOutcome } from '../../api/errors.ts'
import { announce } from '../../lib/announce.ts'
import { showToast } from '../../lib/toast.ts'
import { messageOf, OPERATION_VERBS, PAST } from './operation-words.ts'
import { toUndoOperations, type UndoStep } from './to-undo-operations.ts'

/** How long the Undo toast stays: long enough to notice the rows that left the list. */
const UNDO_TOAST_MS = 10_000

/** The changes a toast with Undo reports; the others are announced to screen readers only (a badge changes). */
const UNDOABLE: ReadonlySet<ErrorOperation['operation']> = new Set([
  'fix',
  'open',
  'ignore',
  'snooze',
  'assign',
  'discard',
  'undiscard',
  'link_issue',
  'unlink_issue',
])

const errorsWord = (n: number) => (n === 1 ? 'Error' : `${n} errors`)

export interface RunOptions {
  /** Send even one error through the bulk PATCH (a selection: its failures come back per error). */
  asSelection?: boolean
  /** After the server answered, with the errors it did not change (a bulk answer's failures). */
  onDone?: (outcome: { failedIds: string[] }) => void
}

/**
 * Triage operations with Undo: a status change, an assignment, a discard or an issue link, on one error or many, shows a
 * toast whose Undo asks the server to take it back (revert_status restores the status with the
 * snooze rule and its counters as they were; an assignment is assigned back), so the change is
 * undone for everyone, not only in this tab's cache. The toasts and announcements are all here:
 * a refused change (rolled back by the mutation) says why, a bulk change says how many failed.
 */
export function useTriageOperations(projectId: string) {
  const single = useOperationWithToasts(errorOperationMutation(projectId), ({ operation }) => [operation, 1])
  const bulk = useBulkOperationWithToasts(projectId)
  const undoOne = useOperationWithToasts(errorOperationMutation(projectId), ({ operation }) => [operation, 1])
  const undoMany = useBulkOperationWithToasts(projectId)

  const runUndo = async (steps: readonly UndoStep[]) => {
    let restored = 0
    for (const step of steps) {
      try {
        if (step.errorIds.length === 1) {
          await undoOne.mutateAsync({ errorId: step.errorIds[0]!, operation: step.operation })
          restored += 1
        } else {
          const outcome: BulkOutcome = await undoMany.mutateAsync({ errorIds: step.errorIds, operation: step.operation })
          restored += outcome.results.length - outcome.failed.length
        }
      } catch {
        // The mutation's own toast said why.
      }
    }
    if (restored > 0) announce(`Undone: ${restored === 1 ? '1 error' : `${restored} errors`} restored`)
  }

  const offerUndo = (operation: ErrorOperation, before: ReadonlyMap<string, ErrorGroup>, changedIds: readonly string[]) => {
    const count = changedIds.length
    if (count === 0) return
    const title = `${errorsWord(count)} ${PAST[operation.operation]}`
    // The toast is a live region itself: announcing as well would say it twice.
    if (!UNDOABLE.has(operation.operation)) {
      announce(title)
      return
    }
    const steps = toUndoOperations(operation, before, changedIds)
    showToast(
      {
        title,
        ...(steps.length > 0 ? { action: { label: 'Undo', onClick: () => void runUndo(steps) } } : {}),
      },
      UNDO_TOAST_MS,
    )
  }

  /** One operation on these errors: the single PATCH for one error, the bulk one for several. */
  const run = (errorIds: readonly string[], operation: ErrorOperation, options: RunOptions = {}) => {
    if (errorIds.length === 0) return
    if (errorIds.length === 1 && !options.asSelection) {
      single.mutate(
        { errorId: errorIds[0]!, operation },
        {
          onSuccess: (_updated, _variables, context) => {
            offerUndo(operation, context?.previous ?? new Map(), errorIds)
            options.onDone?.({ failedIds: [] })
          },
        },
      )
      return
    }
    bulk.mutate(
      { errorIds, operation },
      {
        onSuccess: ({ results, failed }, _variables, context) => {
          const failedIds = failed.map((result) => result.id)
          offerUndo(
            operation,
            context?.previous ?? new Map(),
            results.filter((result) => result.status === 'updated').map((result) => result.id),
          )
          options.onDone?.({ failedIds })
        },
      },
    )
  }

  return { run, pending: single.isPending || bulk.isPending, bulkPending: bulk.isPending }
}

/**
 * A status mutation whose refusal shows in a toast naming the operation (the mutation has rolled
 * its optimistic change back by then: its own onError runs first).
 */
function useOperationWithToasts<TData, TVariables, TContext>(
  options: UseMutationOptions<TData, Error, TVariables, TContext>,
  describe: (variables: TVariables) => [ErrorOperation, number],
) {
  return useMutation({
    ...options,
    onError: (error, variables, context, mutationContext) => {
      void options.onError?.(error, variables, context, mutationContext)
      const [operation, count] = describe(variables)
      showToast({
        title: `Could not ${OPERATION_VERBS[operation.operation]} ${count === 1 ? 'the error' : `${count} errors`}`,
        description: messageOf(error),
      })
    },
  })
}

/** The bulk mutation, whose answer may also list errors the server did not change: how many, and why. */
function useBulkOperationWithToasts(projectId: string) {
  const options = bulkErrorOperationMutation(projectId)
  return useOperationWithToasts(
    {
      ...options,
      onSuccess: (outcome, variables, context, mutationContext) => {
        void options.onSuccess?.(outcome, variables, context, mutationContext)
        const { results, failed } = outcome
        if (failed.length === 0) return
        const reasons = [...new Set(failed.flatMap((r) => (r.errors.length > 0 ? r.errors : [r.status === 'not_found' ? 'not found' : 'failed'])))]
        showToast({
          title: `${failed.length} of ${results.length} errors were not ${PAST[variables.operation.operation]}`,
          description: reasons.join('\n'),
        })
      },
    },
    ({ operation, errorIds }) => [operation, errorIds.length],
  )
}
