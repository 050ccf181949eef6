import { ChevronDown, ChevronRight, Code2, Repeat } from 'lucide-react'
import { useId, useState } from 'react'
import type { StackFrame } from '../../../contract/events.ts'
import { Badge } from '../../components/ui/badge.tsx'
import { TruncatedText } from '../../components/ui/truncated-text.tsx'
import { cn } from '../../lib/cn.ts'
import { CodeContext } from './code-context.tsx'
import {
  defaultCodeFrameIndex,
  formatFrameLocation,
  frameMethod,
  isSymbolicatedNative,
  nativeAddress,
  nativeFrameDetails,
  previewItems,
  rawNativeDetails,
  toFrameItems,
  type IndexedFrame,
} from './to-frames.ts'

/** A frame's method or file beyond this many characters is cut, with "Show all" (minified or generated paths run to thousands). */
const FRAME_TEXT_CHARS = 240

/** For the row's accessible name, which a screen reader reads whole on every frame. */
const brief = (text: string) => (text.length > FRAME_TEXT_CHARS ? `${text.slice(0, FRAME_TEXT_CHARS)}…` : text)

function FrameRow({ frame, index, codeOpenByDefault, raw }: IndexedFrame & { codeOpenByDefault: boolean; raw: boolean }) {
  const hasCode = frame.code !== null && Object.keys(frame.code).length > 0
  const [showCode, setShowCode] = useState(codeOpenByDefault && hasCode)
  const location = formatFrameLocation(frame)
  const method = frameMethod(frame)
  // A native frame symbols resolved reads "function (file:line)", its module and address beside.
  const resolved = !raw && isSymbolicatedNative(frame) && frame.native

  return (
    <li
      data-in-project={frame.in_project}
      aria-label={`${frame.in_project ? 'In-project frame' : 'Library frame'} ${index + 1}: ${brief(method)} at ${brief(location)}`}
      className={cn(
        'border-l-2 py-1.5 pr-2 pl-3',
        frame.in_project ? 'border-accent bg-accent-soft/30' : 'border-transparent text-muted-foreground',
      )}
    >
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-0.5">
        <TruncatedText
          text={method}
          maxChars={FRAME_TEXT_CHARS}
          what={`the method of frame ${index + 1}`}
          className={cn('font-mono text-xs', frame.in_project ? 'font-semibold text-foreground' : 'text-muted-foreground')}
        />
        <TruncatedText
          text={resolved ? `(${location})` : location}
          maxChars={FRAME_TEXT_CHARS}
          what={`the file of frame ${index + 1}`}
          className="font-mono text-xs text-muted-foreground"
          title={frame.native && !resolved ? nativeFrameDetails(frame.native) : undefined}
        />
        {frame.native?.inlined ? <Badge>inlined</Badge> : null}
        {frame.in_project ? <Badge tone="accent">in project</Badge> : null}
        {frame.native?.is_pc ? <Badge>program counter</Badge> : null}
        {resolved ? (
          // Where the function is: its library and the address inside it, to the right on wide screens.
          <span title={nativeFrameDetails(resolved)} className="font-mono text-xs text-muted-foreground [overflow-wrap:anywhere] sm:ml-auto">
            {nativeAddress(resolved)}
          </span>
        ) : null}
        {hasCode ? (
          <button
            type="button"
            aria-expanded={showCode}
            onClick={() => setShowCode((value) => !value)}
            className="ml-auto inline-flex items-center gap-1 rounded text-xs text-accent hover:underline"
          >
            <Code2 aria-hidden="true" className="size-3.5" />
            {showCode ? 'Hide code' : 'Show code'}
            <span className="sr-only"> of {brief(method)}</span>
          </button>
        ) : null}
      </div>
      {raw && frame.native ? <p className="mt-0.5 font-mono text-xs text-muted-foreground [overflow-wrap:anywhere]">{rawNativeDetails(frame.native)}</p> : null}
      {showCode ? (
        <div className="mt-2">
          <CodeContext frame={frame} label={`Code around ${brief(location)}`} />
        </div>
      ) : null}
    </li>
  )
}

function LibraryGroup({ frames, codeFrame, raw }: { frames: IndexedFrame[]; codeFrame: number; raw: boolean }) {
  const [open, setOpen] = useState(false)
  const count = frames.length
  const first = (frames[0]?.index ?? 0) + 1
  const last = (frames.at(-1)?.index ?? 0) + 1
  const label = `${open ? 'Hide' : 'Show'} ${count} library ${count === 1 ? 'frame' : 'frames'}`
  return (
    <li className="border-l-2 border-transparent">
      <button
        type="button"
        aria-expanded={open}
        aria-label={`${label}, ${count === 1 ? `frame ${first}` : `frames ${first} to ${last}`}`}
        onClick={() => setOpen((value) => !value)}
        className="flex w-full items-center gap-1.5 rounded py-1 pl-3 text-left text-xs text-muted-foreground hover:text-foreground"
      >
        {open ? <ChevronDown aria-hidden="true" className="size-3.5" /> : <ChevronRight aria-hidden="true" className="size-3.5" />}
        {label}
      </button>
      {open ? (
        <ol className="flex flex-col">
          {frames.map((item) => (
            <FrameRow key={item.index} {...item} codeOpenByDefault={item.index === codeFrame} raw={raw} />
          ))}
        </ol>
      ) : null}
    </li>
  )
}

/**
 * A recursion folded to one run of its cycle, "× N", with a button that shows every repetition
 * (and folds them again).
 */
function RepeatGroup({
  cycle,
  repeats,
  frames,
  codeFrame,
  raw,
}: {
  cycle: IndexedFrame[]
  repeats: number
  frames: IndexedFrame[]
  codeFrame: number
  raw: boolean
}) {
  const [open, setOpen] = useState(false)
  const listId = useId()
  const first = (frames[0]?.index ?? 0) + 1
  const last = (frames.at(-1)?.index ?? 0) + 1
  const what = cycle.length === 1 ? 'This frame repeats' : `These ${cycle.length} frames repeat`
  const label = open ? 'Fold the repetitions' : `Show all ${frames.length.toLocaleString('en-US')} frames`
  return (
    <li
      aria-label={`Recursion: ${cycle.length === 1 ? '1 frame' : `${cycle.length} frames`} repeated ${repeats} times, frames ${first} to ${last}`}
      // Framed: the box shows which frames repeat.
      className="rounded-md border border-dashed border-warning/50 py-0.5"
    >
      <div className="flex flex-wrap items-center gap-x-2 gap-y-0.5 py-1 pl-3 text-xs text-muted-foreground">
        <Repeat aria-hidden="true" className="size-3.5" />
        <Badge tone="warning">× {repeats.toLocaleString('en-US')}</Badge>
        <span>
          {what} {repeats.toLocaleString('en-US')} times (recursion)
        </span>
        <button
          type="button"
          aria-expanded={open}
          aria-controls={listId}
          aria-label={`${label} of the recursion, frames ${first} to ${last}`}
          onClick={() => setOpen((value) => !value)}
          className="inline-flex items-center gap-1 rounded font-medium text-accent hover:underline"
        >
          {open ? <ChevronDown aria-hidden="true" className="size-3.5" /> : <ChevronRight aria-hidden="true" className="size-3.5" />}
          {label}
        </button>
      </div>
      <ol id={listId} className="flex flex-col gap-0.5">
        {(open ? frames : cycle).map((item) => (
          <FrameRow key={item.index} {...item} codeOpenByDefault={item.index === codeFrame} raw={raw} />
        ))}
      </ol>
    </li>
  )
}

/** Frames shown before "Show all": the top of a deep stack (a recursion, a native crash) is what explains it. */
export const PREVIEW_FRAMES = 50

/** Frames top (where it was thrown) to bottom; in-project frames emphasized, library runs collapsed, recursions folded. */
export function StackTrace({
  frames,
  label,
  emptyText = 'No stack trace was sent with this exception.',
  raw = false,
}: {
  frames: readonly StackFrame[]
  label: string
  emptyText?: string
  /** The frames as they came: native frames show their addresses and how they were found. */
  raw?: boolean
}) {
  const [showAll, setShowAll] = useState(false)
  if (frames.length === 0) {
    return <p className="text-sm text-muted-foreground">{emptyText}</p>
  }
  const codeFrame = defaultCodeFrameIndex(frames)
  const all = toFrameItems(frames)
  const { items, hidden } = showAll ? { items: all, hidden: 0 } : previewItems(all, PREVIEW_FRAMES)
  return (
    <ol aria-label={label} className="flex flex-col gap-0.5">
      {items.map((item) =>
        item.kind === 'frame' ? (
          <FrameRow key={item.index} frame={item.frame} index={item.index} codeOpenByDefault={item.index === codeFrame} raw={raw} />
        ) : item.kind === 'repeat' ? (
          <RepeatGroup key={item.key} cycle={item.cycle} repeats={item.repeats} frames={item.frames} codeFrame={codeFrame} raw={raw} />
        ) : (
          <LibraryGroup key={item.key} frames={item.frames} codeFrame={codeFrame} raw={raw} />
        ),
      )}
      {hidden > 0 ? (
        <li className="border-l-2 border-transparent">
          <button
            type="button"
            onClick={() => setShowAll(true)}
            className="flex items-center gap-1.5 rounded py-1 pl-3 text-xs text-accent hover:underline"
          >
            <ChevronDown aria-hidden="true" className="size-3.5" />
            Show all {frames.length.toLocaleString('en-US')} frames ({hidden.toLocaleString('en-US')} more)
          </button>
        </li>
      ) : null}
    </ol>
  )
}
