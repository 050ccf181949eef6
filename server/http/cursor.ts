import { createHash } from 'node:crypto'
import { ValidationError } from '../failures.ts'
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

/** The 400 message for a cursor this server did not issue (or whose keyset is not the list's kind). */
export const NOT_ISSUED_CURSOR = 'cursor: is not a cursor this server issued (use the Link rel="next" address)'
const OTHER_LIST =
  'cursor: belongs to another list (another project, error, field, sort or direction); use the Link rel="next" address of this one'

/** A short fingerprint of the list a cursor was issued for, e.g. "errors|<project>|last_seen|desc". */
const listTag = (list: string) => createHash('sha256').update(list).digest('base64url').slice(0, 10)

/**
 * Seals a page's keyset with the identity of its list. A cursor is only valid for the list
 * (project or error, field, sort, direction) that issued it: elsewhere its keyset would
 * silently start a page at an unrelated row.
 */
export function sealCursor(list: string, keyset: readonly unknown[]): string {
  return Buffer.from(JSON.stringify([listTag(list), ...keyset])).toString('base64url')
}

/** The keyset of a cursor sealed for `list`; a 400 naming `cursor` for anything else. */
export function openCursor(text: string, list: string): unknown[] {
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
  } catch {
    throw new ValidationError(NOT_ISSUED_CURSOR)
  }
  if (!Array.isArray(value) || typeof value[0] !== 'string') throw new ValidationError(NOT_ISSUED_CURSOR)
  if (value[0] !== listTag(list)) throw new ValidationError(OTHER_LIST)
  return value.slice(1)
}

export function encodeCursor(cursor: Cursor, list: string): string {
  return sealCursor(list, [cursor.v, cursor.id])
}

export function decodeCursor(text: string, list: string): Cursor {
  const keyset = openCursor(text, list)
  const [v, id] = keyset
  if (
    keyset.length === 2 &&
    (typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v))) &&
    typeof id === 'string' &&
    isWellFormedId(id)
  ) {
    return { v, id }
  }
  throw new ValidationError(NOT_ISSUED_CURSOR)
}
