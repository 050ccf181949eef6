import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../context.ts'
import { ValidationError } from '../failures.ts'

// PostgreSQL text cannot hold U+0000: a NUL that reached a query would fail there as a 500.
// Ingestion strips NULs from event data (it must keep every event); the API refuses them,
// naming the field, as it does any other invalid input.
const NUL = '\u0000'
const problem = (field: string) => `${field}: must not contain NUL characters (\\u0000)`

/** Deeper API bodies are refused: no endpoint takes more than a few levels, and a walk must not overflow the stack. */
export const MAX_BODY_DEPTH = 64

/**
 * Throws a 400 naming the first string (or key) of a parsed JSON body that holds a NUL,
 * or the first value nested deeper than MAX_BODY_DEPTH. Iterative: JSON.parse accepts
 * bodies nested thousands of levels deep.
 */
export function rejectNulInJson(body: unknown): void {
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value: body, path: 'body', depth: 0 }]
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, path, depth } = next
    if (typeof value === 'string') {
      if (value.includes(NUL)) throw new ValidationError(problem(path))
      continue
    }
    if (value === null || typeof value !== 'object') continue
    if (depth >= MAX_BODY_DEPTH) throw new ValidationError(`${path}: nested more than ${MAX_BODY_DEPTH} levels deep`)
    if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) {
        pending.push({ value: value[index], path: `${path}[${index}]`, depth: depth + 1 })
      }
      continue
    }
    for (const [key, item] of Object.entries(value).reverse()) {
      if (key.includes(NUL)) throw new ValidationError(problem(path))
      pending.push({ value: item, path: path === 'body' ? key : `${path}.${key}`, depth: depth + 1 })
    }
  }
}

/** 400 for a query parameter whose name or value holds a NUL (from %00), before any route reads it. */
export const rejectNulInQuery: MiddlewareHandler<AppEnv> = async (c, next) => {
  for (const [name, value] of new URL(c.req.url).searchParams) {
    if (name.includes(NUL) || value.includes(NUL)) throw new ValidationError(problem(name.replaceAll(NUL, '')))
  }
  await next()
}
