import { z } from 'zod/mini'
import { timestampSchema } from './common.ts'

/** One bucket of a trend (spec section 2): events received from `from` (inclusive) to `to` (exclusive). */
export const trendBucketSchema = z.object({
  events_count: z.number().check(z.int()),
  from: timestampSchema,
  to: timestampSchema,
})
export type TrendBucket = z.infer<typeof trendBucketSchema>

/** A trend answers at most this many buckets; more is a 400 naming the limit. */
export const MAX_TREND_BUCKETS = 2_000
/** The window of a trend when no event.since filter is given. */
export const DEFAULT_TREND_WINDOW_MS = 30 * 86_400_000

const RESOLUTION = /^(\d{1,5})([mhd])$/
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const

/** `<number><unit>` with units m, h, d (such as 30m, 1h, 1d) in milliseconds; null when not one. */
export function parseResolution(text: string): number | null {
  const match = RESOLUTION.exec(text)
  if (!match) return null
  const size = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]
  return size > 0 ? size : null
}

export const trendQuerySchema = z
  .object({
    resolution: z.optional(
      z.string().check(z.refine((value) => parseResolution(value) !== null, 'must be 1 to 5 digits then m, h or d, such as 30m, 1h or 1d')),
    ),
    // Plain decimal digits, as per_page: Number() would also read "1e3", "0x0A", "5.0" and " 5".
    buckets_count: z.optional(
      z.pipe(
        z.pipe(z.string({ error: 'must be an integer' }).check(z.regex(/^\d+$/, 'must be an integer')), z.transform(Number)),
        z.number().check(z.gte(1, 'must be at least 1'), z.lte(MAX_TREND_BUCKETS, `must be at most ${MAX_TREND_BUCKETS}`)),
      ),
    ),
  })
  .check(
    z.refine((q) => !(q.resolution && q.buckets_count), {
      message: 'give either resolution or buckets_count, not both',
      path: ['resolution'],
    }),
  )
export type TrendQuery = z.infer<typeof trendQuerySchema>

/** Sparklines of several errors at once (GET /projects/{id}/error_trends?error_ids=a,b). */
export const errorTrendsSchema = z.record(z.string(), z.array(trendBucketSchema))
export type ErrorTrends = z.infer<typeof errorTrendsSchema>
