import { describe, expect, it } from 'vitest'
import type { Release } from '../../../contract/releases.ts'
import { adoptionShare, compareWithPrevious, formatShare, releaseErrorFilters } from './to-release-view.ts'

const release = (id: string, stage: string, version: string, rate: number | null, introduced = 0) =>
  ({ id, release_stage: stage, app_version: version, crash_free_rate: rate, errors_introduced_count: introduced }) as Release

describe('compareWithPrevious', () => {
  it('compares each release with the previous version of its stage: crash-free points and new errors', () => {
    const comparisons = compareWithPrevious([
      release('c', 'production', '2.1.0', 0.95, 5),
      release('b', 'production', '2.0.0', 0.99, 2),
      release('a', 'production', '1.9.0', null, 2),
      release('s', 'staging', '2.1.0', 0.9),
    ])
    expect(comparisons.get('c')).toEqual({
      previousVersion: '2.0.0',
      crashFree: { direction: 'down', points: 4 },
      newErrors: { direction: 'up', count: 3 },
    })
    // No rate on one side: no crash-free change, but the errors still compare.
    expect(comparisons.get('b')).toEqual({ previousVersion: '1.9.0', crashFree: null, newErrors: { direction: 'same', count: 0 } })
    expect(comparisons.get('a')).toBeNull()
    expect(comparisons.get('s')).toBeNull()
  })
})

describe('adoption', () => {
  it('is the release’s share of its stage’s sessions, none when the stage had none', () => {
    expect(adoptionShare(25, 100)).toBe(0.25)
    expect(adoptionShare(0, 100)).toBe(0)
    expect(adoptionShare(0, 0)).toBeNull()
    // Counted a moment apart, the release may read more than the stage: never over 100 %.
    expect(adoptionShare(101, 100)).toBe(1)
    expect([0.42, 0.004, 0, 1].map(formatShare)).toEqual(['42%', '<1%', '0%', '100%'])
  })
})

describe('releaseErrorFilters', () => {
  it('selects the version in its stage, every status', () => {
    expect(releaseErrorFilters({ app_version: '2.4.0', release_stage: 'production' })).toEqual({
      'app.version': [{ type: 'eq', value: '2.4.0' }],
      'app.release_stage': [{ type: 'eq', value: 'production' }],
    })
  })
})
