import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { fuzzSeeds, hostileNumber, seededRandom, type SeededRandom } from '../../test-support/seeded-random.ts'
import { ElfObject } from './elf.ts'
import { RecordingSink } from '../../test-support/recording-symbol-sink.ts'
import { NativeUploadError, readSoFile } from './so-file.ts'

// Uploaded objects are untrusted. Whatever bytes an upload holds, reading it must end within
// bounds that follow its size, and may fail only with a NativeUploadError (which the upload
// answers as a 400 with its message).

const dir = new URL('../../../test/fixtures/native/', import.meta.url)
const NAMES = ['libcrash.aarch64.so', 'libcrash.aarch64.so.debug', 'libcrash.aarch64.stripped.so', 'libfixture.so', 'libfixture.so.debug', 'libcrash.armv7.so', 'libcrash.armv7.so.debug', 'libcrash.x86_64.so']
const fixtures = NAMES.map((name) => {
  const buf = readFileSync(new URL(name, dir))
  // Where the interesting bytes are: headers, and each section (its data is where DWARF lives).
  const regions = [[0, 64] as [number, number], ...new ElfObject(buf).sections.filter((s) => s.type !== 8 && s.size > 0).map((s) => [s.offset, s.size] as [number, number])]
  return { buf, regions }
})

/** Writes a hostile number at `at`: a 1, 2, 4 or 8-byte field, or a ULEB128 run. */
function hostileField(random: SeededRandom, copy: Buffer, at: number) {
  const value = hostileNumber(random)
  const bytes = random.pick([1, 2, 4, 8, 5])
  const field = Buffer.alloc(bytes)
  if (bytes === 5) field.fill(0xff, 0, 4).writeUInt8(random.int(0, 0x7f), 4)
  else if (bytes === 8) field.writeBigUInt64LE(BigInt.asUintN(64, BigInt(Math.trunc(Math.abs(value)) % 2 ** 53)) | (random.chance(0.3) ? 0xffffffff00000000n : 0n))
  else field.writeUIntLE(Math.abs(Math.trunc(value)) % 2 ** (8 * bytes), 0, bytes)
  field.copy(copy, at)
}

function mutateObject(random: SeededRandom): Buffer {
  const { buf, regions } = random.pick(fixtures)
  let copy = Buffer.from(buf)
  const rounds = random.pick([1, 1, 2, 5, 20])
  for (let r = 0; r < rounds; r++) {
    const [start, size] = random.pick(regions)
    const at = Math.min(copy.length - 1, start + random.int(0, Math.max(0, size - 1)))
    switch (random.int(0, 5)) {
      case 0:
        copy = copy.subarray(0, random.int(0, copy.length))
        break
      case 1:
        for (let i = random.int(1, 16); i > 0; i--) copy[Math.min(copy.length - 1, at + random.int(0, 64))] = random.int(0, 255)
        break
      case 2:
      case 3:
        if (at >= 0) hostileField(random, copy, at)
        break
      case 4:
        copy = Buffer.concat([copy.subarray(0, at), copy.subarray(at, at + 64).fill(random.int(0, 255)), copy.subarray(at)])
        break
      default:
        copy = Buffer.concat([copy.subarray(0, at), random.bytes(random.int(1, 256)), copy.subarray(at + random.int(0, 256))])
    }
    if (copy.length === 0) break
  }
  return random.chance(0.1) ? gzipSync(copy) : copy
}

describe('ELF uploads, fuzzed', () => {
  it.each(fuzzSeeds(12))('seed %i: every object is read or refused with a reason, in bounded time and memory', (seed) => {
    const random = seededRandom(seed)
    let read = 0
    for (let round = 0; round < 150; round++) {
      const input = mutateObject(random)
      const started = performance.now()
      const heapBefore = process.memoryUsage().heapUsed
      try {
        const sink = new RecordingSink()
        const info = readSoFile(input, sink, { maxBytes: 16 * 1024 * 1024 })
        expect(info.debugId).toMatch(/^[0-9A-F]{33}$/)
        for (const l of sink.lines) expect(Number.isSafeInteger(l.address) && l.address >= 0 && l.size > 0).toBe(true)
        read++
      } catch (err) {
        if (!(err instanceof NativeUploadError)) throw new Error(`seed ${seed} round ${round}: ${(err as Error).stack}`)
        expect((err as Error).message).toMatch(/^soFile: /)
      }
      const tookMs = performance.now() - started
      const grewBytes = process.memoryUsage().heapUsed - heapBefore
      // Generous: a loaded 2-core machine and a garbage collector that runs when it likes. The
      // defects these catch cost seconds and gigabytes.
      expect(tookMs, `seed ${seed} round ${round}: ${tookMs} ms`).toBeLessThan(5_000)
      expect(grewBytes, `seed ${seed} round ${round}: heap grew ${grewBytes} bytes`).toBeLessThan(128 * 1024 * 1024)
    }
    // Mutations keep many objects readable: the readers beyond the header are reached.
    expect(read).toBeGreaterThan(10)
  })
})
