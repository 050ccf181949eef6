import type { StackFrame } from '../../../contract/events.ts'
import { findRepeats } from './find-repeats.ts'

export interface IndexedFrame {
  frame: StackFrame
  /** Position in the original stacktrace (0 = where the exception was thrown). */
  index: number
}

export type FrameItem =
  | ({ kind: 'frame' } & IndexedFrame)
  | { kind: 'library'; key: string; frames: IndexedFrame[] }
  /** A recursion: `cycle` (its first frames) occurs `repeats` times in a row, `frames` all of them. */
  | { kind: 'repeat'; key: string; cycle: IndexedFrame[]; repeats: number; frames: IndexedFrame[] }

/** A native crash's program-counter frame is where it crashed: shown even in a system library. */
const alwaysShown = (frame: StackFrame): boolean => frame.in_project || frame.native?.is_pc === true

/**
 * Shapes a stacktrace for display: each recursion (findRepeats) folds into one run of its cycle,
 * in-project frames (and the program-counter frame) stay visible and each run of library frames
 * between them becomes one collapsible group. When no frame is in-project there is nothing to
 * emphasize, so every frame stays visible rather than hiding the whole trace.
 */
export function toFrameItems(frames: readonly StackFrame[]): FrameItem[] {
  const indexed = frames.map((frame, index) => ({ frame, index }))
  const repeatAt = new Map(findRepeats(frames).map((repeat) => [repeat.start, repeat]))
  const groupLibrary = frames.some((frame) => frame.in_project)

  const items: FrameItem[] = []
  let run: IndexedFrame[] = []
  const flush = () => {
    if (run.length > 0) items.push({ kind: 'library', key: `library-${run[0]?.index}`, frames: run })
    run = []
  }
  for (let index = 0; index < indexed.length; index++) {
    const item = indexed[index]!
    const repeat = repeatAt.get(index)
    if (repeat) {
      flush()
      const all = indexed.slice(index, index + repeat.cycle * repeat.repeats)
      items.push({ kind: 'repeat', key: `repeat-${index}`, cycle: all.slice(0, repeat.cycle), repeats: repeat.repeats, frames: all })
      index += all.length - 1
    } else if (!groupLibrary || alwaysShown(item.frame)) {
      flush()
      items.push({ kind: 'frame', ...item })
    } else {
      run.push(item)
    }
  }
  flush()
  return items
}

/**
 * The items shown before "Show all": up to `limit` frames from the top, a folded recursion
 * counting as its one cycle (the rows it shows folded), a library group cut where the limit
 * falls. `hidden` is how many frames are left out.
 */
export function previewItems(items: readonly FrameItem[], limit: number): { items: FrameItem[]; hidden: number } {
  const shown: FrameItem[] = []
  let budget = limit
  let covered = 0
  let total = 0
  for (const item of items) {
    const size = item.kind === 'frame' ? 1 : item.frames.length
    total += size
    if (budget <= 0) continue
    if (item.kind === 'library' && size > budget) {
      shown.push({ ...item, frames: item.frames.slice(0, budget) })
      covered += budget
      budget = 0
      continue
    }
    shown.push(item)
    covered += size
    budget -= item.kind === 'repeat' ? item.cycle.length : size
  }
  return { items: shown, hidden: total - covered }
}

/** The last segment of a path: "libcrash.so" of "/data/app/…/lib/arm64/libcrash.so". */
const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1) || path

/**
 * "src/cart.ts:42:7", without the parts the notifier did not send. A frame of native code reads
 * "libcrash.so + 0x1698": its module and the address inside it (the line an Android NDK frame
 * carries is that same address in decimal, not a source line).
 */
export function formatFrameLocation(frame: Pick<StackFrame, 'file' | 'line' | 'column' | 'native'>): string {
  const native = frame.native
  if (native && (frame.file === null || frame.file === native.module)) return nativeAddress(native)

  const file = frame.file ?? '(unknown file)'
  if (frame.line === null) return file
  return frame.column === null ? `${file}:${frame.line}` : `${file}:${frame.line}:${frame.column}`
}

/** Where a native frame is in its module: "libcrash.so + 0x1698", else what is known of it. */
export function nativeAddress(native: NonNullable<StackFrame['native']>): string {
  const module = native.module === null ? null : baseName(native.module)
  const offset = native.relative_address
  if (module !== null && offset !== null) return `${module} + ${offset}`
  return module ?? native.frame_address ?? '(unknown module)'
}

/** A native frame symbols resolved (function, file and line from a symbol file), whose address is then shown beside. */
export const isSymbolicatedNative = (frame: Pick<StackFrame, 'native'>): boolean => frame.native?.symbolicated_from !== undefined

export const frameMethod = (frame: Pick<StackFrame, 'method' | 'native'>): string =>
  frame.method?.trim() || (frame.native ? '(unknown function)' : '(anonymous function)')

/** The native details a location leaves out (full module path, absolute address, build id), for a tooltip. */
export function nativeFrameDetails(native: NonNullable<StackFrame['native']>): string {
  return [
    native.module,
    native.frame_address && `frame ${native.frame_address}`,
    native.load_address && `loaded at ${native.load_address}`,
    native.code_identifier && `build id ${native.code_identifier}`,
    native.debug_id && `debug id ${native.debug_id}`,
    native.macho_uuid && `UUID ${native.macho_uuid}`,
  ]
    .filter(Boolean)
    .join('\n')
}

const FOUND_BY: Record<NonNullable<NonNullable<StackFrame['native']>['trust']>, string> = {
  context: 'found from the crash context',
  cfi: 'found with unwind info',
  frame_pointer: 'found by the frame pointer chain',
  scan: 'found by scanning the stack',
}

/** A raw native frame's addresses on one line: "frame 0x… · loaded at 0x… · found with unwind info". */
export function rawNativeDetails(native: NonNullable<StackFrame['native']>): string {
  return [
    native.frame_address && `frame ${native.frame_address}`,
    native.load_address && `loaded at ${native.load_address}`,
    native.lookup_address && `looked up at ${native.lookup_address}`,
    native.trust && FOUND_BY[native.trust],
  ]
    .filter(Boolean)
    .join(' · ')
}

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

/**
 * The frames as the notifier sent them: a frame a source map mapped carries its minified original
 * in `minified`; the others were sent as they are.
 */
export const toMinifiedFrames = (frames: readonly StackFrame[]): StackFrame[] =>
  frames.map((frame) => (frame.minified ? { ...frame.minified } : frame))

/**
 * The frames as the notifier (or the minidump's stack walk) gave them, before symbols: a resolved
 * native frame becomes its `symbolicated_from` again, and the frames its inlined code added go.
 */
export const toRawFrames = (frames: readonly StackFrame[]): StackFrame[] =>
  frames.flatMap((frame) => {
    const from = frame.native?.symbolicated_from
    if (!from) return [frame]
    if (frame.native?.inlined) return []
    return [{ ...frame, method: from.method, file: from.file, line: from.line, column: null, code: null }]
  })

/** Whether symbols resolved any native frame of these stacks, so there are raw frames to show. */
export const hasSymbolicatedFrames = (stacks: readonly { stacktrace: readonly StackFrame[] }[]): boolean =>
  stacks.some((stack) => stack.stacktrace.some(isSymbolicatedNative))
