import { describe, expect, it } from 'vitest'
import { ElfError, ElfObject } from './elf.ts'
import { RecordingSink } from '../../test-support/recording-symbol-sink.ts'
import { readElfSymbols } from './elf-symbols.ts'

// Small ELF objects written here: what the compiled fixtures cannot show (big-endian, ELF32
// symbol tables with aliases and folded code, a non-zero first PT_LOAD, odd build ids).

interface SectionSpec {
  name: string
  type: number
  data: Buffer
  flags?: number
  address?: number
  /** The name of the section sh_link points at. */
  link?: string
  align?: number
}

interface SymbolSpec {
  name: string
  value: number
  size: number
  /** STB_* << 4 | STT_*. */
  info: number
  /** 0: undefined; else a defined section index. */
  shndx?: number
}

class Writer {
  private readonly parts: number[] = []
  constructor(
    readonly bits: 32 | 64,
    readonly le: boolean,
  ) {}
  get length() {
    return this.parts.length
  }
  bytes(b: ArrayLike<number>) {
    for (let i = 0; i < b.length; i++) this.parts.push(b[i]!)
  }
  uint(value: number, size: number) {
    const b = Buffer.alloc(size)
    if (size === 2) b[this.le ? 'writeUInt16LE' : 'writeUInt16BE'](value)
    else if (size === 4) b[this.le ? 'writeUInt32LE' : 'writeUInt32BE'](value)
    else b[this.le ? 'writeBigUInt64LE' : 'writeBigUInt64BE'](BigInt(value))
    this.bytes(b)
  }
  word(value: number) {
    this.uint(value, this.bits / 8)
  }
  pad(to: number) {
    while (this.parts.length % to) this.parts.push(0)
  }
  buffer() {
    return Buffer.from(this.parts)
  }
}

function note(bits: 32 | 64, le: boolean, name: string, type: number, desc: Buffer): Buffer {
  const w = new Writer(bits, le)
  w.uint(name.length + 1, 4)
  w.uint(desc.length, 4)
  w.uint(type, 4)
  w.bytes(Buffer.from(`${name}\0`))
  w.pad(4)
  w.bytes(desc)
  w.pad(4)
  return w.buffer()
}

function symbols(bits: 32 | 64, le: boolean, list: SymbolSpec[]): { symtab: Buffer; strtab: Buffer } {
  const strings = [0]
  const w = new Writer(bits, le)
  w.bytes(Buffer.alloc(bits === 32 ? 16 : 24)) // the null symbol
  for (const s of list) {
    const nameOffset = strings.length
    strings.push(...Buffer.from(s.name), 0)
    const shndx = s.shndx ?? 1
    if (bits === 32) {
      w.uint(nameOffset, 4)
      w.uint(s.value, 4)
      w.uint(s.size, 4)
      w.bytes([s.info, 0])
      w.uint(shndx, 2)
    } else {
      w.uint(nameOffset, 4)
      w.bytes([s.info, 0])
      w.uint(shndx, 2)
      w.uint(s.value, 8)
      w.uint(s.size, 8)
    }
  }
  return { symtab: w.buffer(), strtab: Buffer.from(strings) }
}

/** An ELF object: header, one PT_LOAD (and a PT_NOTE over `notes`), the sections, section headers. */
function writeElf(options: { bits: 32 | 64; le: boolean; machine: number; loadVaddr?: number; sections: SectionSpec[]; withSectionHeaders?: boolean }): Buffer {
  const { bits, le } = options
  const w = new Writer(bits, le)
  const ehsize = bits === 32 ? 52 : 64
  const phentsize = bits === 32 ? 32 : 56
  const shentsize = bits === 32 ? 40 : 64
  const all: SectionSpec[] = [{ name: '', type: 0, data: Buffer.alloc(0) }, ...options.sections]
  const shstrtab = [0]
  const nameOffsets = all.map((s) => {
    if (!s.name) return 0
    const at = shstrtab.length
    shstrtab.push(...Buffer.from(s.name), 0)
    return at
  })
  const shstrName = shstrtab.length
  shstrtab.push(...Buffer.from('.shstrtab'), 0)
  all.push({ name: '.shstrtab', type: 3, data: Buffer.from(shstrtab) })
  nameOffsets.push(shstrName)
  // Layout: header, 2 program headers, section data, section headers.
  let offset = ehsize + 2 * phentsize
  const offsets = all.map((s) => {
    offset = Math.ceil(offset / 8) * 8
    const at = offset
    offset += s.data.length
    return at
  })
  const shoff = Math.ceil(offset / 8) * 8
  const notes = all.findIndex((s) => s.type === 7)
  const withHeaders = options.withSectionHeaders ?? true

  w.bytes([0x7f, 0x45, 0x4c, 0x46, bits === 32 ? 1 : 2, le ? 1 : 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0])
  w.uint(3, 2) // ET_DYN
  w.uint(options.machine, 2)
  w.uint(1, 4)
  w.word(0) // entry
  w.word(ehsize) // phoff
  w.word(withHeaders ? shoff : 0)
  w.uint(0, 4) // flags
  w.uint(ehsize, 2)
  w.uint(phentsize, 2)
  w.uint(2, 2)
  w.uint(shentsize, 2)
  w.uint(withHeaders ? all.length : 0, 2)
  w.uint(withHeaders ? all.length - 1 : 0, 2)
  const segment = (type: number, fileOffset: number, vaddr: number, size: number) => {
    if (bits === 32) {
      for (const v of [type, fileOffset, vaddr, vaddr, size, size, 5, 4]) w.uint(v, 4)
    } else {
      w.uint(type, 4)
      w.uint(5, 4)
      for (const v of [fileOffset, vaddr, vaddr, size, size, 4]) w.uint(v, 8)
    }
  }
  segment(1, 0, options.loadVaddr ?? 0, shoff)
  segment(notes >= 0 ? 4 : 6, notes >= 0 ? offsets[notes]! : 0, 0, notes >= 0 ? all[notes]!.data.length : 0)
  all.forEach((s, i) => {
    while (w.length < offsets[i]!) w.bytes([0])
    w.bytes(s.data)
  })
  while (w.length < shoff) w.bytes([0])
  all.forEach((s, i) => {
    const link = s.link ? all.findIndex((t) => t.name === s.link) : 0
    const entsize = s.type === 2 || s.type === 11 ? (bits === 32 ? 16 : 24) : 0
    w.uint(nameOffsets[i]!, 4)
    w.uint(s.type, 4)
    w.word(s.flags ?? 0)
    w.word(s.address ?? 0)
    w.word(i === 0 ? 0 : offsets[i]!)
    w.word(s.data.length)
    w.uint(link, 4)
    w.uint(0, 4)
    w.word(s.align ?? 1)
    w.word(entsize)
  })
  return w.buffer()
}

const STT_FUNC = 2
const STT_NOTYPE = 0
const GLOBAL = 1 << 4
const WEAK = 2 << 4
const LOCAL = 0

function objectWith(bits: 32 | 64, le: boolean, machine: number, list: SymbolSpec[], buildId = 'b060ad20c6b47781552708aa192e7739fac7c84a', loadVaddr = 0): Buffer {
  const { symtab, strtab } = symbols(bits, le, list)
  return writeElf({
    bits,
    le,
    machine,
    loadVaddr,
    sections: [
      { name: '.text', type: 8, flags: 6, address: loadVaddr + 0x1000, data: Buffer.alloc(0) },
      { name: '.note.gnu.build-id', type: 7, data: note(bits, le, 'GNU', 3, Buffer.from(buildId, 'hex')), align: 4 },
      { name: '.symtab', type: 2, data: symtab, link: '.strtab' },
      { name: '.strtab', type: 3, data: strtab },
    ],
  })
}

describe('ElfObject', () => {
  it('ELF32 ARM: clears the Thumb bit, skips mapping symbols and imports, folds aliases preferring global unsuffixed names', () => {
    const elf = objectWith(32, true, 40, [
      { name: 'thumb_fn', value: 0x1001, size: 8, info: GLOBAL | STT_FUNC },
      { name: '$t', value: 0x1000, size: 0, info: LOCAL | STT_NOTYPE },
      { name: '$d.1', value: 0x1008, size: 0, info: LOCAL | STT_FUNC },
      { name: 'imported', value: 0, size: 0, info: GLOBAL | STT_FUNC, shndx: 0 },
      { name: 'foo.localalias', value: 0x2000, size: 16, info: LOCAL | STT_FUNC },
      { name: 'foo', value: 0x2000, size: 16, info: GLOBAL | STT_FUNC },
      { name: 'weak_b', value: 0x3000, size: 0, info: WEAK | STT_FUNC },
      { name: 'icf_a', value: 0x3000, size: 12, info: WEAK | STT_FUNC },
      { name: 'data', value: 0x4000, size: 4, info: GLOBAL | 1 },
    ])
    const sink = new RecordingSink()
    const info = readElfSymbols(elf, sink, { moduleName: 'libsynthetic.so' })
    expect(info).toEqual({
      debugId: '20AD60B0B4C68177552708AA192E77390', // SYMBOLICATION.md's worked example
      codeId: 'b060ad20c6b47781552708aa192e7739fac7c84a',
      os: 'linux',
      arch: 'arm',
      moduleName: 'libsynthetic.so',
      hasLineInfo: false,
      hasSymbols: true,
      symbolsFrom: 'symtab',
    })
    expect(sink.functions).toEqual([
      { address: 0x1000, size: 8, name: 'thumb_fn', folded: false },
      { address: 0x2000, size: 16, name: 'foo', folded: false },
      { address: 0x3000, size: 12, name: 'icf_a', folded: true },
    ])
  })

  it('big-endian ELF32 (MIPS) with its first PT_LOAD at 0x400000: addresses are module-relative', () => {
    const elf = objectWith(32, false, 8, [{ name: 'main', value: 0x401230, size: 0x40, info: GLOBAL | STT_FUNC }], '0011223344556677', 0x400000)
    const sink = new RecordingSink()
    const info = readElfSymbols(elf, sink)
    expect(info).toMatchObject({ arch: 'mips', codeId: '0011223344556677', debugId: '332211005544776600000000000000000' })
    expect(sink.functions).toEqual([{ address: 0x1230, size: 0x40, name: 'main', folded: false }])
    expect(new ElfObject(elf).firstLoadVaddr).toBe(0x400000)
  })

  it('big-endian ELF64 (PowerPC 64) and little-endian ELF64 with the build id only in PT_NOTE', () => {
    const ppc = objectWith(64, false, 21, [{ name: '.func_desc_entry', value: 0x10, size: 4, info: GLOBAL | STT_FUNC }])
    expect(readElfSymbols(ppc, new RecordingSink())).toMatchObject({ arch: 'ppc64', codeId: 'b060ad20c6b47781552708aa192e7739fac7c84a' })
    const noSections = writeElf({ bits: 64, le: true, machine: 183, withSectionHeaders: false, sections: [{ name: '.note', type: 7, data: note(64, true, 'GNU', 3, Buffer.from('aabbccdd', 'hex')) }] })
    expect(readElfSymbols(noSections, new RecordingSink())).toMatchObject({ arch: 'arm64', codeId: 'aabbccdd', hasSymbols: false, symbolsFrom: null })
  })

  it('throws ElfError for headers that point outside the file', () => {
    const elf = objectWith(64, true, 62, [{ name: 'f', value: 0x1000, size: 1, info: GLOBAL | STT_FUNC }])
    const symtabAt = new ElfObject(elf).sections.find((s) => s.name === '.symtab')!
    const copy = Buffer.from(elf)
    // The .symtab header's sh_size (section headers start at e_shoff) → far past the end.
    const shoff = Number(copy.readBigUInt64LE(0x28))
    copy.writeBigUInt64LE(1n << 40n, shoff + symtabAt.index * 64 + 32)
    expect(() => readElfSymbols(copy, new RecordingSink())).toThrow(new ElfError('truncated ELF: section .symtab is past the end of the file'))
    const shortHeaders = Buffer.from(elf)
    shortHeaders.writeUInt16LE(8, 0x3a) // e_shentsize
    expect(() => new ElfObject(shortHeaders)).toThrow('not a valid ELF file (section header size 8)')
    const badClass = Buffer.from(elf)
    badClass[4] = 7
    expect(() => new ElfObject(badClass)).toThrow('not a valid ELF file (unknown class 7)')
  })
})
