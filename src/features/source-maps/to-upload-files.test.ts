import { describe, expect, it } from 'vitest'
import { checkSourceMap, sortDroppedFiles, sourcesWithoutCode, suggestMinifiedUrl, type SourceMapFacts } from './to-upload-files.ts'

const facts = (overrides: Partial<SourceMapFacts> = {}): SourceMapFacts => ({
  file: 'app.min.js',
  sources: ['webpack://shop/./src/index.js', 'webpack://shop/./src/util.js'],
  embedded: [false, true],
  ...overrides,
})

describe('checkSourceMap', () => {
  it('reads a version 3 map: its file, sources and which carry their text', () => {
    const text = JSON.stringify({ version: 3, file: 'app.js', sources: ['a.js', 'b.js'], sourcesContent: ['x', null], mappings: 'AAAA' })
    expect(checkSourceMap(text, 'app.js.map')).toEqual({ ok: true, facts: { file: 'app.js', sources: ['a.js', 'b.js'], embedded: [true, false] } })
  })

  it('reads the sources of an index map from its sections', () => {
    const text = JSON.stringify({
      version: 3,
      sections: [
        { offset: { line: 0, column: 0 }, map: { version: 3, sources: ['a.js'], sourcesContent: ['x'], mappings: 'AAAA' } },
        { offset: { line: 1, column: 0 }, map: { version: 3, sources: ['b.js'], mappings: 'AAAA' } },
      ],
    })
    expect(checkSourceMap(text, 'index.map')).toEqual({ ok: true, facts: { file: null, sources: ['a.js', 'b.js'], embedded: [true, false] } })
  })

  it('names what is wrong: not JSON, not an object, not version 3, no sources or mappings', () => {
    expect(checkSourceMap('{"version": 3,', 'a.map')).toMatchObject({ ok: false, problem: expect.stringMatching(/^a\.map is not JSON \(/) })
    expect(checkSourceMap('[1]', 'a.map')).toMatchObject({ ok: false, problem: 'a.map is JSON but not a source map: expected an object with "version": 3' })
    expect(checkSourceMap('{"sources": []}', 'a.map')).toMatchObject({
      ok: false,
      problem: 'a.map: "version" is missing; only version 3 source maps are supported',
    })
    expect(checkSourceMap('{"version": "3"}', 'a.map')).toMatchObject({ ok: false, problem: expect.stringContaining('"version" is "3"') })
    expect(checkSourceMap('{"version": 3, "mappings": ""}', 'a.map')).toMatchObject({ ok: false, problem: expect.stringContaining('"sources" is missing') })
    expect(checkSourceMap('{"version": 3, "sources": []}', 'a.map')).toMatchObject({ ok: false, problem: expect.stringContaining('"mappings" is missing') })
  })
})

describe('suggestMinifiedUrl', () => {
  it('keeps a URL the map names, else matches any URL ending in its file, else in the map name less .map', () => {
    expect(suggestMinifiedUrl(facts({ file: 'https://cdn.example.com/app.min.js' }), 'x.map')).toBe('https://cdn.example.com/app.min.js')
    expect(suggestMinifiedUrl(facts({ file: 'static/js/main.8a1b.js' }), 'x.map')).toBe('*/main.8a1b.js')
    expect(suggestMinifiedUrl(facts({ file: null }), 'vendor.3c4d.js.map')).toBe('*/vendor.3c4d.js')
  })
})

describe('sortDroppedFiles', () => {
  const named = (name: string) => ({ name })

  it('finds the map, the minified file the map names, and the sources by name', () => {
    const files = [named('index.js'), named('app.min.js.map'), named('app.min.js'), named('README.md')]
    expect(sortDroppedFiles(files, facts()).map(({ file, role, field }) => [file.name, role, field])).toEqual([
      ['index.js', 'source', 'webpack://shop/./src/index.js'],
      ['app.min.js.map', 'map', null],
      ['app.min.js', 'minified', null],
      ['README.md', 'unused', null],
    ])
  })

  it('takes the only script as the minified file when the map names none, and refuses a second map', () => {
    const files = [named('bundle.js.map'), named('main.7f.js'), named('other.js.map')]
    expect(sortDroppedFiles(files, facts({ file: null })).map(({ role }) => role)).toEqual(['map', 'minified', 'unused'])
  })

  it('lists what is left without text: neither embedded nor dropped', () => {
    const sorted = sortDroppedFiles([named('app.min.js.map')], facts())
    expect(sourcesWithoutCode(facts(), sorted)).toEqual(['webpack://shop/./src/index.js'])
    expect(sourcesWithoutCode(facts(), sortDroppedFiles([named('app.min.js.map'), named('index.js')], facts()))).toEqual([])
  })
})
