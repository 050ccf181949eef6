import { z } from 'zod/mini'

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
  z._default(
    z.pipe(
      z.pipe(z.string({ error: 'must be an integer' }).check(z.regex(/^\d+$/, 'must be an integer')), z.transform(Number)),
      z.number().check(z.gte(1, 'must be at least 1'), z.lte(MAX_PER_PAGE, `must be at most ${MAX_PER_PAGE}`)),
    ),
    defaultValue,
  )
