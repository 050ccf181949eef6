import { z } from 'zod'
import { DEFAULT_ERRORS_PER_PAGE, perPageSchema, timestampSchema } from './common.ts'

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
