import { ChevronDown, ChevronRight } from 'lucide-react'
import { useId, useState } from 'react'
import type { EventThread } from '../../../contract/events.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { TruncatedText } from '../../components/ui/truncated-text.tsx'
import { StackTrace } from './stack-trace.tsx'
import { toRawFrames } from './to-frames.ts'

/** Notifiers may send up to 500 threads; the first ones (the error thread leads) are what people read. */
const INITIAL_VISIBLE = 25

/** Accessible names repeat the thread name; a 30 000-character one would drown a screen reader. */
const LABEL_CHARS = 80

/** The thread's name, else its id, else its position: what the notifier let us call it. */
function threadSubject(thread: EventThread, position: number): { subject: string; named: boolean } {
  if (thread.name?.trim()) return { subject: thread.name, named: true }
  return { subject: thread.id ?? String(position + 1), named: false }
}

const shorten = (text: string) => (text.length > LABEL_CHARS ? `${text.slice(0, LABEL_CHARS)}…` : text)

/** The error-reporting thread first, the others in the order the notifier sent them. */
export function orderThreads(threads: readonly EventThread[]): { thread: EventThread; position: number }[] {
  const indexed = threads.map((thread, position) => ({ thread, position }))
  return [
    ...indexed.filter((item) => item.thread.error_reporting_thread),
    ...indexed.filter((item) => !item.thread.error_reporting_thread),
  ]
}

function ThreadItem({ thread, position, unhandled, raw }: { thread: EventThread; position: number; unhandled: boolean; raw: boolean }) {
  const [expanded, setExpanded] = useState(thread.error_reporting_thread)
  const stackId = useId()
  const { subject, named } = threadSubject(thread, position)
  const title = named ? subject : `Thread ${subject}`
  // "thread main"; a name that says thread already (a minidump's "crashed thread") stays as it is.
  const label = /\bthread\b/i.test(subject) ? shorten(subject) : `thread ${shorten(subject)}`
  const Label = `${label.charAt(0).toUpperCase()}${label.slice(1)}`
  const frameCount = thread.stacktrace.length

  return (
    <li
      aria-label={Label}
      data-error-reporting={thread.error_reporting_thread}
      className="flex flex-col gap-2 py-2 first:pt-0 last:pb-0"
    >
      <div className="flex items-start gap-2">
        <button
          type="button"
          aria-expanded={expanded}
          aria-controls={expanded ? stackId : undefined}
          aria-label={`Stack trace of ${label}`}
          onClick={() => setExpanded((value) => !value)}
          className="-ml-1 inline-flex size-7 shrink-0 items-center justify-center rounded text-muted-foreground hover:bg-surface-muted hover:text-foreground"
        >
          {expanded ? <ChevronDown aria-hidden="true" className="size-4" /> : <ChevronRight aria-hidden="true" className="size-4" />}
        </button>
        <div className="min-w-0 flex-1 pt-0.5">
          <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <span className="min-w-0 font-mono text-sm font-semibold">
              <TruncatedText text={title} maxChars={LABEL_CHARS} />
            </span>
            {thread.error_reporting_thread ? <Badge tone="danger">{unhandled ? 'Crashed' : 'Error thread'}</Badge> : null}
          </div>
          <dl className="mt-0.5 flex flex-wrap gap-x-3 gap-y-0.5 text-xs text-muted-foreground">
            {thread.state ? (
              <div className="flex min-w-0 gap-1">
                <dt>State</dt>
                <dd className="min-w-0 font-mono text-foreground">
                  <TruncatedText text={thread.state} maxChars={60} />
                </dd>
              </div>
            ) : null}
            {thread.type ? (
              <div className="flex min-w-0 gap-1">
                <dt>Type</dt>
                <dd className="min-w-0 font-mono text-foreground">
                  <TruncatedText text={thread.type} maxChars={60} />
                </dd>
              </div>
            ) : null}
            {thread.id !== null && named ? (
              <div className="flex min-w-0 gap-1">
                <dt>ID</dt>
                <dd className="min-w-0 font-mono text-foreground">
                  <TruncatedText text={thread.id} maxChars={60} />
                </dd>
              </div>
            ) : null}
            <div className="flex gap-1">
              <dt className="sr-only">Frames</dt>
              <dd>{frameCount === 1 ? '1 frame' : `${frameCount.toLocaleString('en')} frames`}</dd>
            </div>
          </dl>
        </div>
      </div>
      {expanded ? (
        <div id={stackId} className="min-w-0">
          <StackTrace
            key={raw ? 'raw' : 'original'}
            frames={raw ? toRawFrames(thread.stacktrace) : thread.stacktrace}
            label={`${raw ? 'Raw stack frames' : 'Stack frames'} of ${label}`}
            emptyText="No stack trace was sent for this thread."
            raw={raw}
          />
        </div>
      ) : null}
    </li>
  )
}

/** A page of threads, more on request: notifiers may send up to 500. */
function ThreadList({
  items,
  label,
  unhandled,
  raw,
  id,
}: {
  items: ReturnType<typeof orderThreads>
  label: string
  unhandled: boolean
  raw: boolean
  id?: string
}) {
  const [showAll, setShowAll] = useState(false)
  const visible = showAll ? items : items.slice(0, INITIAL_VISIBLE)
  const hidden = items.length - visible.length
  return (
    <div id={id} className="flex flex-col gap-2">
      <ol aria-label={label} className="flex flex-col divide-y divide-border">
        {visible.map(({ thread, position }) => (
          <ThreadItem key={position} thread={thread} position={position} unhandled={unhandled} raw={raw} />
        ))}
      </ol>
      {hidden > 0 ? (
        <button
          type="button"
          className="self-start rounded text-xs font-medium text-accent hover:underline"
          onClick={() => setShowAll(true)}
        >
          Show {hidden} more {hidden === 1 ? 'thread' : 'threads'}
        </button>
      ) : null}
    </div>
  )
}

/** Without an error-reporting thread to lead, a few threads are shown at once; more wait behind the toggle. */
const OPEN_WITHOUT_ERROR_THREAD = 5

/**
 * What every thread was doing when the error happened (Android, iOS and NDK notifiers send them).
 * The error-reporting thread stays in view; the others (up to hundreds) wait behind "Other threads (N)",
 * so they do not push the breadcrumbs and metadata a page further down.
 */
export function ThreadsPanel({ threads, unhandled, raw = false }: { threads: readonly EventThread[]; unhandled: boolean; raw?: boolean }) {
  const ordered = orderThreads(threads)
  const leading = ordered.filter((item) => item.thread.error_reporting_thread)
  const others = ordered.filter((item) => !item.thread.error_reporting_thread)
  const [othersOpen, setOthersOpen] = useState(leading.length === 0 && others.length <= OPEN_WITHOUT_ERROR_THREAD)
  const othersId = useId()
  const othersLabel = leading.length > 0 ? 'Other threads' : 'All threads'

  return (
    <div className="flex flex-col gap-2">
      {leading.length > 0 ? <ThreadList items={leading} label="Error-reporting thread" unhandled={unhandled} raw={raw} /> : null}
      {others.length > 0 ? (
        <>
          <button
            type="button"
            aria-expanded={othersOpen}
            aria-controls={othersOpen ? othersId : undefined}
            onClick={() => setOthersOpen((open) => !open)}
            className="-ml-1 inline-flex items-center gap-1 self-start rounded py-1 pr-1 text-sm font-medium text-muted-foreground hover:text-foreground"
          >
            {othersOpen ? <ChevronDown aria-hidden="true" className="size-4" /> : <ChevronRight aria-hidden="true" className="size-4" />}
            {othersLabel} ({others.length.toLocaleString('en')})
          </button>
          {othersOpen ? <ThreadList id={othersId} items={others} label={othersLabel} unhandled={unhandled} raw={raw} /> : null}
        </>
      ) : null}
    </div>
  )
}
