import type { ErrorStatus, Severity } from '../../../contract/errors.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { cn } from '../../lib/cn.ts'

const STATUS_TONE = { open: 'accent', fixed: 'success', snoozed: 'info', ignored: 'neutral' } as const

export function StatusBadge({ status }: { status: ErrorStatus }) {
  return <Badge tone={STATUS_TONE[status]}>{status}</Badge>
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
