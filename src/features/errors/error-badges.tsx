import type { ErrorGroup, Severity } from '../../../contract/errors.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { cn } from '../../lib/cn.ts'
import { describeReopenRules } from '../triage/snooze-text.ts'

const STATUS_TONE = { open: 'accent', fixed: 'success', snoozed: 'info', ignored: 'neutral' } as const

const SEVERITY_DOT: Record<Severity, string> = {
  error: 'bg-danger',
  warning: 'bg-warning',
  info: 'bg-info',
}

/** The error's status; a snoozed error says when it comes back ("snoozed until 3 more events"). */
export function ErrorStatusBadge({ error, dense, className }: { error: ErrorGroup; dense?: boolean; className?: string }) {
  const rule = error.status === 'snoozed' ? describeReopenRules(error.reopen_rules, error.events) : null
  const status = rule ? `snoozed ${rule}` : error.status
  return (
    <Badge tone={STATUS_TONE[error.status]} dense={dense} className={cn('max-w-full', className)} title={rule ? status : undefined}>
      <span className="truncate">{status}</span>
    </Badge>
  )
}

/** A discarded error: its new events are counted, not stored. */
export function DiscardedBadge({ error, dense }: { error: ErrorGroup; dense?: boolean }) {
  if (!error.discarded) return null
  return (
    <Badge tone="neutral" dense={dense} className="shrink-0" title="New events are counted, not stored">
      discarded
    </Badge>
  )
}

/**
 * Severity as a coloured dot plus the word, so colour is never the only signal. `fromMd`: shown
 * from md only (an errors list row's meta line).
 */
export function SeverityIndicator({ severity, fromMd = false, className }: { severity: Severity; fromMd?: boolean; className?: string }) {
  return (
    <span className={cn(fromMd ? 'hidden items-center gap-1.5 text-xs text-muted-foreground md:inline-flex' : 'inline-flex items-center gap-1.5 text-xs text-muted-foreground', className)}>
      <span aria-hidden="true" className={`size-2 shrink-0 rounded-full ${SEVERITY_DOT[severity]}`} />
      {severity}
    </span>
  )
}
