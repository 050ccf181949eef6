import { describe, expect, it } from 'vitest'
import { decodeCursor, encodeCursor, openCursor, sealCursor } from './cursor.ts'
import { ValidationError } from '../failures.ts'

const LIST = 'errors|p1|last_seen|desc'

function rejection(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError)
    expect((err as ValidationError).kind).toBe('invalid')
    return (err as ValidationError).messages[0]!
  }
  throw new Error('expected a 400')
}

describe('keyset cursors', () => {
  it('round-trips timestamp and numeric sort values with the id', () => {
    const ts = { v: '2024-05-01T10:20:30.123456Z', id: '6650b3f2a1b2c3d4e5f60718' }
    expect(decodeCursor(encodeCursor(ts, LIST), LIST)).toEqual(ts)
    const n = { v: 1234, id: 'abc' }
    expect(decodeCursor(encodeCursor(n, LIST), LIST)).toEqual(n)
    expect(openCursor(sealCursor('pivot|x', [3, 'any text']), 'pivot|x')).toEqual([3, 'any text'])
  })

  it('is URL-safe and opaque', () => {
    const text = encodeCursor({ v: '2024-05-01T10:20:30.000Z?&=/+', id: 'x/y+z' }, LIST)
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(text).not.toContain('2024')
  })

  it('answers 400 for a cursor of another list, saying so', () => {
    const cursor = encodeCursor({ v: 5, id: 'abc' }, LIST)
    for (const other of ['errors|p1|last_seen|asc', 'errors|p1|first_seen|desc', 'errors|p2|last_seen|desc', 'events|project|p1|desc']) {
      expect(rejection(() => decodeCursor(cursor, other))).toMatch(/^cursor: belongs to another list/)
    }
  })

  it('rejects anything it did not issue with a 400 naming cursor', () => {
    const sealed = (keyset: unknown[]) => sealCursor(LIST, keyset)
    const bad = [
      '',
      'not base64 at all!',
      Buffer.from('{"v":1,"id":"a"}').toString('base64url'),
      Buffer.from('[1]').toString('base64url'),
      Buffer.from('[1,"a"]').toString('base64url'),
      sealed([1]),
      sealed([null, 'a']),
      sealed([1, 'a', 3]),
      sealed([{ x: 1 }, 'a']),
      sealed([1.5, 'a']),
      sealed([1, 'a\u0000b']),
    ]
    for (const text of bad) expect(rejection(() => decodeCursor(text, LIST)), text).toMatch(/^cursor: /)
  })
})
