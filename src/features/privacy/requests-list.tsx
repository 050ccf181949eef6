import { useMutation } from '@tanstack/react-query'
import { Download, FileDown, Trash2 } from 'lucide-react'
import type * as React from 'react'
import type { EventDataDeletion, EventDataRequest, PrivacyActor } from '../../../contract/privacy.ts'
import { downloadRetrievalMutation } from '../../api/privacy.ts'
import { Button } from '../../components/ui/button.tsx'
import { FormErrors } from '../../components/ui/form-errors.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { EmptyState } from '../../components/ui/states.tsx'
import { formatCountOf, formatExactTime } from '../../lib/relative-time.ts'
import { useNow } from '../../lib/use-now.ts'
import { RequestStatus } from './request-status.tsx'
import { describeSelection } from './to-privacy-selection.ts'

export type PrivacyRequestItem = { kind: 'retrieval'; request: EventDataRequest } | { kind: 'deletion'; request: EventDataDeletion }

/** Retrievals and deletions in one list, newest first. */
export function mergeRequests(retrievals: readonly EventDataRequest[], deletions: readonly EventDataDeletion[]): PrivacyRequestItem[] {
  const items: PrivacyRequestItem[] = [
    ...retrievals.map((request) => ({ kind: 'retrieval' as const, request })),
    ...deletions.map((request) => ({ kind: 'deletion' as const, request })),
  ]
  return items.sort((a, b) =>
    a.request.created_at === b.request.created_at ? (a.request.id < b.request.id ? 1 : -1) : a.request.created_at < b.request.created_at ? 1 : -1,
  )
}

const DAY_MS = 86_400_000

const person = (actor: PrivacyActor) => (actor.name ? `${actor.name} (${actor.email})` : actor.email)

function Meta({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex min-w-0 gap-1">
      <dt className="shrink-0 text-muted-foreground">{label}</dt>
      <dd className="min-w-0 [overflow-wrap:anywhere]">{children}</dd>
    </div>
  )
}

/** What the request found or did, in words. */
function progressText(item: PrivacyRequestItem): string {
  if (item.kind === 'retrieval') {
    const r = item.request
    if (r.status === 'PREPARING') return 'Collecting events…'
    return r.total === null ? '' : formatCountOf(r.total, 'event')
  }
  const d = item.request
  switch (d.status) {
    case 'PREPARING':
      return 'Counting events…'
    case 'AWAITING_CONFIRMATION':
      return `${formatCountOf(d.total ?? 0, 'event')} to delete`
    case 'ACCEPTED':
      return d.total === null ? `${formatCountOf(d.deleted_events, 'event')} deleted so far` : `${d.deleted_events.toLocaleString('en')} of ${formatCountOf(d.total, 'event')} deleted…`
    case 'COMPLETED':
      return `${formatCountOf(d.deleted_events, 'event')} deleted`
    case 'FAILED':
      return `${formatCountOf(d.deleted_events, 'event')} deleted before it failed`
  }
}

function FileState({ request, now }: { request: EventDataRequest; now: number }) {
  if (request.status !== 'COMPLETED' || !request.expires_at) return null
  if (request.file_removed === 'deleted') return <Meta label="File">removed by a later deletion</Meta>
  if (request.file_removed === 'expired' || Date.parse(request.expires_at) <= now) {
    return (
      <Meta label="File">
        expired <RelativeTime value={request.expires_at} />
      </Meta>
    )
  }
  // Whole days while there are some: "in 6 days" would read a fresh 7-day file as a day short.
  // The shared clock ticks twice a minute and may be older than the completion shown with it:
  // counted from then, a fresh 7-day file would read "8 more days".
  const from = Math.max(now, request.completed_at ? Date.parse(request.completed_at) : now)
  const daysLeft = Math.ceil((Date.parse(request.expires_at) - from) / DAY_MS)
  return (
    <Meta label="File">
      {daysLeft >= 2 ? (
        <span title={`until ${formatExactTime(request.expires_at)}`}>kept {daysLeft} more days</span>
      ) : (
        <>
          expires <RelativeTime value={request.expires_at} />
        </>
      )}
    </Meta>
  )
}

function DownloadButton({ request }: { request: EventDataRequest }) {
  const download = useMutation(downloadRetrievalMutation())
  return (
    <div className="flex flex-col items-start gap-2 sm:items-end">
      <Button size="sm" variant="primary" onClick={() => download.mutate(request)} disabled={download.isPending} aria-busy={download.isPending || undefined}>
        <Download aria-hidden="true" />
        {download.isPending ? 'Downloading…' : 'Download file'}
      </Button>
      <FormErrors error={download.error} />
    </div>
  )
}

function RequestRow({
  item,
  projectNames,
  onConfirm,
  now,
}: {
  item: PrivacyRequestItem
  projectNames: ReadonlyMap<string, string>
  onConfirm: (deletion: EventDataDeletion) => void
  now: number
}) {
  const r = item.request
  const kind = item.kind === 'retrieval' ? 'Export' : 'Deletion'
  const selection = describeSelection(r.filters, r.all_events)
  const where = r.project_id ? (projectNames.get(r.project_id) ?? 'one project') : 'all projects'
  const downloadable =
    item.kind === 'retrieval' && item.request.status === 'COMPLETED' && item.request.file_removed === null && item.request.expires_at !== null && Date.parse(item.request.expires_at) > now
  const retrying = r.status !== 'COMPLETED' && r.status !== 'FAILED' && r.last_error !== null
  return (
    <li className="flex flex-col gap-3 px-4 py-3 sm:flex-row sm:items-start sm:justify-between">
      <article aria-label={`${kind}: ${selection}`} className="flex min-w-0 flex-1 flex-col gap-1.5">
        <div className="flex flex-wrap items-center gap-2">
          {item.kind === 'retrieval' ? (
            <FileDown aria-hidden="true" className="size-4 text-muted-foreground" />
          ) : (
            <Trash2 aria-hidden="true" className="size-4 text-muted-foreground" />
          )}
          <h3 className="text-sm font-semibold">{kind}</h3>
          <RequestStatus status={r.status} />
          <span className="text-sm text-muted-foreground tabular-nums">{progressText(item)}</span>
        </div>
        <p className="text-sm [overflow-wrap:anywhere]">
          {selection} <span className="text-muted-foreground">· {where}</span>
        </p>
        <dl className="flex flex-col gap-0.5 text-xs sm:flex-row sm:flex-wrap sm:gap-x-4">
          <Meta label="Made by">
            {person(r.created_by)}, <RelativeTime value={r.created_at} />
          </Meta>
          {item.kind === 'deletion' && item.request.confirmed_by && item.request.confirmed_at ? (
            <Meta label="Confirmed by">
              {person(item.request.confirmed_by)}, <RelativeTime value={item.request.confirmed_at} />
            </Meta>
          ) : null}
          {r.completed_at && r.status === 'COMPLETED' ? (
            <Meta label="Completed">
              <RelativeTime value={r.completed_at} />
            </Meta>
          ) : null}
          {item.kind === 'deletion' && r.completed_at && r.status === 'AWAITING_CONFIRMATION' ? (
            <Meta label="Counted">
              <RelativeTime value={r.completed_at} />
            </Meta>
          ) : null}
          {item.kind === 'retrieval' ? <FileState request={item.request} now={now} /> : null}
        </dl>
        {r.status === 'FAILED' && r.failure ? <p className="text-sm text-danger [overflow-wrap:anywhere]">Failed: {r.failure}</p> : null}
        {retrying ? (
          <p className="text-xs text-warning [overflow-wrap:anywhere]">
            Retrying after attempt {r.attempts}: {r.last_error}
          </p>
        ) : null}
      </article>
      <div className="shrink-0">
        {downloadable && item.kind === 'retrieval' ? <DownloadButton request={item.request} /> : null}
        {item.kind === 'deletion' && item.request.status === 'AWAITING_CONFIRMATION' ? (
          <Button size="sm" variant="danger-outline" onClick={() => onConfirm(item.request as EventDataDeletion)}>
            <Trash2 aria-hidden="true" />
            Confirm deletion…
          </Button>
        ) : null}
      </div>
    </li>
  )
}

/** Every request of the scope with its state, who made it, its times and its selection. */
export function RequestsList({
  items,
  projectNames,
  onConfirm,
}: {
  items: readonly PrivacyRequestItem[]
  projectNames: ReadonlyMap<string, string>
  onConfirm: (deletion: EventDataDeletion) => void
}) {
  const now = useNow()
  if (items.length === 0) {
    return (
      <EmptyState className="m-4" title="No requests yet">
        Find a person’s events above, then export them or delete them. Every request is listed here with who made it.
      </EmptyState>
    )
  }
  return (
    <ul aria-label="Privacy requests" className="divide-y divide-border">
      {items.map((item) => (
        <RequestRow key={`${item.kind}-${item.request.id}`} item={item} projectNames={projectNames} onConfirm={onConfirm} now={now} />
      ))}
    </ul>
  )
}
