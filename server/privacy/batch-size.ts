/**
 * How long one step of a deletion (a batch of events, or a chunk of what it leaves to recompute)
 * should hold its project's lock, and on the embedded database the whole database: the errors
 * list waits for at most about this long behind one.
 */
export const BATCH_TARGET_MS = 50

/**
 * The next step's size: as many items as took about BATCH_TARGET_MS in the last one, from `min`
 * up to `max`. A step that found fewer than it asked for (the last one) says nothing about the pace.
 */
export function nextBatchSize(size: number, done: number, tookMs: number, max: number, min = 10): number {
  if (done < size) return size
  const perItem = tookMs / Math.max(1, done)
  return Math.max(min, Math.min(max, Math.round(BATCH_TARGET_MS / Math.max(perItem, 0.001))))
}
