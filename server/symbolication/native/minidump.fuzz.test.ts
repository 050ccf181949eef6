import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { framePointerStack, writeMinidump, type WriterArch } from '../../test-support/minidump-writer.ts'
import { fuzzSeeds, hostileNumber, seededRandom, type SeededRandom } from '../../test-support/seeded-random.ts'
import { MinidumpError, parseMinidump } from './minidump.ts'
import { walkThreads, type SymbolsFor } from './stackwalk.ts'

// Minidumps are uploaded: whatever one holds, reading it and walking its stacks ends, and fails
// only with a MinidumpError (which the upload answers as a 400).

const real = readFileSync(new URL('../../../test/fixtures/native/windows-x86-test.dmp', import.meta.url))

function synthesized(random: SeededRandom): Buffer {
  const arch = random.pick<WriterArch>(['x86', 'x86_64', 'arm', 'arm64'])
  const wide = arch === 'x86_64' || arch === 'arm64'
  const app = wide ? 0x5555_0000_0000n : 0x0800_0000n
  const returns = Array.from({ length: random.int(0, 6) }, () => app + BigInt(random.int(0, 0xffff)))
  const { stack, sp, fp } = framePointerStack(arch, { base: wide ? 0x7ffd_0000_0000n : 0xbf00_0000n, returnAddresses: returns })
  return writeMinidump({
    arch,
    os: random.pick(['linux', 'android', 'windows', 'mac', 'ios'] as const),
    arm64Layout: random.pick(['breakpad', 'microsoft'] as const),
    modules: [
      { name: 'app', base: app, size: 0x10000, buildId: 'b060ad20c6b47781552708aa192e7739fac7c84a' },
      { name: 'lib.dll', base: app + 0x100000n, size: 0x1000, pdb: { guid: '5A9832E5287241C1838ED98914E9B7FF', age: 1, file: 'lib.pdb' } },
    ],
    crashingThread: { id: 1, pc: app + 0x10n, sp, fp, lr: returns[0] ?? 0, stack, thumb: random.chance(0.3) },
    threads: [{ id: 2, pc: app, sp, fp: random.chance(0.5) ? fp : 0, stack }],
  })
}

/** Byte flips, hostile u32/u64 values at aligned offsets, truncation, repeated or dropped slices. */
function mutateDump(random: SeededRandom, dump: Buffer): Buffer {
  const out = Buffer.from(dump)
  const edits = random.int(1, 8)
  let result = out
  for (let i = 0; i < edits; i++) {
    const at = random.int(0, Math.max(0, result.length - 8))
    switch (random.int(0, 5)) {
      case 0:
        result[at] = random.int(0, 255)
        break
      case 1:
        result.writeUInt32LE(Number(BigInt.asUintN(32, BigInt(Math.trunc(hostileNumber(random))))), at - (at % 4))
        break
      case 2:
        result.writeBigUInt64LE(BigInt.asUintN(64, BigInt(Math.trunc(hostileNumber(random)))), at - (at % 4))
        break
      case 3:
        result = result.subarray(0, random.int(0, result.length))
        break
      case 4:
        result = Buffer.concat([result.subarray(0, at), result.subarray(at, at + 64), result.subarray(at)])
        break
      default:
        result = Buffer.concat([result.subarray(0, at), result.subarray(at + random.int(1, 64))])
    }
    if (result.length < 8) break
  }
  return result
}

/** CFI that may be anything: well-formed, cyclic through memory, or garbage. */
function hostileSymbols(random: SeededRandom): SymbolsFor {
  const rules = [
    '.cfa: $rsp 8 + .ra: .cfa -8 + ^',
    '.cfa: sp 0 + .ra: x30',
    '.cfa: x29 16 + .ra: .cfa -8 + ^ x29: .cfa -16 + ^',
    '.cfa: $esp 4 + .ra: .cfa -4 + ^ $ebp: .cfa -8 + ^',
    '.cfa: sp 0 - .ra: .cfa ^ ^ ^',
    '.cfa: $rsp -8 + .ra: $rsp ^',
    '.cfa: r7 8 + .ra: .cfa -4 + ^ r7: .cfa -8 + ^',
    ': : :',
    '.cfa: 1 0 / .ra: 0',
  ]
  return () => ({
    cfiAt: (relative) =>
      random.chance(0.2)
        ? null
        : {
            init: `INIT ${relative.toString(16)} ${random.pick(['1', '100', 'ffffffff', 'x'])} ${random.pick(rules)}`,
            deltas: Array.from({ length: random.int(0, 3) }, () => `${(relative - random.int(-2, 2)).toString(16)} ${random.pick(rules)}`),
          },
  })
}

describe('minidumps, fuzzed', () => {
  it.each(fuzzSeeds(8))('seed %i: a result or a MinidumpError, nothing else', (seed) => {
    const random = seededRandom(seed)
    let parsed = 0
    for (let i = 0; i < 150; i++) {
      const input = mutateDump(random, random.chance(0.2) ? real : synthesized(random))
      let dump
      try {
        dump = parseMinidump(input)
      } catch (error) {
        if (!(error instanceof MinidumpError)) throw new Error(`seed ${seed}, case ${i}: ${String(error)}`, { cause: error })
        continue
      }
      parsed++
      const threads = walkThreads(dump, random.chance(0.5) ? () => null : hostileSymbols(random), { maxFrames: random.pick([1, 16, 256]) })
      for (const thread of threads) expect(thread.frames.length).toBeLessThanOrEqual(256)
    }
    // The mutations leave some dumps readable, so the walk is fuzzed too.
    expect(parsed).toBeGreaterThan(0)
  })
})
