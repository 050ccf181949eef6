import { describe, expect, it } from 'vitest'
import { BATCH_TARGET_MS, nextBatchSize } from './batch-size.ts'

describe('deletion batch sizes', () => {
  it('take as many events as fit in the target step time, between 10 and the configured size', () => {
    expect(BATCH_TARGET_MS).toBe(100)
    // 500 events in 2 s: 25 fit in 100 ms.
    expect(nextBatchSize(500, 500, 2000, 500)).toBe(25)
    // Fast: back up to the configured size, never above it.
    expect(nextBatchSize(50, 50, 2, 500)).toBe(500)
    // Very slow: no fewer than 10.
    expect(nextBatchSize(50, 50, 10_000, 500)).toBe(10)
    // A short batch (the last one) says nothing about the pace.
    expect(nextBatchSize(200, 3, 90, 500)).toBe(200)
  })

  it('let a finishing step go down to a single item when one item alone takes long', () => {
    // 200 pivot values in 4 s: 5 fit in 100 ms.
    expect(nextBatchSize(200, 200, 4000, 200, 1)).toBe(5)
    // One value spanning every error took 400 ms: still one at a time.
    expect(nextBatchSize(1, 1, 400, 200, 1)).toBe(1)
  })
})
