import { Link } from '@tanstack/react-router'
import type * as React from 'react'
import type { ErrorGroup } from '../../../contract/errors.ts'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { errorClassLabel } from '../../lib/error-class.ts'
import { formatCount, formatCountOf } from '../../lib/relative-time.ts'
import { sortVersions } from '../../../contract/versions.ts'
import { AssigneeLabel } from '../triage/assignee.tsx'
import { DiscardedBadge, ErrorStatusBadge, SeverityIndicator } from './error-badges.tsx'

/**
 * Columns from md up; the sparkline and first seen only from lg, where the class and message
 * still keep a readable width beside them. Below md, one meta line under the message.
 */
export const columns =
  'md:grid md:grid-cols-[minmax(0,1fr)_5rem_5rem_7rem] md:items-center md:gap-4 lg:grid-cols-[minmax(0,1fr)_5.5rem_5rem_5rem_7rem_7rem]'

export type ErrorPageSearch = { f: string[] | undefined }

/** The message as the row's link names it: its start, or that it has none. */
const linkMessage = (message: string) => (!message ? '(no message)' : message.length > 200 ? `${message.slice(0, 200)}…` : message)

/** A list of values as a row shows it: the first one or two, and how many more. */
const firstOf = (values: readonly string[], shown: number) =>
  values.length <= shown ? values.join(', ') : `${values.slice(0, shown).join(', ')} +${values.length - shown}`

export function ErrorRow({
  error,
  projectId,
  errorSearch,
  index,
  selected,
  onToggle,
  assignee,
  sparkline,
}: {
  error: ErrorGroup
  projectId: string
  /** The error page's search: the list's event filters. */
  errorSearch: ErrorPageSearch
  index: number
  selected: boolean
  onToggle: () => void
  assignee: string | null
  sparkline: React.ReactNode
}) {
  // Many rows can share a class ("Error"): the message tells their checkbox and link apart.
  const messageId = `error-message-${error.id}`
  const errorClass = errorClassLabel(error.error_class)
  // Under filters that select events (a time range, an event field) the server counts the matching events too.
  const scoped = error.matching_events !== undefined
  return (
    <div className="relative flex items-start gap-3 px-4 py-2 hover:bg-surface-muted">
      {/* Above the row-wide link overlay so it can be clicked. */}
      <input
        type="checkbox"
        className="relative z-10 mt-1 size-4 shrink-0"
        aria-label={`Select ${errorClass}`}
        aria-describedby={messageId}
        checked={selected}
        onChange={onToggle}
      />
      <div className={`min-w-0 flex-1 ${columns}`}>
        <div className="min-w-0">
          {/* Class and message on one line (the class is what a row is read by; the message cut
              first), then one line of what tells errors apart: status, handled, where, who. */}
          <div className="flex min-w-0 items-baseline gap-2">
            <Link
              to="/projects/$projectId/errors/$errorId"
              params={{ projectId, errorId: error.id }}
              search={errorSearch}
              data-row-index={index}
              // Read as the row is: class and message (its first 200 characters), so a list of links tells errors apart.
              aria-label={`${errorClass}: ${linkMessage(error.message)}`}
              className="max-w-full shrink-0 truncate rounded font-semibold text-foreground after:absolute after:inset-0 hover:underline focus-visible:-outline-offset-2"
            >
              {errorClass}
            </Link>
            <p id={messageId} className="min-w-0 flex-1 truncate text-sm text-foreground/90" title={error.message}>
              {error.message || <span className="text-muted-foreground italic">(no message)</span>}
            </p>
          </div>
          <div className="mt-0.5 flex min-w-0 flex-wrap items-center gap-x-2.5 gap-y-0.5 text-xs text-muted-foreground md:flex-nowrap">
            <ErrorStatusBadge error={error} dense className="shrink" />
            <DiscardedBadge error={error} dense />
            <SeverityIndicator severity={error.severity} fromMd className="shrink-0" />
            <span className={error.unhandled ? 'shrink-0 font-medium text-danger' : 'shrink-0'}>
              {error.unhandled ? 'unhandled' : 'handled'}
            </span>
            <ReleaseLabel error={error} />
            <AssigneeLabel name={assignee} />
            {error.context ? (
              <span className="min-w-0 truncate font-mono" title={error.context}>
                <span className="sr-only">context </span>
                {error.context}
              </span>
            ) : null}
          </div>
        </div>
        {/* Narrow screens: one meta line instead of columns. */}
        <p className="mt-0.5 flex flex-wrap gap-x-3 text-xs text-muted-foreground tabular-nums md:hidden">
          <SeverityIndicator severity={error.severity} />
          <span>
            {scoped
              ? `${formatCount(error.matching_events ?? 0)} matching of ${formatCountOf(error.events, 'event')}`
              : formatCountOf(error.events, 'event')}
          </span>
          <span>{`${formatCountOf(error.users, 'user')}${scoped ? ' in all' : ''}`}</span>
          <span>
            last <RelativeTime value={error.last_seen} />
          </span>
          <span>
            first <RelativeTime value={error.first_seen} />
          </span>
        </p>
        <div className="hidden justify-end lg:flex">{sparkline}</div>
        <EventsCount error={error} />
        <p className="hidden text-right text-sm tabular-nums md:block">
          {formatCount(error.users)}
          <span className="sr-only"> users</span>
          {/* Users are counted over the error's whole life, also under filters: say so where Events says "of N". */}
          {scoped ? <span className="block text-xs text-muted-foreground"> all time</span> : null}
        </p>
        <p className="hidden text-right text-xs text-muted-foreground lg:block">
          <span className="sr-only">first seen </span>
          <RelativeTime value={error.first_seen} />
        </p>
        <p className="hidden text-right text-xs text-muted-foreground md:block">
          <span className="sr-only">last seen </span>
          <RelativeTime value={error.last_seen} />
        </p>
      </div>
    </div>
  )
}

/**
 * Where the error was seen: its release stages (the first two, and how many more) and app
 * versions (the oldest…the newest as versions, not in the order they were first seen), each
 * labelled for screen readers.
 */
function ReleaseLabel({ error }: { error: ErrorGroup }) {
  const versions = sortVersions(error.app_versions)
  const newest = versions.at(-1)
  return (
    <>
      {error.release_stages.length > 0 ? (
        <span className="min-w-0 shrink-0 truncate" title={error.release_stages.join(', ')}>
          <span className="sr-only">release stages </span>
          {firstOf(error.release_stages, 2)}
        </span>
      ) : null}
      {newest !== undefined ? (
        <span className="shrink-0 font-mono" title={versions.join(', ')}>
          <span className="sr-only">app versions </span>
          {versions.length > 1 ? `${versions[0]}…${newest}` : newest}
        </span>
      ) : null}
    </>
  )
}

/**
 * The events column: the all-time count, or under filters that select events (a time range,
 * an event field) the matching count with the all-time count beneath it.
 */
function EventsCount({ error }: { error: ErrorGroup }) {
  if (error.matching_events === undefined) {
    return (
      <p className="hidden text-right text-sm tabular-nums md:block">
        {formatCount(error.events)}
        <span className="sr-only"> events</span>
      </p>
    )
  }
  return (
    <p className="hidden text-right text-sm tabular-nums md:block">
      {formatCount(error.matching_events)}
      <span className="sr-only"> matching events </span>
      <span className="block text-xs text-muted-foreground">
        of {formatCount(error.events)}
        <span className="sr-only"> in all</span>
      </span>
    </p>
  )
}
