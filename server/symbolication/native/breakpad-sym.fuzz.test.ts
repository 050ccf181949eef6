import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fuzzSeeds, hostileNumber, mutate, randomString, seededRandom, type SeededRandom } from '../../test-support/seeded-random.ts'
import { BreakpadSymError, readModuleLine, symCacheFromBreakpad } from './breakpad-sym.ts'
import { SymCache, SymCacheError } from './symcache.ts'

// Symbol files are uploads: whatever they hold, reading one must end, in time that follows its
// size, in a SymCache or a BreakpadSymError (the upload's 400), and a SymCache made from it must
// answer every lookup without throwing. A damaged SymCache buffer is refused with a
// SymCacheError or still answers lookups without throwing.

const NATIVE = join(import.meta.dirname, '../../../test/fixtures/native')
const SOURCES = [readFileSync(join(NATIVE, 'libfixture.so.sym'), 'utf8'), readFileSync(join(NATIVE, 'libcrash.aarch64.sym'), 'utf8')]
const EXTRA_LINES = [
  'INLINE_ORIGIN 0 inlined_fn',
  'INLINE_ORIGIN 1 4 old_form',
  'INLINE 0 12 0 0 1120 8',
  'INLINE 1 13 0 1 1122 2',
  'INLINE 0 30 1 1130 4',
  'FUNC m 1119 0 0 folded',
  'PUBLIC m 1180 0 pub',
  'STACK WIN 4 1119 14 1 0 0 0 0 0 1 $eip 4 + ^ =',
  'STACK CFI 1120 .cfa: $rsp 16 +',
  'INFO CODE_ID 00',
]

/** Line-level damage: lines dropped, repeated, swapped, cut, or given hostile numbers and extra records. */
function damageLines(random: SeededRandom, text: string): string {
  const lines = text.split('\n')
  for (let n = random.int(1, 12); n > 0; n--) {
    const at = random.int(0, lines.length - 1)
    switch (random.int(0, 6)) {
      case 0:
        lines.splice(at, 1)
        break
      case 1:
        lines.splice(at, 0, ...Array.from({ length: random.int(1, 200) }, () => lines[at] ?? ''))
        break
      case 2:
        lines.splice(random.int(1, lines.length), 0, random.pick(EXTRA_LINES).replace(/\b\d+\b/g, (digits) => (random.chance(0.3) ? String(hostileNumber(random)) : digits)))
        break
      case 3:
        lines[at] = (lines[at] ?? '').slice(0, random.int(0, 20))
        break
      case 4: {
        const other = random.int(0, lines.length - 1)
        ;[lines[at], lines[other]] = [lines[other] ?? '', lines[at] ?? '']
        break
      }
      case 5:
        lines[at] = (lines[at] ?? '').replace(/[0-9a-f]+/g, (digits) => (random.chance(0.2) ? hostileNumber(random).toString(16) : digits))
        break
      default:
        lines[at] = `${lines[at] ?? ''}${randomString(random, random.int(1, 6), ' \t\r-m0123456789abcdefxyz\u0000\uffff')}`
    }
  }
  return lines.join(random.pick(['\n', '\r\n']))
}

function input(random: SeededRandom): Buffer {
  const source = random.pick(SOURCES)
  const text = random.pick([
    () => mutate(random, source),
    () => damageLines(random, source),
    () => mutate(random, damageLines(random, source)),
    () => `${source.split('\n')[0]}\n${randomString(random, random.int(0, 3000), 'FUNCPUBLICSTACKINLINE_ORIGIN m0123456789abcdef \n\r')}`,
    () => `${source}${'FUNC 1 1 0 x\n1 1 1 0\n'.repeat(random.int(0, 5000))}`,
  ])()
  const bytes = Buffer.from(text, 'utf8')
  // Cut through multi-byte characters and lines now and then.
  return random.chance(0.2) ? bytes.subarray(0, random.int(0, bytes.length)) : bytes
}

async function* chunked(random: SeededRandom, bytes: Buffer): AsyncIterable<Buffer> {
  for (let at = 0; at < bytes.length; ) {
    const size = random.int(1, 4096)
    yield bytes.subarray(at, at + size)
    at += size
  }
}

function addresses(random: SeededRandom): number[] {
  return Array.from({ length: 60 }, () => random.pick([random.int(0x1000, 0x1800), hostileNumber(random), -1, Number.NaN, 2 ** 53 - 1]))
}

describe('Breakpad symbol files, fuzzed', () => {
  it.each(fuzzSeeds(12))('seed %i: every file is read or refused with a BreakpadSymError, in bounded time', async (seed) => {
    const random = seededRandom(seed)
    for (let round = 0; round < 40; round++) {
      const bytes = input(random)
      const started = performance.now()
      let symCache: Buffer | null = null
      try {
        symCache = (await symCacheFromBreakpad(random.chance(0.5) ? bytes : chunked(random, bytes))).symCache
      } catch (err) {
        if (!(err instanceof BreakpadSymError)) throw new Error(`seed ${seed} round ${round}: ${(err as Error).stack}`)
      }
      readModuleLine(bytes.subarray(0, random.int(0, 4096)))
      if (symCache) {
        const cache = SymCache.fromBuffer(symCache)
        for (const address of addresses(random)) {
          for (const frame of cache.lookup(address)) expect(typeof frame.inlined).toBe('boolean')
          cache.cfiAt(address)
        }
      }
      const tookMs = performance.now() - started
      expect(tookMs, `seed ${seed} round ${round}: ${tookMs} ms for ${bytes.length} bytes`).toBeLessThan(10_000 + bytes.length / 100)
    }
  })

  it.each(fuzzSeeds(6))('seed %i: a damaged SymCache is refused with a SymCacheError or still answers', async (seed) => {
    const random = seededRandom(seed)
    const { symCache } = await symCacheFromBreakpad(Buffer.from(random.pick(SOURCES)))
    for (let round = 0; round < 200; round++) {
      const damaged = Buffer.from(symCache)
      for (let n = random.int(1, 8); n > 0; n--) damaged[random.int(0, damaged.length - 1)] = random.int(0, 255)
      const buffer = random.chance(0.2) ? damaged.subarray(0, random.int(0, damaged.length)) : damaged
      let cache: SymCache | null = null
      try {
        cache = SymCache.fromBuffer(buffer)
      } catch (err) {
        if (!(err instanceof SymCacheError)) throw new Error(`seed ${seed} round ${round}: ${(err as Error).stack}`)
      }
      if (cache) {
        for (const address of addresses(random)) {
          expect(Array.isArray(cache.lookup(address))).toBe(true)
          cache.cfiAt(address)
        }
      }
    }
  })
})
