/**
 * How long one step of a deletion (a batch of events, or a chunk of what it leaves to recompute)
 * should hold its project's lock. On PostgreSQL reads do not wait for it (MVCC); ingestion and
 * triage of the project do. On PGlite everything does: see its backgroundPace (db/capabilities.ts).
 */
export const BATCH_TARGET_MS = 100

/**
 * The next step's size: as many items as took about `targetMs` in the last one, from `min`
 * up to `max`. A step that found fewer than it asked for (the last one) says nothing about the pace.
 */
export function nextBatchSize(size: number, done: number, tookMs: number, max: number, min = 10, targetMs = BATCH_TARGET_MS): number {
  if (done < size) return size
  const perItem = tookMs / Math.max(1, done)
  return Math.max(min, Math.min(max, Math.round(targetMs / Math.max(perItem, 0.001))))
}
