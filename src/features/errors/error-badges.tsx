import type { ErrorGroup, ErrorStatus, Severity } from '../../../contract/errors.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { cn } from '../../lib/cn.ts'
import { describeReopenRules } from '../triage/snooze-text.ts'

const STATUS_TONE = { open: 'accent', fixed: 'success', snoozed: 'info', ignored: 'neutral' } as const

export function StatusBadge({ status }: { status: ErrorStatus }) {
  return <Badge tone={STATUS_TONE[status]}>{status}</Badge>
}

/** The error's status; a snoozed error says when it comes back ("snoozed until 3 more events"). */
export function ErrorStatusBadge({ error, className }: { error: ErrorGroup; className?: string }) {
  const rule = error.status === 'snoozed' ? describeReopenRules(error.reopen_rules, error.events) : null
  return (
    <Badge tone={STATUS_TONE[error.status]} className={cn('max-w-full', className)} title={rule ? `snoozed ${rule}` : undefined}>
      <span className="truncate">{rule ? `snoozed ${rule}` : error.status}</span>
    </Badge>
  )
}

const SEVERITY_DOT: Record<Severity, string> = {
  error: 'bg-danger',
  warning: 'bg-warning',
  info: 'bg-info',
}

/** Severity as a coloured dot plus the word, so colour is never the only signal. */
export function SeverityIndicator({ severity, className }: { severity: Severity; className?: string }) {
  return (
    <span className={cn('inline-flex items-center gap-1.5 text-xs text-muted-foreground', className)}>
      <span aria-hidden="true" className={cn('size-2 shrink-0 rounded-full', SEVERITY_DOT[severity])} />
      {severity}
    </span>
  )
}

/** Handled or unhandled, in words: an unhandled error crashed something, so it stands out (not by colour alone). */
export function HandledLabel({ unhandled }: { unhandled: boolean }) {
  return unhandled ? (
    <span className="shrink-0 font-medium text-danger">unhandled</span>
  ) : (
    <span className="shrink-0">handled</span>
  )
}

/** A list of values as a row shows it: the first one or two, and how many more. */
const firstOf = (values: readonly string[], shown: number) =>
  values.length <= shown ? values.join(', ') : `${values.slice(0, shown).join(', ')} +${values.length - shown}`

/**
 * Where the error was seen: its release stages and app versions (the newest last, as the server
 * lists them by first seen), each labelled for screen readers.
 */
export function ReleaseLabel({ error }: { error: Pick<ErrorGroup, 'release_stages' | 'app_versions'> }) {
  const versions = error.app_versions
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
