import { cn } from '../../lib/cn.ts'
import { formatExactTime, formatRelativeTime } from '../../lib/relative-time.ts'
import { useNow } from '../../lib/use-now.ts'

/** A relative time ("5 minutes ago") with the exact time on hover and in the machine-readable attribute. */
export function RelativeTime({ value, className }: { value: string; className?: string }) {
  const now = useNow()
  return (
    <time dateTime={value} title={formatExactTime(value)} className={cn('tabular-nums whitespace-nowrap', className)}>
      {formatRelativeTime(value, now)}
    </time>
  )
}
