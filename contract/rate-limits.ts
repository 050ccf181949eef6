// A project's rate limit (docs/ingestion.md, "Rate limiting"): optional event quotas per minute
// and per UTC day, and what sampling did. `GET|PATCH /projects/{id}/rate_limit` (docs/api.md).
import { z } from 'zod/mini'
import { timestampSchema } from './common.ts'

/** The largest quota accepted: far above what one Errata installation indexes. */
export const MAX_EVENT_QUOTA = 1_000_000_000

/** Usage past this fraction of a quota fires projectApproachingRateLimit (docs/webhooks.md). */
export const APPROACHING_FRACTION = 0.8

export const rateLimitSchema = z.object({
  /** Events a minute before sampling starts; null: no per-minute quota. */
  events_per_minute: z.nullable(z.number().check(z.int())),
  /** Events a UTC day before sampling starts; null: no daily quota. */
  events_per_day: z.nullable(z.number().check(z.int())),
  /** Events counted towards the quotas in the current UTC day, while a quota was set. */
  events_today: z.number().check(z.int()),
  /** Events sampling dropped (counted, not stored) in the last 24 hours. */
  dropped_last_24h: z.number().check(z.int()),
  /** Received time of the last event sampling dropped; null if none. */
  last_dropped_at: z.nullable(timestampSchema),
})
export type RateLimit = z.infer<typeof rateLimitSchema>

const quota = z.nullable(
  z
    .number({ error: 'must be a whole number of events, or null for no limit' })
    .check(
      z.int('must be a whole number of events, or null for no limit'),
      z.gte(1, 'must be at least 1, or null for no limit'),
      z.lte(MAX_EVENT_QUOTA, `must be at most ${MAX_EVENT_QUOTA.toLocaleString('en-US')}`),
    ),
)

/** PATCH: either quota or both; null clears one. */
export const updateRateLimitSchema = z
  .partial(z.strictObject({ events_per_minute: quota, events_per_day: quota }))
  .check(
    z.refine(
      (value) => value.events_per_minute !== undefined || value.events_per_day !== undefined,
      'body: give events_per_minute, events_per_day or both',
    ),
  )
export type UpdateRateLimit = z.infer<typeof updateRateLimitSchema>
