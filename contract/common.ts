import { z } from 'zod'

/** ISO 8601 timestamps on the wire. */
export const timestampSchema = z.string()
export const idSchema = z.string()

/** Pagination limits, documented in docs/api.md. */
export const MAX_PER_PAGE = 100
export const DEFAULT_ERRORS_PER_PAGE = 30
export const DEFAULT_EVENTS_PER_PAGE = 10

export const directionSchema = z.enum(['asc', 'desc'])
export type Direction = z.infer<typeof directionSchema>

/**
 * `per_page` from a query string: an integer from 1 to MAX_PER_PAGE, written in plain decimal
 * digits (Number() would also read "1e2", "0x0A", "2.0" and " 7").
 */
export const perPageSchema = (defaultValue: number) =>
  z
    .string({ error: 'must be an integer' })
    .regex(/^\d+$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().min(1, 'must be at least 1').max(MAX_PER_PAGE, `must be at most ${MAX_PER_PAGE}`))
    .default(defaultValue)
