import type { StackFrame } from '../../../contract/events.ts'

/** A block of `cycle` frames from `start` that occurs `repeats` times in a row: frames start … start + cycle × repeats − 1. */
export interface FrameRepeat {
  start: number
  cycle: number
  repeats: number
}

/** Fewer repetitions than this are shown as they are: two equal frames in a row are no recursion to fold. */
export const MIN_REPEATS = 3
/** The longest cycle looked for: mutual recursion through more functions than this is rare, and costs a look at each. */
export const MAX_CYCLE = 10

/** Frames are the same when they name the same place: file, method, line and column (and a native frame's address). */
const frameKey = (frame: Pick<StackFrame, 'file' | 'method' | 'line' | 'column' | 'native'>): string =>
  JSON.stringify([frame.file, frame.method, frame.line, frame.column, frame.native?.frame_address ?? null])

/**
 * The recursions of a stack trace: each run where a block of 1 to `maxCycle` frames repeats at
 * least `minRepeats` times, read from the top. At each frame the block that covers the most
 * frames wins (the shortest when two cover as many: A A A A is A × 4, not A A × 2); the frames
 * after the last whole repetition stay outside it.
 */
export function findRepeats(
  frames: readonly Pick<StackFrame, 'file' | 'method' | 'line' | 'column' | 'native'>[],
  { minRepeats = MIN_REPEATS, maxCycle = MAX_CYCLE }: { minRepeats?: number; maxCycle?: number } = {},
): FrameRepeat[] {
  const keys = frames.map(frameKey)
  const sameBlock = (a: number, b: number, length: number) => {
    for (let offset = 0; offset < length; offset++) if (keys[a + offset] !== keys[b + offset]) return false
    return true
  }
  const found: FrameRepeat[] = []
  let start = 0
  while (start < keys.length) {
    let best: FrameRepeat | null = null
    for (let cycle = 1; cycle <= maxCycle && start + cycle * minRepeats <= keys.length; cycle++) {
      let repeats = 1
      while (start + cycle * (repeats + 1) <= keys.length && sameBlock(start, start + cycle * repeats, cycle)) repeats++
      if (repeats >= minRepeats && (!best || cycle * repeats > best.cycle * best.repeats)) best = { start, cycle, repeats }
    }
    if (best) found.push(best)
    start += best ? best.cycle * best.repeats : 1
  }
  return found
}
