import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { symCacheFromBreakpad } from './breakpad-sym.ts'
import type { NativeLocation } from './native-symbols.ts'
import { createSymCacheBuilder, SymCache, SymCacheError } from './symcache.ts'

const NATIVE = join(import.meta.dirname, '../../../test/fixtures/native')

async function cacheOf(symText: string | Buffer): Promise<SymCache> {
  const { symCache } = await symCacheFromBreakpad(Buffer.isBuffer(symText) ? symText : Buffer.from(symText))
  return SymCache.fromBuffer(symCache)
}

const frame = (fn: string | null, file: string | null, line: number | null, inlined = false): NativeLocation => ({ function: fn, file, line, inlined })

// Golden answers from llvm-symbolizer 14 on the ELF each .sym file describes, for every byte
// address from 0x20 before its first symbol to 0x20 after its last (scripts/make-native-golden.ts
// makes them). Compared: the outermost function (a .sym without INLINE records names that one),
// and the innermost file and line (its line records give those).
//
// Where they disagree, and why, none of it a lookup error:
// - llvm-symbolizer joins DW_AT_comp_dir ("app/") to file names and dump_syms does not: files
//   match when llvm's ends with the .sym's ("app/./helpers.h" ends with "helpers.h").
// - Where no line row covers an address, llvm-symbolizer still names the compilation unit's
//   file (libfixture's crtstuff.c functions: _init's neighbours, frame_dummy, …) with line 0;
//   the .sym file has only PUBLIC records there, so the SymCache names no file. Counted below.
// - libcrash.aarch64.sym was not written by dump_syms and keeps one C++ name mangled,
//   `_ZN3app6Widget6renderEi`, which llvm-symbolizer -C demangles to `app::Widget::render(int)`.
//   Breakpad files hold demangled names (dump_syms demangles), so the SymCache keeps what the
//   file says.
// Every other address agrees, including line 0 (→ null), addresses between and around
// functions, and libfixture's PUBLIC symbols (_init, frame_dummy, _fini, …) with the PUBLIC rule.
const KNOWN_NAME_DIFFERENCES: Record<string, string> = { _ZN3app6Widget6renderEi: 'app::Widget::render(int)' }

describe.each([
  ['libcrash.aarch64.so.golden.json', 352, 0],
  ['libfixture.so.golden.json', 501, 185],
])('%s: lookups agree with llvm-symbolizer', (goldenFile, count, fileOnlyFromLlvm) => {
  const golden = JSON.parse(readFileSync(join(NATIVE, goldenFile), 'utf8')) as {
    sym: string
    answers: Array<{ address: number; function: string | null; file: string | null; line: number | null }>
  }

  it(`on all ${count} addresses`, async () => {
    const cache = await cacheOf(readFileSync(join(NATIVE, golden.sym)))
    expect(golden.answers).toHaveLength(count)
    const disagreements: string[] = []
    let crtFileOnly = 0
    for (const answer of golden.answers) {
      const frames = cache.lookup(answer.address)
      const outer = frames.at(-1)?.function ?? null
      const name = outer === null ? null : (KNOWN_NAME_DIFFERENCES[outer] ?? outer)
      const file = frames[0]?.file ?? null
      const line = frames[0]?.line ?? null
      // (llvm names a compilation unit's file where no line row covers the address: crtstuff.c)
      const fileAgrees = file === null ? answer.file === null || (answer.line === null && line === null) : answer.file !== null && answer.file.endsWith(file.replace(/^\.\//, ''))
      if (file === null && answer.file !== null) crtFileOnly++
      if (name !== answer.function || line !== answer.line || !fileAgrees) disagreements.push(`0x${answer.address.toString(16)}: ${JSON.stringify({ name, file, line })} vs ${JSON.stringify(answer)}`)
    }
    expect(disagreements).toEqual([])
    expect(crtFileOnly).toBe(fileOnlyFromLlvm)
  })
})

describe('the fixtures', () => {
  it('libcrash.aarch64.sym: the Bugsnag NDK frames', async () => {
    const cache = await cacheOf(readFileSync(join(NATIVE, 'libcrash.aarch64.sym')))
    expect(cache.identity).toEqual({ debugId: '78E6C3C4C58290AE748762B6CCAF46F60', codeId: 'c4c3e67882c5ae90748762b6ccaf46f60a4db16a', os: 'linux', arch: 'arm64', moduleName: 'libcrash.aarch64.so' })
    expect([cache.hasLineInfo, cache.hasInlineInfo, cache.hasCfi]).toEqual([true, false, false])
    expect(cache.lookup(0x1698)).toEqual([frame('crash_here', 'crashlib.c', 20)])
    expect(cache.lookup(0x16b8)).toEqual([frame('level_two', 'crashlib.c', 24)])
    // line 0 (compiler-made code) is an unknown line, never ":0"
    expect(cache.lookup(0x1634)).toEqual([frame('compute', 'crashlib.c', null)])
    expect(cache.lookup(0x162b)).toEqual([])
    expect(cache.lookup(0x174c)).toEqual([])
  })

  it('libfixture.so.sym: PUBLIC symbols and STACK CFI', async () => {
    const cache = await cacheOf(readFileSync(join(NATIVE, 'libfixture.so.sym')))
    expect(cache.identity.debugId).toBe('4986D05C999AFACC2839651E46BA5AEF0')
    expect(cache.identity.codeId).toBe('5cd086499a99ccfa2839651e46ba5aeff5f4722c')
    expect([cache.hasLineInfo, cache.hasInlineInfo, cache.hasCfi]).toEqual([true, false, true])
    expect(cache.lookup(0x1184)).toEqual([frame('fixture_crash', '/project/native/fixture.c', 28)])
    expect(cache.lookup(0x1112)).toEqual([frame('frame_dummy', null, null)])
    expect(cache.cfiAt(0x1131)).toEqual({
      init: 'INIT 112d 3a .cfa: $rsp 8 + .ra: .cfa -8 + ^',
      deltas: ['112f $r12: .cfa -16 + ^ .cfa: $rsp 16 +', '1130 $rbp: .cfa -24 + ^ .cfa: $rsp 24 +', '1131 $rbx: .cfa -32 + ^ .cfa: $rsp 32 +'],
    })
    // the INIT's own address: no delta yet
    expect(cache.cfiAt(0x112d)).toEqual({ init: 'INIT 112d 3a .cfa: $rsp 8 + .ra: .cfa -8 + ^', deltas: [] })
    // deltas of the INIT before are not this one's
    expect(cache.cfiAt(0x1167)?.deltas).toEqual([])
    expect(cache.cfiAt(0x117e)?.deltas).toEqual(['1175 .cfa: $rsp 16 +', '117e .cfa: $rsp 8 +'])
    // between INIT ranges (0x1050 + 8 ends before 0x1119) and past the last
    expect(cache.cfiAt(0x1100)).toBeNull()
    expect(cache.cfiAt(0x11b1)).toBeNull()
    expect(cache.cfiAt(-1)).toBeNull()
  })
})

const INLINES = `MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 libinline.so
FILE 0 main.c
FILE 1 inline.h
INLINE_ORIGIN 0 outer_inline
INLINE_ORIGIN 1 inner_inline(int, char const*)
INLINE_ORIGIN 2 7 older_form_origin
FUNC 1000 100 0 main
INLINE 0 10 0 0 1010 40 1080 10
INLINE 1 20 1 1 1020 10
1000 10 5 0
1010 10 11 1
1020 10 21 1
1030 20 12 1
1050 b0 6 0
FUNC 2000 20 0 older
INLINE 0 30 2 2000 8
2000 20 40 0
FUNC 3000 10 0 unknown_origin
INLINE 0 50 0 99 3000 10
3000 10 0 1
`

describe('INLINE records', () => {
  it('frames innermost first: the deepest at the line record, each outer one at the call site one level deeper', async () => {
    const cache = await cacheOf(INLINES)
    expect(cache.hasInlineInfo).toBe(true)
    expect(cache.lookup(0x1025)).toEqual([frame('inner_inline(int, char const*)', 'inline.h', 21, true), frame('outer_inline', 'inline.h', 20, true), frame('main', 'main.c', 10)])
    expect(cache.lookup(0x1035)).toEqual([frame('outer_inline', 'inline.h', 12, true), frame('main', 'main.c', 10)])
    // the second range of the depth-0 record
    expect(cache.lookup(0x1085)).toEqual([frame('outer_inline', 'main.c', 6, true), frame('main', 'main.c', 10)])
    expect(cache.lookup(0x1005)).toEqual([frame('main', 'main.c', 5)])
    expect(cache.lookup(0x1095)).toEqual([frame('main', 'main.c', 6)])
  })

  it('reads the older forms: INLINE without a call file, INLINE_ORIGIN with a file number', async () => {
    const cache = await cacheOf(INLINES)
    expect(cache.lookup(0x2004)).toEqual([frame('older_form_origin', 'main.c', 40, true), frame('older', null, 30)])
  })

  it('keeps the frame of an unknown origin, unnamed; a call line or line 0 is null', async () => {
    const cache = await cacheOf(INLINES)
    expect(cache.lookup(0x3004)).toEqual([frame(null, 'inline.h', null, true), frame('unknown_origin', 'main.c', 50)])
  })
})

const SYMBOLS = `MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 libsymbols.so
FILE 0 a.c
FUNC 1000 100 0 first
PUBLIC 1f00 0 public_before
FUNC 2000 10 0 sized
PUBLIC 2100 0 public_after
FUNC 2200 0 0 size_zero
2200 10 3 0
PUBLIC 2300 0 public_last
FUNC m 3000 10 0 folded_a
FUNC 3000 10 0 canonical
FUNC m 3000 10 0 folded_b
FUNC m 3100 10 0 only_folded
FUNC m 3100 10 0 only_folded_second
PUBLIC m 3200 0 public_folded
PUBLIC 3200 0 public_canonical
FUNC 4000 10 0 with_line_zero
4000 8 0 0
4008 8 7 0
`

describe('FUNC and PUBLIC', () => {
  it('falls back to the nearest PUBLIC, unless a FUNC starts between it and the address', async () => {
    const cache = await cacheOf(SYMBOLS)
    expect(cache.lookup(0x1050)).toEqual([frame('first', null, null)])
    // past `first`, before `sized`: the PUBLIC after `first` applies
    expect(cache.lookup(0x1f80)).toEqual([frame('public_before', null, null)])
    expect(cache.lookup(0x2005)).toEqual([frame('sized', null, null)])
    // past `sized`: public_before is cut off by `sized`, which starts after it (refused)
    expect(cache.lookup(0x2050)).toEqual([])
    expect(cache.lookup(0x2150)).toEqual([frame('public_after', null, null)])
    expect(cache.lookup(0xfff)).toEqual([])
  })

  it('a FUNC of size 0 extends to the next symbol, with its line records', async () => {
    const cache = await cacheOf(SYMBOLS)
    expect(cache.lookup(0x2205)).toEqual([frame('size_zero', 'a.c', 3)])
    expect(cache.lookup(0x22ff)).toEqual([frame('size_zero', null, null)])
    expect(cache.lookup(0x2300)).toEqual([frame('public_last', null, null)])
  })

  it('several symbols at one address (identical code folding): a non-folded one, else the first', async () => {
    const cache = await cacheOf(SYMBOLS)
    expect(cache.lookup(0x3004)).toEqual([frame('canonical', null, null)])
    expect(cache.lookup(0x3104)).toEqual([frame('only_folded', null, null)])
    expect(cache.lookup(0x3204)).toEqual([frame('public_canonical', null, null)])
    expect(cache.counts.functions).toBe(6)
  })

  it('the last PUBLIC extends to the end of the module', async () => {
    const cache = await cacheOf(SYMBOLS.replace(/FUNC 4000[^]*$/, ''))
    expect(cache.lookup(0x7fff_ffff_ffff)).toEqual([frame('public_canonical', null, null)])
  })

  it('line 0 is an unknown line', async () => {
    const cache = await cacheOf(SYMBOLS)
    expect(cache.lookup(0x4004)).toEqual([frame('with_line_zero', 'a.c', null)])
    expect(cache.lookup(0x4009)).toEqual([frame('with_line_zero', 'a.c', 7)])
  })

  it('addresses that are not addresses find nothing', async () => {
    const cache = await cacheOf(SYMBOLS)
    for (const address of [-1, Number.NaN, -Infinity]) expect(cache.lookup(address)).toEqual([])
  })
})

describe('the builder', () => {
  const identity = { debugId: '0123456789ABCDEF0123456789ABCDEF0', codeId: null, os: 'linux', arch: 'arm64' as const, moduleName: 'libfed.so' }

  it('takes records in any order (DWARF line tables come per compilation unit) and sorts them', () => {
    const builder = createSymCacheBuilder(identity)
    builder.line(0x2000, 4, 9, 3)
    builder.func(0x2000, 0x10, 'second')
    builder.line(0x1000, 4, 2, 3)
    builder.file(3, 'src/b.c')
    builder.func(0x1000, 0x10, 'first')
    builder.publicSymbol(0x500, 'early')
    const cache = SymCache.fromBuffer(builder.finish())
    expect(cache.identity).toEqual(identity)
    expect(cache.lookup(0x1002)).toEqual([frame('first', 'src/b.c', 2)])
    expect(cache.lookup(0x2002)).toEqual([frame('second', 'src/b.c', 9)])
    expect(cache.lookup(0x600)).toEqual([frame('early', null, null)])
    expect([cache.hasLineInfo, cache.hasInlineInfo, cache.hasCfi]).toEqual([true, false, false])
  })

  it('an empty module is a valid SymCache that finds nothing', () => {
    const cache = SymCache.fromBuffer(createSymCacheBuilder(identity).finish())
    expect(cache.lookup(0)).toEqual([])
    expect(cache.cfiAt(0)).toBeNull()
    expect([cache.hasLineInfo, cache.hasInlineInfo, cache.hasCfi]).toEqual([false, false, false])
  })

  it('needs an identity, at creation or at finish()', () => {
    expect(() => createSymCacheBuilder().finish()).toThrow(/module identity/)
    expect(SymCache.fromBuffer(createSymCacheBuilder().finish(identity)).identity).toEqual(identity)
  })
})

describe('the SymCache buffer', () => {
  const fixture = () => symCacheFromBreakpad(readFileSync(join(NATIVE, 'libfixture.so.sym')))

  it('round-trips, at any alignment of the Buffer it is given', async () => {
    const { symCache } = await fixture()
    const original = SymCache.fromBuffer(symCache)
    const shifted = Buffer.alloc(symCache.length + 3)
    symCache.copy(shifted, 3)
    const unaligned = SymCache.fromBuffer(shifted.subarray(3))
    for (let address = 0xff0; address < 0x11d0; address++) {
      expect(unaligned.lookup(address)).toEqual(original.lookup(address))
      expect(unaligned.cfiAt(address)).toEqual(original.cfiAt(address))
    }
    expect(unaligned.identity).toEqual(original.identity)
    expect(symCache.subarray(0, 8).toString('latin1')).toBe('ESYMCACH')
  })

  it('refuses every truncation', async () => {
    const { symCache } = await fixture()
    for (let length = 0; length < symCache.length; length++) expect(() => SymCache.fromBuffer(symCache.subarray(0, length)), `length ${length}`).toThrow(SymCacheError)
    expect(() => SymCache.fromBuffer(Buffer.concat([symCache, Buffer.alloc(8)]))).toThrow(/truncated or damaged/)
  })

  it('refuses another magic, another version, inconsistent counts or string offsets', async () => {
    const { symCache } = await fixture()
    const damaged = (at: number, value: number) => {
      const copy = Buffer.from(symCache)
      copy.writeUInt32LE(value, at)
      return copy
    }
    expect(() => SymCache.fromBuffer(damaged(0, 0x12345678))).toThrow(/not a SymCache/)
    expect(() => SymCache.fromBuffer(damaged(8, 2))).toThrow(/version 2; this server reads version 1/)
    expect(() => SymCache.fromBuffer(damaged(16, 5))).toThrow(/truncated or damaged/)
    // the string table's last offset, which must equal the string bytes' count
    const stringBytes = symCache.readUInt32LE(44)
    const strings = symCache.readUInt32LE(40)
    const lastOffsetAt = symCache.length - Math.ceil(stringBytes / 8) * 8 - Math.ceil(((strings + 1) * 4) / 8) * 8 + strings * 4
    expect(symCache.readUInt32LE(lastOffsetAt)).toBe(stringBytes)
    expect(() => SymCache.fromBuffer(damaged(lastOffsetAt, stringBytes + 1))).toThrow(SymCacheError)
    expect(() => SymCache.fromBuffer(damaged(lastOffsetAt - 4, stringBytes + 1))).toThrow(/backwards/)
    // the identity's debug id pointing nowhere
    expect(() => SymCache.fromBuffer(damaged(48, 0xffffffff))).toThrow(/identity/)
  })
})
