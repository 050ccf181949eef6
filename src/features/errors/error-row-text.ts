// What a row of the errors list says and the classes it is laid out with, in one place for the two
// that draw it: the app's row (error-row.tsx) and the page's first paint of the list before the
// app's code has run (src/first-paint/error-rows.ts). Plain TypeScript without React, so that
// the early script that imports it stays small.
import type { ErrorGroup, ErrorStatus, Severity } from '../../../contract/errors.ts'
import { errorClassLabel } from '../../lib/error-class.ts'
import { formatCount, formatCountOf } from '../../lib/relative-time.ts'
import { describeReopenRules } from '../triage/snooze-text.ts'

/**
 * Columns from md up; the sparkline and first seen only from lg, where the class and message
 * still keep a readable width beside them. Below md, one meta line under the message.
 */
export const columns =
  'md:grid md:grid-cols-[minmax(0,1fr)_5rem_5rem_7rem] md:items-center md:gap-4 lg:grid-cols-[minmax(0,1fr)_5.5rem_5rem_5rem_7rem_7rem]'

/** The classes of a row's parts, as both renderings use them. */
export const rowClasses = {
  /** The list item around a row (the app's virtualized item adds its position and state). */
  item: 'border-b border-l-2 border-b-border border-l-transparent',
  row: 'relative flex items-start gap-3 px-4 py-2 hover:bg-surface-muted',
  checkbox: 'relative z-10 mt-1 size-4 shrink-0',
  body: `min-w-0 flex-1 ${columns}`,
  title: 'flex min-w-0 items-baseline gap-2',
  link: 'max-w-full shrink-0 truncate rounded font-semibold text-foreground after:absolute after:inset-0 hover:underline focus-visible:-outline-offset-2',
  message: 'min-w-0 flex-1 truncate text-sm text-foreground/90',
  noMessage: 'text-muted-foreground italic',
  meta: 'mt-0.5 flex min-w-0 flex-wrap items-center gap-x-2.5 gap-y-0.5 text-xs text-muted-foreground md:flex-nowrap',
  context: 'min-w-0 truncate font-mono',
  narrowMeta: 'mt-0.5 flex flex-wrap gap-x-3 text-xs text-muted-foreground tabular-nums md:hidden',
  sparkline: 'hidden justify-end lg:flex',
  count: 'hidden text-right text-sm tabular-nums md:block',
  countNote: 'block text-xs text-muted-foreground',
  firstSeen: 'hidden text-right text-xs text-muted-foreground lg:block',
  lastSeen: 'hidden text-right text-xs text-muted-foreground md:block',
  time: 'tabular-nums whitespace-nowrap',
  handled: 'shrink-0',
  unhandled: 'shrink-0 font-medium text-danger',
  releaseStages: 'min-w-0 shrink-0 truncate',
  appVersions: 'shrink-0 font-mono',
} as const

/** The badge's classes (components/ui/badge.tsx) per tone, as the row's status badge merges them (no vertical padding, may shrink). */
const STATUS_BADGE_BASE =
  'inline-flex items-center gap-1 rounded-full border px-2 text-xs font-medium whitespace-nowrap max-w-full shrink py-0'
export const STATUS_TONE = { open: 'accent', fixed: 'success', snoozed: 'info', ignored: 'neutral' } as const
const TONE_CLASSES = {
  neutral: 'border-border bg-surface-muted text-muted-foreground',
  accent: 'border-transparent bg-accent-soft text-accent',
  info: 'border-transparent bg-info-soft text-info',
  success: 'border-transparent bg-success-soft text-success',
} as const
export const statusBadgeClass = (status: ErrorStatus): string => `${STATUS_BADGE_BASE} ${TONE_CLASSES[STATUS_TONE[status]]}`

export const SEVERITY_DOT: Record<Severity, string> = {
  error: 'bg-danger',
  warning: 'bg-warning',
  info: 'bg-info',
}
export const severityClass = 'inline-flex items-center gap-1.5 text-xs text-muted-foreground'
export const severityDotClass = (severity: Severity): string => `size-2 shrink-0 rounded-full ${SEVERITY_DOT[severity]}`

/** A list of values as a row shows it: the first one or two, and how many more. */
const firstOf = (values: readonly string[], shown: number) =>
  values.length <= shown ? values.join(', ') : `${values.slice(0, shown).join(', ')} +${values.length - shown}`

/** Shown text with its hover title. */
export interface Titled {
  text: string
  title: string
}

export interface ErrorRowText {
  errorClass: string
  /** null: the row says "(no message)" in muted italics. */
  message: string | null
  /** "open", or when a snoozed error comes back: "snoozed until 3 more events". */
  status: string
  /** The status's hover title (snoozed errors only). */
  statusTitle: string | undefined
  handled: 'handled' | 'unhandled'
  /** The release stages (the first two, and how many more). */
  releaseStages: Titled | null
  /** The app versions seen, the oldest…the newest (the server lists them by first seen). */
  appVersions: Titled | null
  context: string | null
  /** Under filters that select events (a time range, an event field) the server counts the matching events too. */
  matching: string | null
  events: string
  users: string
  /** The narrow screens' meta line: "12 events" or "3 matching of 12 events", "1 user". */
  narrowEvents: string
  narrowUsers: string
}

/** What a row of the errors list says about an error (its times: formatRelativeTime, lib/relative-time.ts). */
export function errorRowText(error: ErrorGroup): ErrorRowText {
  const rule = error.status === 'snoozed' ? describeReopenRules(error.reopen_rules, error.events) : null
  const versions = error.app_versions
  const newest = versions.at(-1)
  const scoped = error.matching_events !== undefined
  return {
    errorClass: errorClassLabel(error.error_class),
    message: error.message || null,
    status: rule ? `snoozed ${rule}` : error.status,
    statusTitle: rule ? `snoozed ${rule}` : undefined,
    handled: error.unhandled ? 'unhandled' : 'handled',
    releaseStages:
      error.release_stages.length > 0
        ? { text: firstOf(error.release_stages, 2), title: error.release_stages.join(', ') }
        : null,
    appVersions:
      newest !== undefined
        ? { text: versions.length > 1 ? `${versions[0]}…${newest}` : newest, title: versions.join(', ') }
        : null,
    context: error.context || null,
    matching: error.matching_events === undefined ? null : formatCount(error.matching_events),
    events: formatCount(error.events),
    users: formatCount(error.users),
    narrowEvents: scoped
      ? `${formatCount(error.matching_events ?? 0)} matching of ${formatCountOf(error.events, 'event')}`
      : formatCountOf(error.events, 'event'),
    narrowUsers: `${formatCountOf(error.users, 'user')}${scoped ? ' in all' : ''}`,
  }
}
