import { CornerDownRight } from 'lucide-react'
import type { EventException, FrameRegisters } from '../../../contract/events.ts'
import { TruncatedHeading, TruncatedText } from '../../components/ui/truncated-text.tsx'
import { StackTrace } from './stack-trace.tsx'
import { toMinifiedFrames, toRawFrames } from './to-frames.ts'
import { errorClassLabel, shortErrorClassLabel } from '../../lib/error-class.ts'

/** The CPU registers a native notifier captured, one table per frame, collapsed: they matter to few readers. */
function Registers({ registers, exceptionClass }: { registers: readonly FrameRegisters[]; exceptionClass: string }) {
  const count = registers.reduce((sum, frame) => sum + frame.values.length, 0)
  return (
    <details className="rounded-md border border-border text-sm">
      <summary className="cursor-pointer px-3 py-1.5 text-xs text-muted-foreground hover:text-foreground">
        Registers ({count})<span className="sr-only"> of {exceptionClass}</span>
      </summary>
      {registers.map((frame, index) => (
        <table key={index} className="mx-3 mb-2 font-mono text-xs">
          <caption className="py-1 text-left font-sans text-muted-foreground">
            {frame.frame_index === null ? 'Frame not given' : `Frame ${frame.frame_index + 1}`}
          </caption>
          <tbody>
            {frame.values.map((register, row) => (
              <tr key={row}>
                <th scope="row" className="pr-4 text-left font-normal text-muted-foreground">
                  {register.name}
                </th>
                <td className="[overflow-wrap:anywhere]">{register.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </details>
  )
}

/**
 * Exceptions outermost first; each later one is the cause of the one before it. `showMinified`
 * shows the frames source maps mapped as the notifier sent them; `showRaw` the native frames
 * symbols resolved as they came, with their addresses.
 */
export function ExceptionChain({
  exceptions,
  showMinified = false,
  showRaw = false,
}: {
  exceptions: readonly EventException[]
  showMinified?: boolean
  showRaw?: boolean
}) {
  if (exceptions.length === 0) {
    return <p className="text-sm text-muted-foreground">This event carries no exception.</p>
  }
  return (
    <ol aria-label="Exceptions, outermost first" className="flex flex-col gap-4">
      {exceptions.map((exception, index) => {
        const role = index === 0 ? 'Exception' : 'Caused by'
        const label = shortErrorClassLabel(exception.class)
        return (
          <li key={index} aria-label={`${role}: ${label}`} className="flex flex-col gap-2">
            {index > 0 ? (
              <p className="flex items-center gap-1 text-xs font-medium tracking-wide text-muted-foreground uppercase">
                <CornerDownRight aria-hidden="true" className="size-3.5" />
                Caused by
              </p>
            ) : null}
            <div className="min-w-0">
              <div className="flex flex-wrap items-baseline gap-x-2">
                <TruncatedHeading as="h3" text={errorClassLabel(exception.class)} what={`the class of ${role === 'Exception' ? 'the exception' : `cause ${index}`}`} className="font-mono text-sm font-semibold" />
              </div>
              {exception.message ? (
                <p className="mt-0.5 text-sm">
                  <TruncatedText text={exception.message} maxChars={500} />
                </p>
              ) : null}
            </div>
            <StackTrace
              // Remounted on a switch: what was expanded belongs to the frames shown.
              key={showRaw ? 'raw' : showMinified ? 'minified' : 'original'}
              frames={showRaw ? toRawFrames(exception.stacktrace) : showMinified ? toMinifiedFrames(exception.stacktrace) : exception.stacktrace}
              label={`${showRaw ? 'Raw stack frames' : showMinified ? 'Minified stack frames' : 'Stack frames'} of ${label}`}
              raw={showRaw}
            />
            {exception.registers ? <Registers registers={exception.registers} exceptionClass={label} /> : null}
          </li>
        )
      })}
    </ol>
  )
}
