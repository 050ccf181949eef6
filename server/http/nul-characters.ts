import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../context.ts'
import { ValidationError } from './errors.ts'

// PostgreSQL text cannot hold U+0000: a NUL that reached a query would fail there as a 500.
// Ingestion strips NULs from event data (it must keep every event); the API refuses them,
// naming the field, as it does any other invalid input.
const NUL = '\u0000'
const problem = (field: string) => `${field}: must not contain NUL characters (\\u0000)`

/** Throws a 400 naming the first string (or key) of a parsed JSON body that holds a NUL. */
export function rejectNulInJson(value: unknown, path = 'body'): void {
  if (typeof value === 'string') {
    if (value.includes(NUL)) throw new ValidationError(problem(path))
    return
  }
  if (value === null || typeof value !== 'object') return
  if (Array.isArray(value)) {
    value.forEach((item, index) => rejectNulInJson(item, `${path}[${index}]`))
    return
  }
  for (const [key, item] of Object.entries(value)) {
    if (key.includes(NUL)) throw new ValidationError(problem(path))
    rejectNulInJson(item, path === 'body' ? key : `${path}.${key}`)
  }
}

/** 400 for a query parameter whose name or value holds a NUL (from %00), before any route reads it. */
export const rejectNulInQuery: MiddlewareHandler<AppEnv> = async (c, next) => {
  for (const [name, value] of new URL(c.req.url).searchParams) {
    if (name.includes(NUL) || value.includes(NUL)) throw new ValidationError(problem(name.replaceAll(NUL, '')))
  }
  await next()
}
