import { readFileSync } from 'node:fs'
import { encode, type SourceMapSegment } from '@jridgewell/sourcemap-codec'
import { decodedMappings, traceSegment, TraceMap } from '@jridgewell/trace-mapping'
import { describe, expect, it } from 'vitest'
import { ChunkedMappings } from './chunked-mappings.ts'

const fixtures = new URL('../../test/fixtures/source-maps/', import.meta.url)

/** Every column from before the first segment to past the last, on every line and one past them. */
function expectSameAsTraceMapping(mappings: string): void {
  const trace = new TraceMap({ version: 3, sources: ['a.js', 'b.js', 'c.js'], names: ['x', 'y', 'z'], mappings })
  const chunked = new ChunkedMappings(mappings)
  const lines = decodedMappings(trace)
  expect(chunked.lineCount).toBe(lines.length)
  for (let line = 0; line <= lines.length; line++) {
    const segments = lines[line] ?? []
    const last = segments.length ? segments[segments.length - 1]![0] : 0
    for (let column = 0; column <= last + 2; column++) {
      const expected = traceSegment(trace, line, column)
      const actual = chunked.segmentAt(line, column)
      if (JSON.stringify(actual) !== JSON.stringify(expected)) expect({ line, column, actual }).toEqual({ line, column, actual: expected })
      const after = segments.find((segment) => segment[0] >= column && segment.length >= 4) ?? null
      const found = chunked.findFrom(line, column, (segment) => segment.length >= 4)
      if (JSON.stringify(found) !== JSON.stringify(after)) expect({ line, column, found }).toEqual({ line, column, found: after })
    }
  }
}

/** Sorted segments; `repeat` makes runs of equal columns, some across chunk boundaries. */
function generated(lines: number, segmentsPerLine: number, seed: number, repeat = false): SourceMapSegment[][] {
  let random = seed
  const next = (n: number) => {
    random = (random * 1103515245 + 12345) & 0x7fffffff
    return random % n
  }
  return Array.from({ length: lines }, () => {
    let column = next(3)
    return Array.from({ length: segmentsPerLine }, (): SourceMapSegment => {
      column += repeat && next(4) === 0 ? 0 : 1 + next(9)
      const kind = next(5)
      if (kind === 0) return [column]
      if (kind === 1) return [column, next(3), next(500), next(80)]
      return [column, next(3), next(500), next(80), next(3)]
    })
  })
}

describe('ChunkedMappings gives what trace-mapping gives', () => {
  it('on a one-line bundle of many chunks', () => {
    expectSameAsTraceMapping(encode(generated(1, 1000, 1)))
  })

  it('on many lines, with empty lines and a trailing separator', () => {
    const lines = generated(40, 150, 2)
    lines[3] = []
    lines[17] = []
    expectSameAsTraceMapping(`${encode(lines)};;`)
    expectSameAsTraceMapping(';;AAAA')
    expectSameAsTraceMapping('')
  })

  it('on runs of segments at one column, across chunk boundaries too', () => {
    expectSameAsTraceMapping(encode(generated(3, 700, 3, true)))
  })

  it('on lines whose segments are out of order (decoded whole and sorted)', () => {
    const lines = generated(5, 300, 4)
    lines[1]!.reverse()
    ;[lines[3]![10], lines[3]![200]] = [lines[3]![200]!, lines[3]![10]!]
    expectSameAsTraceMapping(encode(lines))
  })

  it('on the fixtures and on malformed strings', () => {
    for (const path of ['terser/app.min.js.map', 'js-app/dist/app.min.js.map', 'js-app/dist-node/app.min.js.map']) {
      expectSameAsTraceMapping((JSON.parse(readFileSync(new URL(path, fixtures), 'utf8')) as { mappings: string }).mappings)
    }
    for (const garbage of ['A', 'AA,,B;', 'gggggg', ',;,', 'AAAA,/////;B', 'AAgB,CC,D'.repeat(100)]) expectSameAsTraceMapping(garbage)
  })

  it('decodes only the chunk a lookup needs', () => {
    const chunked = new ChunkedMappings(encode(generated(1, 10_000, 5)))
    chunked.segmentAt(0, 20_000)
    const decoded = (chunked as unknown as { decoded: (unknown[] | undefined)[] }).decoded
    expect(decoded.filter(Boolean)).toHaveLength(1)
    expect(decoded.length).toBeGreaterThan(100)
  })
})
