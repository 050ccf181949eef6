import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { displayPath, isInProject, LoadedSourceMap } from './loaded-source-map.ts'
import { parseSourceMap, SourceMapError } from './parse-source-map.ts'

const fixtures = new URL('../../test/fixtures/source-maps/', import.meta.url)
const read = (path: string) => readFileSync(new URL(path, fixtures), 'utf8')

function load(mapText: string, extra: { minified?: string | null; projectRoot?: string | null; sources?: Record<string, string> } = {}) {
  return new LoadedSourceMap({
    key: 'test',
    parsed: parseSourceMap(mapText),
    textBytes: mapText.length,
    projectRoot: extra.projectRoot ?? null,
    minified: extra.minified ?? null,
    sourceFiles: new Map(Object.entries(extra.sources ?? {})),
  })
}

interface Expected {
  frames: { in: { method: string; lineNumber: number; columnNumber: number }; out: { source: string; line: number; column: number; name: string | null } }[]
}

describe('LoadedSourceMap on terser output (test/fixtures/source-maps/terser)', () => {
  const expected = JSON.parse(read('terser/expected.json')) as Expected
  const map = load(read('terser/app.min.js.map'), { minified: read('terser/app.min.js') })

  it('maps 1-based V8 columns to the expected source, line and column', () => {
    for (const frame of expected.frames) {
      const position = map.position(frame.in.lineNumber, frame.in.columnNumber)
      expect(position && { source: map.displayPath(position.sourceIndex), line: position.line, column: position.column, name: position.name }).toEqual(frame.out)
    }
  })

  it("names each function from its definition in the minified file, not the callee's name at the position", () => {
    expect(expected.frames.map((frame) => map.definitionName(frame.in.lineNumber, frame.in.columnNumber, frame.in.method))).toEqual([
      'divide',
      'computeRatio',
      'main',
    ])
    // V8's decorations around the name do not matter.
    expect(map.definitionName(1, 126, 'Object.r')).toBe('computeRatio')
    expect(map.definitionName(1, 126, 'async r [as run]')).toBe('computeRatio')
    // No definition of that name before the frame: no name.
    expect(map.definitionName(1, 33, 'zz')).toBeNull()
    expect(map.definitionName(1, 33, null)).toBeNull()
    // Without the minified file there is nothing to search.
    expect(load(read('terser/app.min.js.map')).definitionName(1, 33, 'n')).toBeNull()
  })

  it('gives up to 3 lines of code context each side, cut at the file edges', () => {
    // src/math.js line 1: nothing above it.
    expect(Object.keys(map.codeContext(0, 1)!)).toEqual(['1', '2', '3', '4'])
    expect(map.codeContext(0, 3)).toEqual({
      '1': 'function divide(a, b) {',
      '2': '  if (b === 0) {',
      '3': "    throw new Error('division by zero');",
      '4': '  }',
      '5': '  return a / b;',
      '6': '}',
    })
    // The last line (the empty one after the final newline): nothing below it.
    expect(Object.keys(map.codeContext(0, 7)!)).toEqual(['4', '5', '6', '7'])
    expect(map.codeContext(0, 8)).toBeNull()
    expect(map.codeContext(0, 0)).toBeNull()
  })
})

describe('code context sources', () => {
  const noContent = JSON.stringify({ version: 3, sources: ['src/a.js', 'lib/b.js'], names: [], mappings: 'AAAA,QCAA' })

  it('reads uploaded source files named by the source (exactly or by wildcard) when the map embeds none', () => {
    const map = load(noContent, { sources: { 'src/a.js': 'one\ntwo\nthree', 'https://cdn.example.com/lib/*': 'x\ny' } })
    expect(map.codeContext(0, 2)).toEqual({ '1': 'one', '2': 'two', '3': 'three' })
    expect(map.codeContext(1, 1)).toBeNull()
    const wildcard = load(noContent, { sources: { '*/b.js': 'x\ny' } })
    expect(wildcard.codeContext(1, 1)).toEqual({ '1': 'x', '2': 'y' })
  })

  it('cuts long lines, and reads CRLF and CR line ends', () => {
    const map = load(JSON.stringify({ version: 3, sources: ['a.js'], sourcesContent: [`${'x'.repeat(5000)}\r\nsecond\rthird`], mappings: 'AAAA' }))
    const code = map.codeContext(0, 2)!
    expect(code['1']).toHaveLength(200)
    expect(code['2']).toBe('second')
    expect(code['3']).toBe('third')
  })

  it('uses a fetched source once set', () => {
    const map = load(noContent)
    expect(map.needsSourceFetch(0)).toBe(true)
    map.setFetchedSource(0, 'fetched')
    expect(map.needsSourceFetch(0)).toBe(false)
    expect(map.codeContext(0, 1)).toEqual({ '1': 'fetched' })
  })
})

describe('bytes, what the cache counts', () => {
  it('grows as lookups decode mappings and sources are loaded, from the text and index alone', () => {
    const text = read('terser/app.min.js.map')
    const map = load(text)
    const loadedAlone = map.bytes
    expect(loadedAlone).toBeGreaterThanOrEqual(text.length)
    map.position(1, 1)
    const afterLookup = map.bytes
    expect(afterLookup).toBeGreaterThan(loadedAlone)
    map.position(1, 1)
    expect(map.bytes).toBe(afterLookup)
    map.setFetchedSource(0, 'x'.repeat(1000))
    expect(map.bytes).toBe(afterLookup + 1000)
    map.setFetchedSource(0, null)
    expect(map.bytes).toBe(afterLookup)
  })
})

describe('displayPath', () => {
  it.each([
    ['src/index.js', null, 'src/index.js'],
    ['./src/index.js', null, 'src/index.js'],
    ['../src/index.js', null, 'src/index.js'],
    ['webpack://shop/../node_modules/lib/x.js', null, 'node_modules/lib/x.js'],
    ['webpack://shop/./src/index.js', null, 'src/index.js'],
    ['webpack:///src/index.js', null, 'src/index.js'],
    ['/home/ci/build/shop/src/index.js', '/home/ci/build/shop', 'src/index.js'],
    ['/home/ci/build/shop/src/index.js', '/home/ci/build/shop/', 'src/index.js'],
    ['/home/ci/build/shop/src/index.js', 'file:///home/ci/build/shop', 'src/index.js'],
    ['/home/ci/build/shop2/src/index.js', '/home/ci/build/shop', '/home/ci/build/shop2/src/index.js'],
    ['https://cdn.example.com/assets/src/a.js', 'https://cdn.example.com/assets', 'src/a.js'],
  ])('%s with projectRoot %s → %s', (source, root, expected) => {
    expect(displayPath(source, root)).toBe(expected)
  })

  it('strips the projectRoot from mapped files', () => {
    const text = JSON.stringify({ version: 3, sources: ['/build/app/src/a.js'], mappings: 'AAAA' })
    expect(load(text, { projectRoot: '/build/app' }).displayPath(0)).toBe('src/a.js')
    expect(load(text).displayPath(0)).toBe('/build/app/src/a.js')
  })
})

describe('isInProject', () => {
  it.each([
    ['src/index.js', true],
    ['lib/checkout/cart.ts', true],
    ['node_modules/react-dom/cjs/react-dom.production.js', false],
    ['../node_modules/lodash/lodash.js', false],
    ['webpack/bootstrap', false],
    ['webpack/runtime/define property getters', false],
    ['(webpack)/buildin/global.js', false],
    ['vite/preload-helper.js', false],
    ['\u0000vite/preload-helper.js', false],
    ['\u0000commonjsHelpers.js', false],
    ['node:internal/timers', false],
    ['<anonymous>', false],
    ['src/webpack-config.js', true],
    ['src/invite/client.js', true],
  ])('%s → %s', (path, expected) => {
    expect(isInProject(path)).toBe(expected)
  })
})

describe('index (sectioned) maps', () => {
  const terser = JSON.parse(read('terser/app.min.js.map'))
  const esbuild = JSON.parse(read('js-app/dist/app.min.js.map'))
  const sectioned = { version: 3, file: 'bundle.js', sections: [{ offset: { line: 0, column: 0 }, map: terser }, { offset: { line: 1, column: 0 }, map: esbuild }] }

  it('looks each generated line up in its own section', () => {
    const map = load(JSON.stringify(sectioned))
    const first = map.position(1, 33)!
    expect([map.displayPath(first.sourceIndex), first.line, first.column]).toEqual(['src/math.js', 3, 10])
    const plain = load(read('js-app/dist/app.min.js.map'))
    const fromSection = map.position(2, 600)!
    const fromPlain = plain.position(1, 600)!
    expect([map.displayPath(fromSection.sourceIndex), fromSection.line, fromSection.column]).toEqual([
      plain.displayPath(fromPlain.sourceIndex),
      fromPlain.line,
      fromPlain.column,
    ])
    expect(map.codeContext(fromSection.sourceIndex, fromSection.line)).toEqual(plain.codeContext(fromPlain.sourceIndex, fromPlain.line))
  })

  it('refuses sections it cannot use, saying why', () => {
    const refuse = (map: unknown) => () => parseSourceMap(JSON.stringify(map))
    expect(refuse({ ...sectioned, sections: [{ offset: { line: 0, column: 0 }, url: 'https://x/a.map' }] })).toThrow(/index map cannot be used: sections\[0\]: points at another map by "url"/)
    expect(refuse({ ...sectioned, sections: [...sectioned.sections].reverse() })).toThrow(/sections\[1\]: starts before the section above/)
    expect(refuse({ ...sectioned, sections: [{ offset: { line: 0, column: 0 }, map: sectioned }] })).toThrow(/sections\[0\]: holds another index map/)
    expect(refuse({ ...sectioned, sections: [{ offset: { line: -1, column: 0 }, map: terser }] })).toThrow(/"offset" must be/)
    expect(refuse({ ...sectioned, sections: [{ offset: { line: 0, column: 0 }, map: { ...terser, version: 2 } }] })).toThrow(/sections\[0\]: "version" is 2/)
    expect(refuse({ ...sectioned, sections: 'nope' })).toThrow(/"sections" is not a list/)
  })
})

describe('index maps whose offsets name far more than they hold', () => {
  const section = (line: number, column: number, sources = ['a.js'], names: string[] = []) => ({
    offset: { line, column },
    map: { version: 3, sources, names, mappings: 'AAAAA,EAAE' },
  })

  it('reads a map of under 160 bytes whose section sits at line 100,000,000 without allocating per line', () => {
    const text = JSON.stringify({ version: 3, sections: [section(100_000_000, 0, ['a.js'], ['x'])] })
    expect(text.length).toBeLessThan(160)
    const before = process.memoryUsage().heapUsed
    const map = load(text)
    expect(map.position(100_000_001, 1)).toEqual({ sourceIndex: 0, line: 1, column: 0, name: 'x' })
    expect(map.position(100_000_001, 3)).toEqual({ sourceIndex: 0, line: 1, column: 2, name: null })
    expect(map.position(1, 1)).toBeNull()
    expect(map.position(99_999_999, 1)).toBeNull()
    expect(map.bytes).toBeLessThan(64 * 1024)
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 1024 * 1024)
  })

  it('shifts columns on a section\'s first line only, and source and name indexes by the sections before', () => {
    const map = load(JSON.stringify({ version: 3, sections: [section(0, 0, ['a.js'], ['x']), section(0, 2 ** 40, ['b.js', 'c.js'], ['y'])] }))
    expect(map.position(1, 2 ** 40 + 1)).toEqual({ sourceIndex: 1, line: 1, column: 0, name: 'y' })
    expect(map.position(1, 2 ** 40)).toEqual({ sourceIndex: 0, line: 1, column: 2, name: null })
    expect(map.displayPath(1)).toBe('b.js')
  })

  it('holds memory in proportion to the text for many empty sections', () => {
    const sections = Array.from({ length: 20_000 }, (_, i) => ({ offset: { line: i * 1000, column: 0 }, map: { version: 3, sources: [], mappings: '' } }))
    const text = JSON.stringify({ version: 3, sections })
    const map = load(text)
    expect(map.bytes).toBeLessThan(text.length * 8)
    expect(map.position(5_000_001, 1)).toBeNull()
  })
})

describe('parseSourceMap refusals and garbage', () => {
  it.each([
    ['not json', /^is not JSON/],
    ['[1, 2]', /is not a JSON object/],
    ['{"version": 2, "sources": [], "mappings": ""}', /"version" is 2; only version 3/],
    ['{"sources": [], "mappings": ""}', /"version" is missing/],
    ['{"version": 3, "sources": []}', /"mappings" is missing/],
    ['{"version": 3, "sources": [], "mappings": "AAAA!"}', /not Base64 VLQ/],
    ['{"version": 3, "mappings": "AAAA"}', /"sources" is missing/],
    ['{"version": 3, "sources": [1], "mappings": "AAAA"}', /"sources" must be a list of strings/],
    ['{"version": 3, "sources": ["a"], "names": [null], "mappings": "AAAA"}', /"names" must be a list of strings/],
    ['{"version": 3, "sources": ["a"], "sourcesContent": {}, "mappings": "AAAA"}', /"sourcesContent" must be a list/],
  ])('%s', (text, message) => {
    expect(() => parseSourceMap(text)).toThrow(SourceMapError)
    expect(() => parseSourceMap(text)).toThrow(message)
  })

  it('accepts a byte order mark and the XSSI guard', () => {
    expect(() => parseSourceMap(`\uFEFF)]}'\n{"version":3,"sources":["a.js"],"mappings":"AAAA"}`)).not.toThrow()
  })

  it('answers no position, never throws, for mappings that decode to nonsense', () => {
    const map = load(JSON.stringify({ version: 3, sources: ['a.js'], names: [], mappings: 'AAAA,gggggggggggA,//////////;;;;+++++,ZZZZZZZ' }))
    for (const [line, column] of [[1, 1], [1, 500], [4, 3], [5, 1], [999, 1], [0, 1], [1, null]] as const) {
      expect(() => map.position(line, column)).not.toThrow()
    }
    expect(map.position(999, 1)).toBeNull()
    expect(map.position(0, 1)).toBeNull()
  })

  it('maps a frame without a column to the first mapping of its line', () => {
    const map = load(read('terser/app.min.js.map'))
    expect(map.position(1, null)).toMatchObject({ line: 1, column: 0 })
  })
})
