import { describe, expect, it } from 'vitest'
import { decodeCursor, encodeCursor } from './cursor.ts'
import { ValidationError } from './errors.ts'

describe('keyset cursors', () => {
  it('round-trips timestamp and numeric sort values with the id', () => {
    const ts = { v: '2024-05-01T10:20:30.123456Z', id: '6650b3f2a1b2c3d4e5f60718' }
    expect(decodeCursor(encodeCursor(ts))).toEqual(ts)
    const n = { v: 1234, id: 'abc' }
    expect(decodeCursor(encodeCursor(n))).toEqual(n)
  })

  it('is URL-safe and opaque', () => {
    const text = encodeCursor({ v: '2024-05-01T10:20:30.000Z?&=/+', id: 'x/y+z' })
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(text).not.toContain('2024')
  })

  it('rejects anything it did not issue with a 400 naming cursor', () => {
    const bad = [
      '',
      'not base64 at all!',
      Buffer.from('{"v":1,"id":"a"}').toString('base64url'),
      Buffer.from('[1]').toString('base64url'),
      Buffer.from('[1,2]').toString('base64url'),
      Buffer.from('[null,"a"]').toString('base64url'),
      Buffer.from('[1,"a",3]').toString('base64url'),
      Buffer.from('[{"x":1},"a"]').toString('base64url'),
    ]
    for (const text of bad) {
      let caught: unknown
      try {
        decodeCursor(text)
      } catch (err) {
        caught = err
      }
      expect(caught, text).toBeInstanceOf(ValidationError)
      expect((caught as ValidationError).status).toBe(400)
      expect((caught as ValidationError).messages[0]).toMatch(/^cursor: /)
    }
  })
})
