import { z } from 'zod/mini'
import { DEFAULT_ERRORS_PER_PAGE, perPageSchema, timestampSchema } from './common.ts'
import { PIVOT_FIELD_IDS } from './filters.ts'

/** One value of a pivot field among the filtered events (spec section 2: Pivot value). */
export const pivotValueSchema = z.object({
  event_field_value: z.string(),
  events: z.number().check(z.int()),
  /** For user.id: the newest user.email and user.name seen with it. */
  fields: z.record(z.string(), z.string()),
  first_seen: timestampSchema,
  last_seen: timestampSchema,
  /** This value's share of the filtered events, 0 to 1. */
  proportion: z.number(),
})
export type PivotValue = z.infer<typeof pivotValueSchema>

export const listPivotValuesQuerySchema = z.object({
  per_page: perPageSchema(DEFAULT_ERRORS_PER_PAGE),
  /** Opaque cursor from the previous page's Link rel="next". */
  cursor: z.optional(z.string()),
})
export type ListPivotValuesQuery = z.infer<typeof listPivotValuesQuerySchema>

/** One pivot of a project or an error with its top values (GET …/pivots, Bugsnag's "List Pivots"). */
export const pivotSummarySchema = z.object({
  event_field_display_id: z.string(),
  name: z.string(),
  /** Distinct values among the matching events. */
  cardinality: z.number().check(z.int()),
  summary: z.object({
    /** The top values, most events first. */
    list: z.array(z.object({ value: z.string(), count: z.number().check(z.int()) })),
    /** Matching events whose value is not in the list (or who have none). */
    other: z.number().check(z.int()),
  }),
  /** All its values, paginated. */
  values_url: z.string(),
})
export type PivotSummary = z.infer<typeof pivotSummarySchema>

export const DEFAULT_PIVOT_SUMMARY_SIZE = 5

/** Query of GET …/pivots: how many top values each pivot lists, and which pivots (all by default). */
export const listPivotsQuerySchema = z.object({
  summary_size: z._default(
    z.pipe(
      z.pipe(z.string({ error: 'must be an integer' }).check(z.regex(/^\d+$/, 'must be an integer')), z.transform(Number)),
      z.number().check(z.gte(1, 'must be at least 1'), z.lte(100, 'must be at most 100')),
    ),
    DEFAULT_PIVOT_SUMMARY_SIZE,
  ),
  pivots: z.pipe(
    z.array(z.enum(PIVOT_FIELD_IDS, { error: `must be pivot fields: ${PIVOT_FIELD_IDS.join(', ')}` })),
    z.transform((ids) => (ids.length > 0 ? [...new Set(ids)] : [...PIVOT_FIELD_IDS])),
  ),
})
