import { useMutation, useQuery } from '@tanstack/react-query'
import type { EventDataDeletion } from '../../../contract/privacy.ts'
import { confirmDeletionMutation, privacyPreviewQuery, type PrivacyScope } from '../../api/privacy.ts'
import { announce } from '../../lib/announce.ts'
import { formatCountOf } from '../../lib/relative-time.ts'
import { DeleteByNameDialog } from '../settings/delete-by-name-dialog.tsx'
import { listPeople, manyPeopleWarning } from './to-people-summary.ts'
import { describeSelection } from './to-privacy-selection.ts'

/**
 * Confirms a counted deletion: the count must be typed, so the number deleted is the number the
 * officer read. The API's confirm takes no body; the count is checked here, where it is read.
 */
export function ConfirmDeletionDialog({
  scope,
  deletion,
  onClose,
}: {
  scope: PrivacyScope
  deletion: EventDataDeletion
  onClose: () => void
}) {
  const total = deletion.total ?? 0
  // Whose events these are now: a substring that caught several people is said before the count is typed.
  const people = useQuery({ ...privacyPreviewQuery(scope, deletion.filters), enabled: !deletion.all_events }).data?.people
  const warning = people ? manyPeopleWarning(people) : null
  const confirm = useMutation({
    ...confirmDeletionMutation(scope),
    onSuccess: () => {
      announce(`Deletion confirmed: deleting ${formatCountOf(total, 'event')}`)
      onClose()
    },
  })
  return (
    <DeleteByNameDialog
      title={`Delete ${formatCountOf(total, 'event')} for good?`}
      description={
        <>
          Every event matching <strong className="font-medium text-foreground [overflow-wrap:anywhere]">{describeSelection(deletion.filters, deletion.all_events)}</strong>{' '}
          received until now is deleted, with its payload, and taken out of every count, trend and
          pivot. Errors left without events are removed, and earlier exports in this scope are
          deleted too. This cannot be undone.
          {warning ? (
            <span role="alert" className="mt-2 block rounded-md border border-warning/60 bg-warning/10 px-3 py-2 text-foreground [overflow-wrap:anywhere]">
              {warning}
            </span>
          ) : people && people.total === 1 ? (
            <span className="mt-2 block text-foreground [overflow-wrap:anywhere]">
              One person: {listPeople(people)}.
            </span>
          ) : null}
        </>
      }
      name={String(total)}
      confirmLabel="Delete events"
      pending={confirm.isPending}
      error={confirm.error}
      onConfirm={() => confirm.mutate(deletion.id)}
      onCancel={onClose}
    />
  )
}
