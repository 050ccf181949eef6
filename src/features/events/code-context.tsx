import type { StackFrame } from '../../../contract/events.ts'
import { cn } from '../../lib/cn.ts'
import { toCodeLines } from './to-frames.ts'

/** Source lines around a frame, the failing one highlighted (and announced, not only coloured). */
export function CodeContext({ frame, label }: { frame: StackFrame; label: string }) {
  const lines = toCodeLines(frame.code ?? {}, frame.line)
  return (
    <pre
      aria-label={label}
      // Long source lines scroll sideways: focusable so the keyboard can scroll it too.
      tabIndex={0}
      className="overflow-x-auto rounded-md border border-border bg-surface-muted py-2 font-mono text-xs leading-5"
    >
      <code className="block min-w-max">
        {lines.map((line) => (
          <span
            key={line.number}
            data-failing={line.failing || undefined}
            aria-current={line.failing ? 'true' : undefined}
            className={cn('flex pr-4', line.failing && 'bg-highlight font-semibold')}
          >
            <span
              aria-hidden="true"
              className={cn(
                'w-14 shrink-0 border-r pr-3 text-right tabular-nums select-none',
                line.failing ? 'border-accent text-foreground' : 'border-border text-muted-foreground',
              )}
            >
              {line.number}
            </span>
            <span className="pl-3 whitespace-pre">{line.text}</span>
            {line.failing ? <span className="sr-only"> (failing line {line.number})</span> : null}
          </span>
        ))}
      </code>
    </pre>
  )
}
