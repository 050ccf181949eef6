import type * as React from 'react'
import type { ErrorGroup } from '../../../contract/errors.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { Card, CardContent } from '../../components/ui/card.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { TruncatedHeading, TruncatedText } from '../../components/ui/truncated-text.tsx'
import { formatCount } from '../../lib/relative-time.ts'
import { DiscardedBadge, ErrorStatusBadge, SeverityIndicator } from './error-badges.tsx'
import { useDocumentTitle } from '../../lib/use-document-title.ts'
import { errorClassLabel } from '../../lib/error-class.ts'
import { sortVersions } from '../../../contract/versions.ts'

/** What each grouping rule means to a person reading the error (docs/grouping.md). */
const GROUPING_REASON_LABELS: Record<ErrorGroup['grouping_reason'], string> = {
  grouping_hash: 'Custom grouping hash from the notifier',
  in_project_frame: 'Error class and first in-project frame',
  top_frame: 'Error class and top stack frame',
  error_class_and_message: 'Error class and message',
}

function Stat({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="text-lg font-semibold tabular-nums">{children}</dd>
    </div>
  )
}

function TagList({ label, values }: { label: string; values: readonly string[] }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="mt-1 flex flex-wrap gap-1">
        {values.length === 0 ? <span className="text-sm text-muted-foreground">—</span> : null}
        {values.map((value) => (
          <Badge key={value} className="max-w-full truncate" title={value}>
            {value}
          </Badge>
        ))}
      </dd>
    </div>
  )
}

/** The error group: what it is, its status, how often and for how many people it happens. */
export function ErrorSummary({ error }: { error: ErrorGroup }) {
  useDocumentTitle(errorClassLabel(error.error_class))
  return (
    <div className="flex flex-col gap-4">
      <div className="min-w-0">
        <div className="flex flex-wrap items-center gap-2">
          {/* A class may be thousands of characters: the heading keeps the first ones, the actions stay in view. */}
          <TruncatedHeading as="h1" text={errorClassLabel(error.error_class)} what="the error class" className="font-mono text-xl font-semibold">
            <ErrorStatusBadge error={error} />
            <SeverityIndicator severity={error.severity} />
            {error.severity_override ? <span className="text-xs text-muted-foreground">(set by hand)</span> : null}
            {error.unhandled ? <Badge tone="danger">unhandled</Badge> : null}
            <DiscardedBadge error={error} />
          </TruncatedHeading>
        </div>
        <p className="mt-1 text-sm">
          {error.message ? <TruncatedText text={error.message} maxChars={500} /> : <span className="text-muted-foreground italic">(no message)</span>}
        </p>
        {error.context ? (
          <p className="mt-1 font-mono text-xs text-muted-foreground">
            <TruncatedText text={error.context} maxChars={200} />
          </p>
        ) : null}
        {error.linked_issues.map((issue) => (
          <p key={issue.url} className="mt-1 text-sm">
            <span className="text-muted-foreground">Linked issue: </span>
            {/* The URL is the user's own text: a link out, never markup, with no referrer. */}
            <a href={issue.url} rel="noreferrer noopener" target="_blank" className="text-accent underline-offset-2 hover:underline [overflow-wrap:anywhere]">
              {issue.url}
            </a>
          </p>
        ))}
        {error.discarded ? (
          <p className="mt-1 text-sm text-muted-foreground">
            Discarded: new events are counted ({error.discarded_events.toLocaleString()} so far) and not stored.
          </p>
        ) : null}
      </div>
      <Card>
        <CardContent>
          <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4">
            <Stat label="Events">{formatCount(error.events)}</Stat>
            <Stat label="Users">{formatCount(error.users)}</Stat>
            <Stat label="First seen">
              <RelativeTime value={error.first_seen} className="text-base" />
              {error.first_release ? (
                <span className="block text-xs font-normal text-muted-foreground">
                  in <span className="font-mono">{error.first_release.app_version}</span> ({error.first_release.release_stage})
                </span>
              ) : null}
            </Stat>
            <Stat label="Last seen">
              <RelativeTime value={error.last_seen} className="text-base" />
            </Stat>
          </dl>
          <dl className="mt-4 grid gap-4 border-t border-border pt-4 sm:grid-cols-3">
            <TagList label="Release stages" values={error.release_stages} />
            <TagList label="App versions" values={sortVersions(error.app_versions)} />
            <div className="min-w-0">
              <dt className="text-xs text-muted-foreground">Grouped by</dt>
              <dd className="mt-1 text-sm">{GROUPING_REASON_LABELS[error.grouping_reason]}</dd>
            </div>
          </dl>
        </CardContent>
      </Card>
    </div>
  )
}
