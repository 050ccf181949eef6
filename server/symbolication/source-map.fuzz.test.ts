import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fuzzSeeds, hostileNumber, mutate, randomString, seededRandom, type SeededRandom } from '../test-support/seeded-random.ts'
import { sourceMappingUrl } from './fetch-source-map.ts'
import { LoadedSourceMap } from './loaded-source-map.ts'
import { parseSourceMap, SourceMapError } from './parse-source-map.ts'

// Source maps and minified files are untrusted (uploaded, or fetched from any URL). Whatever
// they hold, reading one and looking positions up in it must end within bounds that follow its
// real size, and may fail only with a SourceMapError (which the upload answers as a 400 and an
// event records as its symbolication's reason).

const fixtures = new URL('../../test/fixtures/source-maps/', import.meta.url)
const terserMap = readFileSync(new URL('terser/app.min.js.map', fixtures), 'utf8')
const terserMinified = readFileSync(new URL('terser/app.min.js', fixtures), 'utf8')
const esbuildMap = readFileSync(new URL('js-app/dist/app.min.js.map', fixtures), 'utf8')

const VLQ = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/** A regular map that names far more than it holds: huge names and sources lists, long VLQ runs, hostile numbers. */
function hostileRegularMap(random: SeededRandom, small = false): Record<string, unknown> {
  if (small) return { version: 3, sources: ['a.js'], names: ['x'], mappings: random.pick(['AAAAA', ';;;AAAA,CAAC', '', randomString(random, random.int(0, 39), `${VLQ};,`)]) }
  const count = random.pick([0, 1, 3, 1000, 20_000])
  return {
    version: 3,
    file: random.chance(0.5) ? 'x'.repeat(random.int(0, 9999)) : undefined,
    sourceRoot: random.pick([undefined, '', '/', 'webpack://app', '../../../../..', 'x'.repeat(5000)]),
    sources: Array.from({ length: count }, (_, i) => random.pick([`src/${i}.js`, null, '', '../'.repeat(200), `https://h/${'a/'.repeat(100)}`])),
    sourcesContent: random.chance(0.5) ? Array.from({ length: Math.min(count, 50) }, () => random.pick([null, 'line\n'.repeat(random.int(0, 1999))])) : undefined,
    names: Array.from({ length: random.pick([0, 5, 30_000]) }, (_, i) => (random.chance(0.01) ? 'n'.repeat(10_000) : `n${i}`)),
    mappings: random.pick([
      () => randomString(random, random.int(0, 199_999), `${VLQ};,`),
      () => ';'.repeat(random.int(0, 199_999)),
      () => ','.repeat(random.int(0, 199_999)),
      () => 'g'.repeat(random.int(0, 99_999)),
      () => `${'/'.repeat(random.int(0, 49))}A`.repeat(random.int(0, 1999)),
      () => 'AAAA,'.repeat(random.int(0, 49_999)),
      () => 'AAAAA;'.repeat(random.int(0, 49_999)),
      () => Array.from({ length: random.int(0, 4999) }, () => randomString(random, random.int(0, 6), VLQ)).join(random.pick([',', ';'])),
    ])(),
  }
}

/** An index map with hostile offsets: far lines and columns, many sections, unsafe integers. */
function hostileIndexMap(random: SeededRandom): Record<string, unknown> {
  const count = random.pick([1, 2, 5, 5000])
  let line = 0
  let column = 0
  const sections = Array.from({ length: count }, () => {
    if (random.chance(0.5)) line += random.pick([0, 1, 1000, 100_000_000, 2 ** 31, 2 ** 40])
    column = random.pick([0, column + 1, 2 ** 31, 2 ** 52, 1e9])
    const offset = random.chance(0.05) ? { line: hostileNumber(random), column: hostileNumber(random) } : { line, column }
    // Many sections are each small: the input stays a few megabytes.
    const map = count > 5 ? hostileRegularMap(random, true) : random.chance(0.7) ? hostileRegularMap(random) : JSON.parse(random.pick([terserMap, esbuildMap]))
    return { offset, map }
  })
  return { version: 3, file: 'bundle.js', sections }
}

function input(random: SeededRandom): { text: string; minified: string | null } {
  const minified = random.pick([null, terserMinified, mutate(random, terserMinified), 'a=('.repeat(20_000), `function ${'a'.repeat(50_000)}(`, '('.repeat(100_000)])
  const text = random.pick([
    () => mutate(random, random.pick([terserMap, esbuildMap])),
    () => JSON.stringify(hostileRegularMap(random)),
    () => JSON.stringify(hostileIndexMap(random)),
    () => mutate(random, JSON.stringify(hostileIndexMap(random))),
    () => randomString(random, random.int(0, 4999), '{}[]",:0123456789 \n'),
  ])()
  return { text, minified }
}

/** Positions a frame may name: inside the map, past it, at hostile lines and columns. */
function positions(random: SeededRandom): [number, number | null][] {
  return Array.from({ length: 40 }, () => [
    random.pick([1, 2, 3, random.int(0, 99), 100_000_001, 2 ** 31, 2 ** 40 + 1, hostileNumber(random)]),
    random.pick([null, 1, 33, random.int(0, 4999), 2 ** 31, 2 ** 52, hostileNumber(random)]),
  ])
}

describe('source maps, fuzzed', () => {
  it.each(fuzzSeeds(12))('seed %i: every map is read or refused with a reason, in bounded time and memory', (seed) => {
    const random = seededRandom(seed)
    for (let round = 0; round < 25; round++) {
      const { text, minified } = input(random)
      const started = performance.now()
      const heapBefore = process.memoryUsage().heapUsed
      let map: LoadedSourceMap | null = null
      try {
        map = new LoadedSourceMap({ key: 'fuzz', parsed: parseSourceMap(text), textBytes: text.length, projectRoot: null, minified, sourceFiles: new Map() })
      } catch (err) {
        if (!(err instanceof SourceMapError)) throw new Error(`seed ${seed} round ${round}: ${(err as Error).stack}`)
      }
      if (map) {
        for (const [line, column] of positions(random)) {
          const position = map.position(line, column)
          map.definitionName(line, column, random.pick([null, 'n', 'Object.r', 'a'.repeat(1000)]))
          if (position) {
            expect(position.sourceIndex).toBeGreaterThanOrEqual(0)
            map.displayPath(position.sourceIndex)
            map.inProject(position.sourceIndex)
            map.codeContext(position.sourceIndex, position.line)
          }
        }
        sourceMappingUrl(minified ?? text, undefined)
      }
      const tookMs = performance.now() - started
      const grewBytes = process.memoryUsage().heapUsed - heapBefore
      // Generous: a loaded 2-core machine, and a garbage collector that runs when it likes. The
      // defects these catch cost seconds and gigabytes.
      expect(tookMs, `seed ${seed} round ${round}: ${tookMs} ms for ${text.length} characters`).toBeLessThan(15_000 + text.length / 100)
      expect(grewBytes, `seed ${seed} round ${round}: heap grew ${grewBytes} bytes for ${text.length} characters`).toBeLessThan(256 * 1024 * 1024 + text.length * 40)
    }
  })
})
