import { vi } from 'vitest'

/**
 * Runs `work` with the wall clock (Date only) stopped at `at`, then lets it run again. Ingestion
 * stamps an event's received time with `new Date()`: a test that needs two events received at
 * different times sends them at times it chooses, instead of sleeping between them. Timers and
 * performance.now() stay real, so whatever waits on them (the indexer, database deadlines) goes on.
 */
export async function atWallClock<T>(at: Date | number, work: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(at)
  try {
    return await work()
  } finally {
    vi.useRealTimers()
  }
}
