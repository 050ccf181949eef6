import type { StackFrame } from '../../../contract/events.ts'

export interface IndexedFrame {
  frame: StackFrame
  /** Position in the original stacktrace (0 = where the exception was thrown). */
  index: number
}

export type FrameItem =
  | ({ kind: 'frame' } & IndexedFrame)
  | { kind: 'library'; key: string; frames: IndexedFrame[] }

/**
 * Shapes a stacktrace for display: in-project frames stay visible and each run of library
 * frames between them becomes one collapsible group. When no frame is in-project there is
 * nothing to emphasize, so every frame stays visible rather than hiding the whole trace.
 */
export function toFrameItems(frames: readonly StackFrame[]): FrameItem[] {
  const indexed = frames.map((frame, index) => ({ frame, index }))
  if (!frames.some((frame) => frame.in_project)) return indexed.map((item) => ({ kind: 'frame', ...item }))

  const items: FrameItem[] = []
  let run: IndexedFrame[] = []
  const flush = () => {
    if (run.length > 0) items.push({ kind: 'library', key: `library-${run[0]?.index}`, frames: run })
    run = []
  }
  for (const item of indexed) {
    if (item.frame.in_project) {
      flush()
      items.push({ kind: 'frame', ...item })
    } else {
      run.push(item)
    }
  }
  flush()
  return items
}

/** "src/cart.ts:42:7", without the parts the notifier did not send. */
export function formatFrameLocation(frame: Pick<StackFrame, 'file' | 'line' | 'column'>): string {
  const file = frame.file ?? '(unknown file)'
  if (frame.line === null) return file
  return frame.column === null ? `${file}:${frame.line}` : `${file}:${frame.line}:${frame.column}`
}

export const frameMethod = (frame: Pick<StackFrame, 'method'>): string => frame.method?.trim() || '(anonymous function)'

export interface CodeLine {
  number: number
  text: string
  failing: boolean
}

/** The `code` map of a frame as ordered lines, marking the line the frame points at. */
export function toCodeLines(code: Readonly<Record<string, string>>, failingLine: number | null): CodeLine[] {
  return Object.entries(code)
    .map(([number, text]) => ({ number: Number(number), text }))
    .filter((line) => Number.isInteger(line.number))
    .sort((a, b) => a.number - b.number)
    .map((line) => ({ ...line, failing: line.number === failingLine }))
}

/** The frame whose code opens by default: the first in-project frame that has code, else the first with code. */
export function defaultCodeFrameIndex(frames: readonly StackFrame[]): number {
  const inProject = frames.findIndex((frame) => frame.in_project && frame.code && Object.keys(frame.code).length > 0)
  if (inProject !== -1) return inProject
  return frames.findIndex((frame) => frame.code && Object.keys(frame.code).length > 0)
}
