import { describe, expect, it } from 'vitest'
import type { Release } from '../../../contract/releases.ts'
import { crashFreeTrends, releaseErrorFilters } from './to-release-view.ts'

const release = (id: string, stage: string, rate: number | null) => ({ id, release_stage: stage, crash_free_rate: rate }) as Release

describe('crashFreeTrends', () => {
  it('compares each release with the previous one of its stage, in points', () => {
    const trends = crashFreeTrends([
      release('c', 'production', 0.95),
      release('s', 'staging', 0.9),
      release('b', 'production', 0.99),
      release('a', 'production', null),
    ])
    expect(trends.get('c')).toEqual({ direction: 'down', points: 4 })
    expect(trends.get('s')).toBeNull()
    expect(trends.get('b')).toBeNull()
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
