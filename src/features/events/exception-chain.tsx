import { CornerDownRight } from 'lucide-react'
import type { EventException } from '../../../contract/events.ts'
import { TruncatedText } from '../../components/ui/truncated-text.tsx'
import { StackTrace } from './stack-trace.tsx'

/** Exceptions outermost first; each later one is the cause of the one before it. */
export function ExceptionChain({ exceptions }: { exceptions: readonly EventException[] }) {
  if (exceptions.length === 0) {
    return <p className="text-sm text-muted-foreground">This event carries no exception.</p>
  }
  return (
    <ol aria-label="Exceptions, outermost first" className="flex flex-col gap-4">
      {exceptions.map((exception, index) => {
        const role = index === 0 ? 'Exception' : 'Caused by'
        return (
          <li key={index} aria-label={`${role}: ${exception.class}`} className="flex flex-col gap-2">
            {index > 0 ? (
              <p className="flex items-center gap-1 text-xs font-medium tracking-wide text-muted-foreground uppercase">
                <CornerDownRight aria-hidden="true" className="size-3.5" />
                Caused by
              </p>
            ) : null}
            <div className="min-w-0">
              <h3 className="font-mono text-sm font-semibold [overflow-wrap:anywhere]">{exception.class}</h3>
              {exception.message ? (
                <p className="mt-0.5 text-sm">
                  <TruncatedText text={exception.message} maxChars={500} />
                </p>
              ) : null}
            </div>
            <StackTrace frames={exception.stacktrace} label={`Stack frames of ${exception.class}`} />
          </li>
        )
      })}
    </ol>
  )
}
