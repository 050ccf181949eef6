import { useState } from 'react'
import type * as React from 'react'
import { TRUNCATION_MARKER } from '../../../contract/events.ts'
import { cn } from '../../lib/cn.ts'

const count = (value: number) => value.toLocaleString('en')

/**
 * The shortened text, the button that shows it whole, and a note when the server cut the value
 * at ingest (it ends with TRUNCATION_MARKER): "Show all N characters" must not read as everything
 * the notifier sent. `what` names the value for screen readers beside other such buttons.
 */
function useShowAll(text: string, maxChars: number, what?: string) {
  const [expanded, setExpanded] = useState(false)
  const cut = text.endsWith(TRUNCATION_MARKER)
  const stored = cut ? text.slice(0, -TRUNCATION_MARKER.length) : text
  const tooLong = stored.length > maxChars
  const shown = tooLong && !expanded ? `${stored.slice(0, maxChars)}…` : stored
  const words = expanded ? 'Show less' : `Show all ${count(stored.length)} ${cut ? 'stored ' : ''}characters`
  const button = tooLong ? (
    <button
      type="button"
      className="rounded text-xs font-medium whitespace-nowrap text-accent hover:underline"
      aria-expanded={expanded}
      aria-label={what ? `${words} of ${what}` : undefined}
      onClick={() => setExpanded((value) => !value)}
    >
      {words}
    </button>
  ) : null
  const note = cut ? (
    <span className="text-xs text-muted-foreground">
      (cut when stored: the notifier sent more than the {count(stored.length)} characters Errata keeps)
    </span>
  ) : null
  return { shown, button, note }
}

/**
 * Untrusted text that may be huge: shows the first `maxChars` characters, wrapped, with a
 * button to see it whole. Always rendered as a text node, never as markup.
 */
export function TruncatedText({
  text,
  maxChars = 300,
  what,
  className,
  title,
}: {
  text: string
  maxChars?: number
  /** What the text is, for the button's accessible name where several such buttons sit together. */
  what?: string
  className?: string
  title?: string
}) {
  const { shown, button, note } = useShowAll(text, maxChars, what)
  return (
    <span className={cn('whitespace-pre-wrap [overflow-wrap:anywhere]', className)} title={title}>
      {shown}
      {button ? <> {button}</> : null}
      {note ? <> {note}</> : null}
    </span>
  )
}

/**
 * A heading whose text comes from an event (an error class, up to 32,768 characters): the first
 * `maxChars` characters, selectable, with "Show all" after the heading rather than in its name.
 * `children` follow the button on the same row (badges beside the class).
 */
export function TruncatedHeading({
  as: Heading,
  text,
  maxChars = 200,
  what,
  className,
  children,
}: {
  as: 'h1' | 'h2' | 'h3'
  text: string
  maxChars?: number
  /** What the text is, for the button's accessible name: "the error class". */
  what: string
  className?: string
  children?: React.ReactNode
}) {
  const { shown, button, note } = useShowAll(text, maxChars, what)
  return (
    <>
      <Heading className={cn('min-w-0 [overflow-wrap:anywhere]', className)}>{shown}</Heading>
      {button}
      {note}
      {children}
    </>
  )
}
