// A project's rate limit (docs/ingestion.md, "Rate limiting"): optional event quotas per minute
// and per UTC day, the recent volume (counted whether or not a quota is set), and what sampling did. `GET|PATCH /projects/{id}/rate_limit` (docs/api.md).
import { z } from 'zod/mini'
import { timestampSchema } from './common.ts'

/** The largest quota accepted: far above what one Errata installation indexes. */
export const MAX_EVENT_QUOTA = 1_000_000_000

/** Usage past this fraction of a quota fires projectApproachingRateLimit (docs/webhooks.md). */
export const APPROACHING_FRACTION = 0.8

/** One hour of a project's received events and how many of them sampling dropped. */
export const rateLimitHourSchema = z.object({
  hour: timestampSchema,
  events: z.number().check(z.int()),
  dropped: z.number().check(z.int()),
})
export type RateLimitHour = z.infer<typeof rateLimitHourSchema>

export const rateLimitSchema = z.object({
  /** Events a minute before sampling starts; null: no per-minute quota. */
  events_per_minute: z.nullable(z.number().check(z.int())),
  /** Events a UTC day before sampling starts; null: no daily quota. */
  events_per_day: z.nullable(z.number().check(z.int())),
  /** Events received in the current UTC day (kept or dropped; not those of discarded errors), quota or not. */
  events_today: z.number().check(z.int()),
  /** Events received in the last whole minute (the one before the current one). */
  events_last_minute: z.number().check(z.int()),
  /** Events received in the last 60 minutes, the current one included. */
  events_last_hour: z.number().check(z.int()),
  /** The most events received in one minute in the last 24 hours: a per-minute quota's yardstick. */
  busiest_minute_24h: z.number().check(z.int()),
  /** The last 24 UTC clock hours, oldest first, the current (partial) one last. */
  hours: z.array(rateLimitHourSchema),
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
