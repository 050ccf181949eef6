// Stability (crash-free sessions) of a project's releases: GET /projects/{id}/stability.
import { z } from 'zod/mini'
import { timestampSchema } from './common.ts'

/** The period when no event.since filter is given: the 30 days before event.before (or now). */
export const DEFAULT_STABILITY_WINDOW_MS = 30 * 86_400_000
/** Releases answered at most, the most recently seen first. */
export const MAX_STABILITY_RELEASES = 100
/** The filter fields the endpoint takes (app.release_stage: eq values only). */
export const STABILITY_FILTER_FIELDS = ['event.since', 'event.before', 'app.release_stage'] as const

/**
 * 1 − crashed / sessions: null with no sessions, and 0 rather than below when more sessions
 * crashed than were counted as started (a notifier sends its session counts late, or not at all).
 */
export function crashFreeRate(sessions: number, crashed: number): number | null {
  if (sessions <= 0) return null
  return Math.max(0, 1 - crashed / sessions)
}

const countsShape = {
  /** Sessions started in the period (POST /sessions). */
  sessions: z.number().check(z.int(), z.gte(0)),
  /** Of the sessions started in the period, those an unhandled event named. */
  crashed_sessions: z.number().check(z.int(), z.gte(0)),
  /** 0 to 1; null when no session was counted. */
  crash_free_rate: z.nullable(z.number().check(z.gte(0), z.lte(1))),
}

export const stabilityReleaseSchema = z.object({
  release_stage: z.string(),
  /** '' when the notifier sent no app version. */
  app_version: z.string(),
  ...countsShape,
  /** The start minute of the earliest and latest session of this release in the period. */
  first_seen: timestampSchema,
  last_seen: timestampSchema,
})

export const stabilitySchema = z.object({
  total: z.object({
    ...countsShape,
    /** The start minute of the period's earliest session or crashed session; null when none. */
    first_seen: z.nullable(timestampSchema),
  }),
  /** At most MAX_STABILITY_RELEASES, ordered by last_seen, newest first; `total` counts them all. */
  releases: z.array(stabilityReleaseSchema),
})
export type Stability = z.infer<typeof stabilitySchema>

/**
 * One bucket of GET /projects/{id}/stability/trend: the sessions that started from `from`
 * (inclusive) to `to` (exclusive) and those of them that crashed, over every release asked for.
 */
export const stabilityBucketSchema = z.object({ from: timestampSchema, to: timestampSchema, ...countsShape })
export type StabilityBucket = z.infer<typeof stabilityBucketSchema>
export const stabilityTrendSchema = z.array(stabilityBucketSchema)
