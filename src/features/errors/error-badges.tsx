import type { ErrorGroup, ErrorStatus, Severity } from '../../../contract/errors.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { cn } from '../../lib/cn.ts'
import { errorRowText, severityClass, severityDotClass, STATUS_TONE } from './error-row-text.ts'

export function StatusBadge({ status }: { status: ErrorStatus }) {
  return <Badge tone={STATUS_TONE[status]}>{status}</Badge>
}

/** The error's status; a snoozed error says when it comes back ("snoozed until 3 more events"). */
export function ErrorStatusBadge({ error, className }: { error: ErrorGroup; className?: string }) {
  const { status, statusTitle } = errorRowText(error)
  return (
    <Badge tone={STATUS_TONE[error.status]} className={cn('max-w-full', className)} title={statusTitle}>
      <span className="truncate">{status}</span>
    </Badge>
  )
}

/** Severity as a coloured dot plus the word, so colour is never the only signal. */
export function SeverityIndicator({ severity, className }: { severity: Severity; className?: string }) {
  return (
    <span className={cn(severityClass, className)}>
      <span aria-hidden="true" className={severityDotClass(severity)} />
      {severity}
    </span>
  )
}
