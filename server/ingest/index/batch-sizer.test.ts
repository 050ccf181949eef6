import { describe, expect, it } from 'vitest'
import { createBatchSizer } from './batch-sizer.ts'

describe('index batch sizing', () => {
  it('starts below the maximum and grows while batches stay well under the target time', () => {
    const sizer = createBatchSizer(2000, 500)
    expect(sizer.size()).toBe(1000)
    // 0.2 ms per event: 500 ms holds 2,500, capped at the configured 2,000.
    for (let i = 0; i < 5; i++) sizer.record(sizer.size(), sizer.size() * 0.2)
    expect(sizer.size()).toBe(2000)
  })

  it('shrinks when events get slower, so one transaction holds the database about the target time', () => {
    const sizer = createBatchSizer(2000, 500)
    for (let i = 0; i < 8; i++) sizer.record(sizer.size(), sizer.size() * 1.6)
    const size = sizer.size()
    expect(size).toBeGreaterThanOrEqual(300)
    expect(size).toBeLessThanOrEqual(340)
  })

  it('never goes below 200 events, nor above the configured size, and ignores tiny batches', () => {
    const sizer = createBatchSizer(2000, 500)
    for (let i = 0; i < 8; i++) sizer.record(100, 10_000)
    expect(sizer.size()).toBe(200)
    sizer.record(10, 0) // a tiny batch says nothing
    expect(sizer.size()).toBe(200)
    expect(createBatchSizer(50, 500).size()).toBe(50)
  })
})
