// What the releases page derives from the releases list: each release's crash-free trend
// against the release before it in the same stage, and the errors-list filters of a version.
import type { Filters } from '../../../contract/filters.ts'
import type { Release } from '../../../contract/releases.ts'

export type Trend = { direction: 'up' | 'down' | 'same'; points: number } | null

/**
 * The change in crash-free rate (percentage points) from the previous release of the same
 * stage in the list (the list is newest first); null when either has no rate or there is none.
 */
export function crashFreeTrends(releases: readonly Release[]): Map<string, Trend> {
  const trends = new Map<string, Trend>()
  for (const [index, release] of releases.entries()) {
    const previous = releases.slice(index + 1).find((r) => r.release_stage === release.release_stage)
    if (!previous || release.crash_free_rate === null || previous.crash_free_rate === null) {
      trends.set(release.id, null)
      continue
    }
    const points = Math.round((release.crash_free_rate - previous.crash_free_rate) * 1000) / 10
    trends.set(release.id, { direction: points > 0 ? 'up' : points < 0 ? 'down' : 'same', points: Math.abs(points) })
  }
  return trends
}

/** The errors list of a release: every status, seen in this version and release stage. */
export function releaseErrorFilters(release: Pick<Release, 'app_version' | 'release_stage'>): Filters {
  return {
    'app.version': [{ type: 'eq', value: release.app_version }],
    'app.release_stage': [{ type: 'eq', value: release.release_stage }],
  }
}
