import { useMutation, useQuery } from '@tanstack/react-query'
import { FileDown, ShieldCheck, Trash2 } from 'lucide-react'
import { useMemo, useState } from 'react'
import type * as React from 'react'
import type { Filters } from '../../../contract/filters.ts'
import type { EventDataDeletion } from '../../../contract/privacy.ts'
import { completedDeletions, createPrivacyRequestMutation, deletionsQuery, PRIVACY_LIST_SIZE, retrievalsQuery, type PrivacyScope } from '../../api/privacy.ts'
import { Button } from '../../components/ui/button.tsx'
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { PageHeader } from '../../components/ui/page-header.tsx'
import { LoadingRegion, Skeleton } from '../../components/ui/skeleton.tsx'
import { EmptyState, ErrorState } from '../../components/ui/states.tsx'
import { announce } from '../../lib/announce.ts'
import { useDebouncedValue } from '../../lib/use-debounced-value.ts'
import { ConfirmDeletionDialog } from './confirm-deletion-dialog.tsx'
import { mergeRequests, RequestsList } from './requests-list.tsx'
import { SelectionForm } from './selection-form.tsx'
import { SelectionPreview } from './selection-preview.tsx'
import { hasSelection } from './to-privacy-selection.ts'

/** Typing settles this long before the count is asked for. */
const PREVIEW_DEBOUNCE_MS = 400

function Requests({
  scope,
  projectNames,
  onConfirm,
}: {
  scope: PrivacyScope
  projectNames: ReadonlyMap<string, string>
  onConfirm: (deletion: EventDataDeletion) => void
}) {
  // Each list polls on its own while one of its requests is under way, and stops once all are final.
  const deletions = useQuery(deletionsQuery(scope))
  const retrievals = useQuery(retrievalsQuery(scope, completedDeletions(deletions.data)))
  const items = useMemo(
    () => mergeRequests(retrievals.data?.items ?? [], deletions.data?.items ?? []),
    [retrievals.data, deletions.data],
  )
  if (retrievals.isPending || deletions.isPending) {
    return (
      <LoadingRegion label="Loading the requests" className="flex flex-col gap-2 p-4">
        <Skeleton className="h-12 w-full" />
        <Skeleton className="h-12 w-full" />
      </LoadingRegion>
    )
  }
  if (retrievals.isError || deletions.isError) {
    return (
      <ErrorState
        className="m-4"
        title="Could not load the requests"
        error={retrievals.error ?? deletions.error}
        onRetry={() => {
          void retrievals.refetch()
          void deletions.refetch()
        }}
      />
    )
  }
  const more = (retrievals.data.totalCount ?? 0) + (deletions.data.totalCount ?? 0) - items.length
  return (
    <>
      <RequestsList items={items} projectNames={projectNames} onConfirm={onConfirm} />
      {more > 0 ? (
        <p className="border-t border-border px-4 py-2 text-xs text-muted-foreground">
          The newest {PRIVACY_LIST_SIZE} exports and {PRIVACY_LIST_SIZE} deletions are shown; {more} older ones are kept too.
        </p>
      ) : null}
    </>
  )
}

/**
 * The privacy officer's page, for an organization or one project: find a person's events (with
 * a live count and the newest few), export them, delete them after confirming the count, and
 * see every request with who made it and when. The selection lives in the URL (`f`).
 */
export function PrivacyPage({
  scope,
  scopeName,
  projectNames,
  isAdmin,
  filters,
  onFiltersChange,
  nav,
}: {
  /** Above the heading: the project's tabs on a project's page. */
  nav?: React.ReactNode
  scope: PrivacyScope
  /** The organization's or the project's name. */
  scopeName: string
  projectNames: ReadonlyMap<string, string>
  isAdmin: boolean
  filters: Filters
  onFiltersChange: (next: Filters) => void
}) {
  const [confirming, setConfirming] = useState<EventDataDeletion | null>(null)
  const previewFilters = useDebouncedValue(filters, PREVIEW_DEBOUNCE_MS)
  const selected = hasSelection(filters)
  const exportData = useMutation({
    ...createPrivacyRequestMutation(scope),
    onSuccess: () => announce('Export requested; its file will be listed under Requests when ready'),
  })
  const prepareDeletion = useMutation({
    ...createPrivacyRequestMutation(scope),
    onSuccess: () => announce('Deletion requested; its events are being counted'),
  })
  const where = scope.kind === 'organization' ? `every project of ${scopeName}` : scopeName

  return (
    <div className="flex flex-col gap-6">
      {nav}
      <PageHeader
        spacing="none"
        title={`${scopeName}: privacy requests`}
        description={`Find a person’s events in ${where}, export them for an access request (GDPR, CCPA) or delete them for good.`}
      />
      {!isAdmin ? (
        <EmptyState title="Only organization admins can make privacy requests">
          Exports and deletions of event data are for the admins of the organization. Ask one of them.
        </EmptyState>
      ) : (
        <>
          <Card aria-labelledby="privacy-selection-title">
            <CardHeader>
              <CardTitle id="privacy-selection-title">Whose events</CardTitle>
            </CardHeader>
            <CardContent className="flex flex-col gap-4">
              <SelectionForm filters={filters} onChange={onFiltersChange} />
              {selected ? (
                <SelectionPreview scope={scope} filters={previewFilters} projectNames={projectNames} onFiltersChange={onFiltersChange} />
              ) : (
                <p className="flex items-center gap-2 text-sm text-muted-foreground">
                  <ShieldCheck aria-hidden="true" className="size-4 shrink-0" />
                  Enter a user id, an email or a name to see how many events match.
                </p>
              )}
              <div className="flex flex-col gap-2 border-t border-border pt-4">
                <div className="flex flex-wrap gap-2">
                  <Button variant="primary" disabled={!selected || exportData.isPending} onClick={() => exportData.mutate({ kind: 'retrieval', filters })}>
                    <FileDown aria-hidden="true" />
                    {exportData.isPending ? 'Requesting export…' : 'Export their data'}
                  </Button>
                  <Button
                    variant="danger-outline"
                    disabled={!selected || prepareDeletion.isPending}
                    onClick={() => prepareDeletion.mutate({ kind: 'deletion', filters })}
                  >
                    <Trash2 aria-hidden="true" />
                    {prepareDeletion.isPending ? 'Requesting deletion…' : 'Delete their events…'}
                  </Button>
                </div>
                <p className="text-xs text-muted-foreground">
                  An export is a JSON lines file of every matching event, with its user, device and metadata, kept for 7
                  days. A deletion first counts the matching events; nothing is deleted until you confirm that count.
                </p>
                <FormErrors error={exportData.error ?? prepareDeletion.error} />
              </div>
            </CardContent>
          </Card>

          <Card aria-labelledby="privacy-requests-title">
            <CardHeader>
              <CardTitle id="privacy-requests-title">Requests</CardTitle>
            </CardHeader>
            <Requests scope={scope} projectNames={projectNames} onConfirm={setConfirming} />
          </Card>
        </>
      )}
      {confirming ? <ConfirmDeletionDialog scope={scope} deletion={confirming} onClose={() => setConfirming(null)} /> : null}
    </div>
  )
}
