import { describe, expect, it } from 'vitest'
import { breakpadDebugIdFromBuildId, normalizeArch, normalizeCodeId, normalizeDebugId } from './native-ids.ts'

describe('breakpadDebugIdFromBuildId', () => {
  it.each([
    // dump_syms' own test data
    ['b060ad20c6b47781552708aa192e7739fac7c84a', '20AD60B0B4C68177552708AA192E77390'],
    // the fixtures: libfixture.so.sym and libcrash.aarch64.sym name these in MODULE and INFO CODE_ID
    ['5cd086499a99ccfa2839651e46ba5aeff5f4722c', '4986D05C999AFACC2839651E46BA5AEF0'],
    ['C4C3E67882C5AE90748762B6CCAF46F60A4DB16A', '78E6C3C4C58290AE748762B6CCAF46F60'],
    // shorter than 16 bytes: zero-padded before the swap
    ['0102030405060708', '040302010605080700000000000000000'],
    ['ab', '000000AB0000000000000000000000000'],
  ])('%s → %s', (buildId, debugId) => {
    expect(breakpadDebugIdFromBuildId(buildId)).toBe(debugId)
  })

  it.each(['', 'a', 'abc', 'zz', 'b060ad20-c6b4'])('refuses %j', (buildId) => {
    expect(breakpadDebugIdFromBuildId(buildId)).toBeNull()
  })
})

describe('normalizeDebugId', () => {
  it.each([
    ['20AD60B0B4C68177552708AA192E77390', '20AD60B0B4C68177552708AA192E77390'],
    ['20ad60b0b4c68177552708aa192e77390', '20AD60B0B4C68177552708AA192E77390'],
    ['20ad60b0b4c68177552708aa192e7739', '20AD60B0B4C68177552708AA192E77390'],
    ['20ad60b0-b4c6-8177-5527-08aa192e7739', '20AD60B0B4C68177552708AA192E77390'],
    ['20AD60B0-B4C6-8177-5527-08AA192E7739-0', '20AD60B0B4C68177552708AA192E77390'],
    // a PDB whose age is 0x1a
    ['5a9832e5287241c1838ed98914e9b7ff1a', '5A9832E5287241C1838ED98914E9B7FF1A'],
  ])('%s → %s', (id, normalized) => {
    expect(normalizeDebugId(id)).toBe(normalized)
  })

  it.each(['', '20AD60B0', 'x0AD60B0B4C68177552708AA192E77390', '0'.repeat(41)])('refuses %j', (id) => {
    expect(normalizeDebugId(id)).toBeNull()
  })
})

describe('normalizeCodeId', () => {
  it('lower-cases hex and refuses anything else', () => {
    expect(normalizeCodeId('C4C3E67882C5AE90748762B6CCAF46F60A4DB16A')).toBe('c4c3e67882c5ae90748762b6ccaf46f60a4db16a')
    expect(normalizeCodeId('not hex')).toBeNull()
    expect(normalizeCodeId('')).toBeNull()
  })
})

describe('normalizeArch', () => {
  it.each([
    ['x86', 'x86'],
    ['i386', 'x86'],
    ['i686', 'x86'],
    ['x86_64', 'x86_64'],
    ['AMD64', 'x86_64'],
    ['arm', 'arm'],
    ['armv7', 'arm'],
    ['armv7s', 'arm'],
    ['armeabi-v7a', 'arm'],
    ['arm64', 'arm64'],
    ['arm64e', 'arm64'],
    ['aarch64', 'arm64'],
    ['mips', 'mips'],
    ['mips64el', 'mips64'],
    ['ppc', 'ppc'],
    ['ppc64le', 'ppc64'],
    ['sparc', 'unknown'],
    ['', 'unknown'],
  ])('%s → %s', (cpu, arch) => {
    expect(normalizeArch(cpu)).toBe(arch)
  })
})
