import { z } from 'zod'
import { DEFAULT_ERRORS_PER_PAGE, perPageSchema, timestampSchema } from './common.ts'
import { PIVOT_FIELD_IDS } from './filters.ts'

/** One value of a pivot field among the filtered events (spec section 2: Pivot value). */
export const pivotValueSchema = z.object({
  event_field_value: z.string(),
  events: z.number().int(),
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
  cursor: z.string().optional(),
})
export type ListPivotValuesQuery = z.infer<typeof listPivotValuesQuerySchema>

/** One pivot of a project or an error with its top values (GET …/pivots, Bugsnag's "List Pivots"). */
export const pivotSummarySchema = z.object({
  event_field_display_id: z.string(),
  name: z.string(),
  /** Distinct values among the matching events. */
  cardinality: z.number().int(),
  summary: z.object({
    /** The top values, most events first. */
    list: z.array(z.object({ value: z.string(), count: z.number().int() })),
    /** Matching events whose value is not in the list (or who have none). */
    other: z.number().int(),
  }),
  /** All its values, paginated. */
  values_url: z.string(),
})
export type PivotSummary = z.infer<typeof pivotSummarySchema>

export const DEFAULT_PIVOT_SUMMARY_SIZE = 5

/** Query of GET …/pivots: how many top values each pivot lists, and which pivots (all by default). */
export const listPivotsQuerySchema = z.object({
  summary_size: z
    .string({ error: 'must be an integer' })
    .regex(/^\d+$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().min(1, 'must be at least 1').max(100, 'must be at most 100'))
    .default(DEFAULT_PIVOT_SUMMARY_SIZE),
  pivots: z
    .array(z.enum(PIVOT_FIELD_IDS, { error: `must be pivot fields: ${PIVOT_FIELD_IDS.join(', ')}` }))
    .transform((ids) => (ids.length > 0 ? [...new Set(ids)] : [...PIVOT_FIELD_IDS])),
})
