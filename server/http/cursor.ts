import { ValidationError } from './errors.ts'
import { isWellFormedId } from './path-ids.ts'

/**
 * Keyset cursors: the sort value and id of the last row of a page, opaque to clients
 * (base64url JSON). Stable under concurrent inserts, unlike page numbers.
 */
export interface Cursor {
  /** Sort value of the last row: an ISO timestamp or a number. */
  v: string | number
  /** Id of the last row (tie-breaker). */
  id: string
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.v, cursor.id])).toString('base64url')
}

export function decodeCursor(text: string): Cursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      (typeof value[0] === 'string' || (typeof value[0] === 'number' && Number.isSafeInteger(value[0]))) &&
      typeof value[1] === 'string' &&
      isWellFormedId(value[1])
    ) {
      return { v: value[0], id: value[1] }
    }
  } catch {
    // fall through to the validation error
  }
  throw new ValidationError('cursor: is not a cursor this server issued (use the Link rel="next" address)')
}
