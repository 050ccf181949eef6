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
