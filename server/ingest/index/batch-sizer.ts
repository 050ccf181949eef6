// How many events an index batch takes. A batch is one transaction, and on the embedded
// database it holds the only connection until it commits: every API request and health
// check waits behind it. Large batches are cheaper per event (docs/ingestion.md), so they
// grow up to the configured size, but only as far as they stay near TARGET_BATCH_MS.

/** About how long one index transaction may hold the database during a backlog. */
export const TARGET_BATCH_MS = 500
/** Smaller batches cost several times more per event; a backlog never goes below this. */
const MIN_BATCH = 200
/** Batches this small are mostly fixed costs: they say little about the per-event time. */
const MIN_SAMPLE = 50
/** Before any measurement: about what an event costs under load on a small machine. */
const INITIAL_MS_PER_EVENT = 0.5

interface BatchSizer {
  /** The size of the next batch. */
  size(): number
  /** Records how long a batch of `events` took. */
  record(events: number, ms: number): void
}

export function createBatchSizer(maxSize: number, targetMs = TARGET_BATCH_MS): BatchSizer {
  let msPerEvent = INITIAL_MS_PER_EVENT
  return {
    size: () => Math.max(Math.min(MIN_BATCH, maxSize), Math.min(maxSize, Math.round(targetMs / msPerEvent))),
    record(events, ms) {
      if (events < MIN_SAMPLE || !(ms >= 0)) return
      // Half the weight to the newest batch: follows a machine that slows down within a few batches.
      msPerEvent = (msPerEvent + ms / events) / 2
    },
  }
}
