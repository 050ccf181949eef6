import { describe, expect, it } from 'vitest'
import { nextBatchSize } from './privacy.jobs.ts'

describe('deletion batch sizes', () => {
  it('take as many events as fit in about 100 ms, between 10 and the configured size', () => {
    // 500 events in 1 s: 50 fit in 100 ms.
    expect(nextBatchSize(500, 500, 1000, 500)).toBe(50)
    // Fast: back up to the configured size, never above it.
    expect(nextBatchSize(50, 50, 2, 500)).toBe(500)
    // Very slow: no fewer than 10.
    expect(nextBatchSize(50, 50, 10_000, 500)).toBe(10)
    // A short batch (the last one) says nothing about the pace.
    expect(nextBatchSize(200, 3, 90, 500)).toBe(200)
  })
})
