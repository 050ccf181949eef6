import type { EventException } from '../../../contract/events.ts'

/** One frame as a line of a trace: `    at method (file:line:column)`, the parts the notifier sent. */
function frameLine(frame: EventException['stacktrace'][number]): string {
  const place = [frame.file ?? '(unknown file)', frame.line, frame.column].filter((part) => part !== null).join(':')
  return frame.method ? `    at ${frame.method} (${place})` : `    at ${place}`
}

/**
 * An event's exceptions as plain text, outermost first, as a runtime prints them: the class and
 * message, then one line per frame; causes follow as "Caused by:". For pasting into an issue or a chat.
 */
export function toStackTraceText(exceptions: readonly EventException[]): string {
  return exceptions
    .map((exception, index) => {
      const heading = `${index > 0 ? 'Caused by: ' : ''}${exception.class || '(no class name)'}${exception.message ? `: ${exception.message}` : ''}`
      return [heading, ...exception.stacktrace.map(frameLine)].join('\n')
    })
    .join('\n')
}
