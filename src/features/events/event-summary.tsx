import type * as React from 'react'
import type { ErrorEvent } from '../../../contract/events.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { RelativeTime } from '../../components/ui/relative-time.tsx'
import { TruncatedHeading, TruncatedText } from '../../components/ui/truncated-text.tsx'
import { SeverityIndicator } from '../errors/error-badges.tsx'
import { useDocumentTitle } from '../../lib/use-document-title.ts'
import { errorClassLabel } from '../../lib/error-class.ts'

/** One cell of the summary, cut to one line: `title` holds the whole value, to read on hover. */
function Fact({ label, title, children }: { label: string; title?: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="truncate text-sm" title={title}>
        {children}
      </dd>
    </div>
  )
}

/** A text cell: the value, or a dash when the event has none. */
function TextFact({ label, value, title }: { label: string; value: string | null; title?: string }) {
  return (
    <Fact label={label} title={title ?? value ?? undefined}>
      {value ?? '—'}
    </Fact>
  )
}

/** Who was affected, by name, else email, else id; the whole name and the email on hover. */
function userLabel(event: ErrorEvent): { value: string | null; title: string | undefined } {
  const { name, email } = event.user
  const value = name ?? email ?? event.user_id
  if (value === null) return { value, title: undefined }
  return { value, title: email !== null && email !== value ? `${value} (${email})` : value }
}

/** The OS as "iOS 14.4": the name from the device (the notifier's or read from its user agent) beside the version. */
export function osLabel(event: Pick<ErrorEvent, 'device' | 'os_version'>): string | null {
  const name = typeof event.device.osName === 'string' && event.device.osName.trim() !== '' ? event.device.osName : null
  const label = [name, event.os_version].filter((part) => part !== null && part !== '').join(' ')
  return label === '' ? null : label
}

/** The event at a glance: what was thrown, when, where and for whom. */
export function EventSummary({ event }: { event: ErrorEvent }) {
  const outer = event.exceptions[0]
  useDocumentTitle(`Event of ${outer ? errorClassLabel(outer.class) : 'an error'}`)
  return (
    // min-w-0: beside the event navigation, a long unbroken class or message must wrap, not widen the page.
    <div className="flex min-w-0 flex-1 flex-col gap-3">
      <div className="min-w-0">
        <div className="flex flex-wrap items-baseline gap-x-2">
          <TruncatedHeading as="h1" text={outer ? errorClassLabel(outer.class) : 'Event'} what="the error class" className="font-mono text-lg font-semibold" />
        </div>
        {outer?.message ? (
          <p className="mt-1 text-sm [overflow-wrap:anywhere]">
            <TruncatedText text={outer.message} maxChars={400} />
          </p>
        ) : null}
        <div className="mt-2 flex flex-wrap items-center gap-2">
          <SeverityIndicator severity={event.severity} />
          <Badge tone={event.unhandled ? 'danger' : 'neutral'}>{event.unhandled ? 'unhandled' : 'handled'}</Badge>
          {event.severity_reason ? (
            // Attributes may be long (a route of hundreds of characters): the pill wraps within the page.
            <Badge wrap className="max-w-full">
              {event.severity_reason}
              {event.severity_reason_attributes
                ? ` (${Object.entries(event.severity_reason_attributes)
                    .map(([key, value]) => `${key}: ${value}`)
                    .join(', ')})`
                : null}
            </Badge>
          ) : null}
        </div>
      </div>
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-6">
        <Fact label="Received">
          <RelativeTime value={event.received_at} />
        </Fact>
        <TextFact label="Context" value={event.context} />
        <TextFact label="Release stage" value={event.release_stage} />
        <TextFact label="App version" value={event.app_version} />
        <TextFact label="OS" value={osLabel(event)} />
        <TextFact label="User" {...userLabel(event)} />
      </dl>
    </div>
  )
}
