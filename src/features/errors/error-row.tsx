import { Link } from '@tanstack/react-router'
import type * as React from 'react'
import type { ErrorGroup } from '../../../contract/errors.ts'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { AssigneeLabel } from '../triage/assignee.tsx'
import { ErrorStatusBadge, SeverityIndicator } from './error-badges.tsx'
import { errorRowText, rowClasses, type ErrorRowText } from './error-row-text.ts'

export { columns } from './error-row-text.ts'

export type ErrorPageSearch = { f: string[] | undefined }

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
  // The texts and classes are shared with the page's first paint (src/first-paint/error-rows.ts).
  const text = errorRowText(error)
  return (
    <div className={rowClasses.row}>
      {/* Above the row-wide link overlay so it can be clicked. */}
      <input
        type="checkbox"
        className={rowClasses.checkbox}
        aria-label={`Select ${text.errorClass}`}
        aria-describedby={messageId}
        checked={selected}
        onChange={onToggle}
      />
      <div className={rowClasses.body}>
        <div className="min-w-0">
          {/* Class and message on one line (the class is what a row is read by; the message cut
              first), then one line of what tells errors apart: status, handled, where, who. */}
          <div className={rowClasses.title}>
            <Link
              to="/projects/$projectId/errors/$errorId"
              params={{ projectId, errorId: error.id }}
              search={errorSearch}
              data-row-index={index}
              aria-describedby={messageId}
              className={rowClasses.link}
            >
              {text.errorClass}
            </Link>
            <p id={messageId} className={rowClasses.message} title={error.message}>
              {text.message ?? <span className={rowClasses.noMessage}>(no message)</span>}
            </p>
          </div>
          <div className={rowClasses.meta}>
            <ErrorStatusBadge error={error} dense className="shrink" />
            <SeverityIndicator severity={error.severity} fromMd className="shrink-0" />
            <span className={text.handled === 'unhandled' ? rowClasses.unhandled : rowClasses.handled}>{text.handled}</span>
            <ReleaseLabel text={text} />
            <AssigneeLabel name={assignee} />
            {text.context ? (
              <span className={rowClasses.context} title={text.context}>
                <span className="sr-only">context </span>
                {text.context}
              </span>
            ) : null}
          </div>
        </div>
        {/* Narrow screens: one meta line instead of columns. */}
        <p className={rowClasses.narrowMeta}>
          <SeverityIndicator severity={error.severity} />
          <span>{text.narrowEvents}</span>
          <span>{text.narrowUsers}</span>
          <span>
            last <RelativeTime value={error.last_seen} />
          </span>
          <span>
            first <RelativeTime value={error.first_seen} />
          </span>
        </p>
        <div className={rowClasses.sparkline}>{sparkline}</div>
        <EventsCount text={text} />
        <p className={rowClasses.count}>
          {text.users}
          <span className="sr-only"> users</span>
          {/* Users are counted over the error's whole life, also under filters: say so where Events says "of N". */}
          {text.matching === null ? null : <span className={rowClasses.countNote}> all time</span>}
        </p>
        <p className={rowClasses.firstSeen}>
          <span className="sr-only">first seen </span>
          <RelativeTime value={error.first_seen} />
        </p>
        <p className={rowClasses.lastSeen}>
          <span className="sr-only">last seen </span>
          <RelativeTime value={error.last_seen} />
        </p>
      </div>
    </div>
  )
}

/** Where the error was seen: its release stages and app versions, each labelled for screen readers. */
function ReleaseLabel({ text }: { text: ErrorRowText }) {
  return (
    <>
      {text.releaseStages ? (
        <span className={rowClasses.releaseStages} title={text.releaseStages.title}>
          <span className="sr-only">release stages </span>
          {text.releaseStages.text}
        </span>
      ) : null}
      {text.appVersions ? (
        <span className={rowClasses.appVersions} title={text.appVersions.title}>
          <span className="sr-only">app versions </span>
          {text.appVersions.text}
        </span>
      ) : null}
    </>
  )
}

/**
 * The events column: the all-time count, or under filters that select events (a time range,
 * an event field) the matching count with the all-time count beneath it.
 */
function EventsCount({ text }: { text: ErrorRowText }) {
  if (text.matching === null) {
    return (
      <p className={rowClasses.count}>
        {text.events}
        <span className="sr-only"> events</span>
      </p>
    )
  }
  return (
    <p className={rowClasses.count}>
      {text.matching}
      <span className="sr-only"> matching events </span>
      <span className={rowClasses.countNote}>
        of {text.events}
        <span className="sr-only"> in all</span>
      </span>
    </p>
  )
}
