import type { ErrorGroup, ErrorStatus, Severity } from '../../../contract/errors.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { cn } from '../../lib/cn.ts'
import { errorRowText, severityClass, severityDotClass, STATUS_TONE } from './error-row-text.ts'

export function StatusBadge({ status }: { status: ErrorStatus }) {
  return <Badge tone={STATUS_TONE[status]}>{status}</Badge>
}

/** The error's status; a snoozed error says when it comes back ("snoozed until 3 more events"). */
export function ErrorStatusBadge({ error, dense, className }: { error: ErrorGroup; dense?: boolean; className?: string }) {
  const { status, statusTitle } = errorRowText(error)
  return (
    <Badge tone={STATUS_TONE[error.status]} dense={dense} className={cn('max-w-full', className)} title={statusTitle}>
      <span className="truncate">{status}</span>
    </Badge>
  )
}

/**
 * Severity as a coloured dot plus the word, so colour is never the only signal. `fromMd`: shown
 * from md only (an errors list row's meta line).
 */
export function SeverityIndicator({ severity, fromMd = false, className }: { severity: Severity; fromMd?: boolean; className?: string }) {
  return (
    <span className={cn(fromMd ? `${severityClass.replace('inline-flex ', '')} hidden md:inline-flex` : severityClass, className)}>
      <span aria-hidden="true" className={severityDotClass(severity)} />
      {severity}
    </span>
  )
}
