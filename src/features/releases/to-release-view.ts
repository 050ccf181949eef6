// What the releases page derives from the releases list (ordered by stage, then version newest
// first): each release against the previous version of its stage, its share of the stage's
// sessions, and the errors-list filters of a version.
import type { Filters } from '../../../contract/filters.ts'
import type { Release } from '../../../contract/releases.ts'

export type Direction = 'up' | 'down' | 'same'

export interface Comparison {
  /** The version this one is compared with: the previous version of the same stage. */
  previousVersion: string
  /** Change of the crash-free rate in percentage points; null when either has no rate. */
  crashFree: { direction: Direction; points: number } | null
  /** Change in errors introduced. */
  newErrors: { direction: Direction; count: number }
}

const directionOf = (delta: number): Direction => (delta > 0 ? 'up' : delta < 0 ? 'down' : 'same')

/**
 * Each release against the next one of its stage in the list (the list is by version, newest
 * first, so that is the previous version); null for a stage's oldest version in the list.
 */
export function compareWithPrevious(releases: readonly Release[]): Map<string, Comparison | null> {
  const comparisons = new Map<string, Comparison | null>()
  for (const [index, release] of releases.entries()) {
    const previous = releases.slice(index + 1).find((r) => r.release_stage === release.release_stage)
    if (!previous) {
      comparisons.set(release.id, null)
      continue
    }
    const points =
      release.crash_free_rate === null || previous.crash_free_rate === null
        ? null
        : Math.round((release.crash_free_rate - previous.crash_free_rate) * 1000) / 10
    const errors = release.errors_introduced_count - previous.errors_introduced_count
    comparisons.set(release.id, {
      previousVersion: previous.app_version,
      crashFree: points === null ? null : { direction: directionOf(points), points: Math.abs(points) },
      newErrors: { direction: directionOf(errors), count: Math.abs(errors) },
    })
  }
  return comparisons
}

/** This release's sessions as a share (0–1) of all sessions of its stage in the same window; null when the stage had none. */
export function adoptionShare(sessions: number, stageSessions: number): number | null {
  if (stageSessions <= 0) return null
  return Math.min(1, sessions / stageSessions)
}

/** "42%", "<1%" for a release with some but under half a percent, "0%". */
export function formatShare(share: number): string {
  if (share > 0 && share < 0.005) return '<1%'
  return `${Math.round(share * 100)}%`
}

/** The errors list of a release: every status, seen in this version and release stage. */
export function releaseErrorFilters(release: Pick<Release, 'app_version' | 'release_stage'>): Filters {
  return {
    'app.version': [{ type: 'eq', value: release.app_version }],
    'app.release_stage': [{ type: 'eq', value: release.release_stage }],
  }
}
