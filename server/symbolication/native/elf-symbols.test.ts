import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { RecordingSink } from '../../test-support/recording-symbol-sink.ts'
import { readElfSymbols } from './elf-symbols.ts'
import { readSoFile } from './so-file.ts'

// Golden answers come from llvm-symbolizer (scripts/make-elf-golden.ts): the outermost function
// of each address, and the innermost file and line. Fixtures: test/fixtures/native/README.md.

const dir = new URL('../../../test/fixtures/native/', import.meta.url)
const fixture = (name: string) => readFileSync(new URL(name, dir))

interface Golden {
  object: string
  buildId: string
  arch: string
  answers: { address: string; function: string | null; mangledFunction: string | null; file: string | null; line: number | null }[]
}
const golden = (name: string) => JSON.parse(readFileSync(new URL(`${name}.elf-golden.json`, dir), 'utf8')) as Golden

function read(name: string, options: Parameters<typeof readSoFile>[2] = { maxBytes: 64 * 1024 * 1024 }) {
  const sink = new RecordingSink()
  const info = readSoFile(fixture(name), sink, options)
  return { sink, info }
}

/** Compares every golden address; returns how many were compared. */
function expectGolden(sink: RecordingSink, answers: Golden['answers'], adjust: { codeStart: number; file?: (file: string) => string }) {
  // Addresses inside a sized function (the golden's own addresses, not the few outside every function).
  const inFunction = (address: number) => sink.functions.some((f) => address >= f.address && address < f.address + f.size)
  let compared = 0
  for (const answer of answers) {
    const address = Number(answer.address)
    const got = sink.lookup(address)
    if (address < adjust.codeStart) {
      // A discarded function's line-table sequence left at address 0 (GNU ld and lld 14's tombstone):
      // llvm-symbolizer answers it, the reader drops it (SYMBOLICATION.md, pitfall 6).
      expect(got, answer.address).toEqual({ function: null, file: null, line: null })
      continue
    }
    const file = answer.file && adjust.file ? adjust.file(answer.file) : answer.file
    if (inFunction(address)) expect({ address: answer.address, ...got }).toEqual({ address: answer.address, function: answer.function, file, line: answer.line })
    else expect({ address: answer.address, file: got.file, line: got.line }).toEqual({ address: answer.address, file, line: answer.line })
    compared++
  }
  return compared
}

describe('readSoFile against llvm-symbolizer', () => {
  it('libcrash.aarch64.so (arm64, DWARF 4): identity, every function byte', () => {
    const { sink, info } = read('libcrash.aarch64.so', { maxBytes: 1 << 20, moduleName: 'libcrash.so' })
    expect(info).toEqual({
      debugId: '78E6C3C4C58290AE748762B6CCAF46F60', // libcrash.aarch64.sym's MODULE line
      codeId: 'c4c3e67882c5ae90748762b6ccaf46f60a4db16a',
      os: 'linux',
      arch: 'arm64',
      moduleName: 'libcrash.so', // no DT_SONAME: the caller's name
      hasLineInfo: true,
      hasSymbols: true,
      symbolsFrom: 'symtab',
    })
    expect(expectGolden(sink, golden('libcrash.aarch64.so').answers, { codeStart: 0 })).toBeGreaterThan(250)
    // .symtab's _ZN3app6Widget6renderEi, demangled as Breakpad's dump_syms writes it.
    expect(sink.functions.map((f) => f.name)).toContain('app::Widget::render(int)')
  })

  it('libcrash.aarch64.so.debug (debug-only extract, NOBITS .text) answers the same', () => {
    const { sink, info } = read('libcrash.aarch64.so.debug')
    expect(info.codeId).toBe('c4c3e67882c5ae90748762b6ccaf46f60a4db16a')
    expect(info.hasLineInfo).toBe(true)
    expectGolden(sink, golden('libcrash.aarch64.so').answers, { codeStart: 0 })
    expect(sink).toEqual(read('libcrash.aarch64.so').sink)
  })

  it('libfixture.so (x86_64, gcc, DWARF 5) and its zlib-compressed debug extract', () => {
    const { sink, info } = read('libfixture.so')
    expect(info).toMatchObject({ debugId: '4986D05C999AFACC2839651E46BA5AEF0', codeId: '5cd086499a99ccfa2839651e46ba5aeff5f4722c', arch: 'x86_64', os: 'linux' })
    expect(expectGolden(sink, golden('libfixture.so').answers, { codeStart: 0 })).toBeGreaterThan(150)
    const debug = read('libfixture.so.debug')
    expect(debug.info).toEqual(info)
    expectGolden(debug.sink, golden('libfixture.so').answers, { codeStart: 0 })
  })

  it('libcrash.armv7.so (32-bit ARM Thumb): Thumb bit cleared, mapping symbols skipped, Android note, tombstones at 0 dropped', () => {
    const { sink, info } = read('libcrash.armv7.so', { maxBytes: 1 << 20, moduleName: 'ignored.so' })
    expect(info).toMatchObject({ arch: 'arm', os: 'android', moduleName: 'libcrash.armv7.so', codeId: golden('libcrash.armv7.so').buildId })
    // .symtab says 0x138d (Thumb); the code is at 0x138c.
    expect(sink.functions.find((f) => f.name === 'compute')).toMatchObject({ address: 0x138c, size: 36 })
    expect(sink.functions.every((f) => f.address % 2 === 0 && !f.name.startsWith('$'))).toBe(true)
    expect(expectGolden(sink, golden('libcrash.armv7.so').answers, { codeStart: 0x138c })).toBeGreaterThan(140)
    expect(sink.lines.every((l) => l.address >= 0x138c)).toBe(true)
  })

  it('libcrash.armv7.so.debug (legacy .zdebug_* sections) answers the same', () => {
    const { sink, info } = read('libcrash.armv7.so.debug', { maxBytes: 1 << 20, moduleName: 'libcrash.armv7.so' })
    expect(info).toMatchObject({ arch: 'arm', os: 'android', moduleName: 'libcrash.armv7.so', hasLineInfo: true })
    expectGolden(sink, golden('libcrash.armv7.so').answers, { codeStart: 0x138c })
  })

  it('libcrash.x86_64.so (clang, DWARF 5, strx comp_dir, -1 tombstones): every function byte', () => {
    const { sink, info } = read('libcrash.x86_64.so')
    expect(info).toMatchObject({ arch: 'x86_64', os: 'linux', moduleName: 'libcrash.x86_64.so', codeId: golden('libcrash.x86_64.so').buildId })
    // llvm-symbolizer 14 joins a relative DW_AT_comp_dir ("app") with DWARF 5's directory 0, which
    // already is the compilation directory: "app/app/crashlib.c". The reader does not double it.
    expectGolden(sink, golden('libcrash.x86_64.so').answers, { codeStart: 0, file: (f) => f.replace('app/app/', 'app/') })
    // unused_helper was dropped by --gc-sections; its sequence at 0xffffffffffffffff is not read.
    expect([...sink.files.values()]).not.toContain('app/unused.c')
    expect(sink.lines.every((l) => l.address < 0x10000)).toBe(true)
  })

  it('a gzipped upload reads like the object', () => {
    const sink = new RecordingSink()
    const info = readSoFile(gzipSync(fixture('libfixture.so')), sink, { maxBytes: 1 << 20 })
    expect(info).toEqual(read('libfixture.so').info)
    expect(sink).toEqual(read('libfixture.so').sink)
  })

  it('a stripped object: exported names from .dynsym, no line info', () => {
    const { sink, info } = read('libcrash.aarch64.stripped.so')
    expect(info).toMatchObject({ codeId: 'c4c3e67882c5ae90748762b6ccaf46f60a4db16a', hasLineInfo: false, hasSymbols: true, symbolsFrom: 'dynsym' })
    expect(sink.lines).toEqual([])
    expect(sink.functions.map((f) => [f.address, f.name])).toContainEqual([0x1670, 'crash_here'])
  })

  it('takes the os from the caller unless the object says Android', () => {
    expect(readElfSymbols(fixture('libfixture.so'), new RecordingSink(), { os: 'android' }).os).toBe('android')
    expect(readElfSymbols(fixture('libfixture.so'), new RecordingSink()).os).toBe('linux')
    expect(readElfSymbols(fixture('libfixture.so'), new RecordingSink()).moduleName).toBe('unknown')
  })
})
