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

/** `per_page` from a query string: an integer from 1 to MAX_PER_PAGE. */
export const perPageSchema = (defaultValue: number) =>
  z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(MAX_PER_PAGE, `must be at most ${MAX_PER_PAGE}`)
    .default(defaultValue)
