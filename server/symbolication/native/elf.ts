// A bounds-checked reader of ELF objects (32- and 64-bit, little- and big-endian): the header,
// program and section headers, notes (the GNU build id), the dynamic section's DT_SONAME, and
// function symbols from .symtab or .dynsym. Sections may be zlib-compressed (SHF_COMPRESSED, or
// the legacy .zdebug_* form). Code bytes are never read, so debug-only extracts (`objcopy
// --only-keep-debug`, NOBITS .text) read like the full object. Every offset and size comes from
// an untrusted upload: each is checked before it is used, and a problem throws an ElfError whose
// message a user understands (so-file.ts puts "soFile: " in front).
import { inflateSync } from 'node:zlib'
import type { NativeArch } from './native-symbols.ts'

export class ElfError extends Error {
  override name = 'ElfError'
}

const PT_LOAD = 1
const PT_DYNAMIC = 2
const PT_NOTE = 4
const SHT_SYMTAB = 2
const SHT_NOTE = 7
const SHT_NOBITS = 8
const SHT_DYNAMIC = 6
const SHT_DYNSYM = 11
const SHF_COMPRESSED = 0x800
const ELFCOMPRESS_ZLIB = 1
const ELFCOMPRESS_ZSTD = 2
const STT_FUNC = 2
const STT_GNU_IFUNC = 10
const STB_LOCAL = 0
const STB_GLOBAL = 1
const STB_WEAK = 2
const NT_GNU_BUILD_ID = 3
const DT_NULL = 0
const DT_SONAME = 14
const EM_ARM = 40

/** e_machine → architecture. */
const MACHINES: Record<number, NativeArch> = {
  3: 'x86', // EM_386
  62: 'x86_64', // EM_X86_64
  40: 'arm', // EM_ARM
  183: 'arm64', // EM_AARCH64
  20: 'ppc', // EM_PPC
  21: 'ppc64', // EM_PPC64
}
const EM_MIPS = 8

export interface ElfSection {
  index: number
  name: string
  type: number
  flags: number
  /** Virtual address where the section loads (0 for debug sections). */
  address: number
  offset: number
  size: number
  link: number
  entrySize: number
  addressAlign: number
}

export interface ElfSegment {
  type: number
  offset: number
  vaddr: number
  fileSize: number
  align: number
}

/** A function symbol, its address module-relative (minus the first PT_LOAD's vaddr), the Thumb bit cleared on ARM. */
export interface ElfFunction {
  address: number
  size: number
  name: string
  /** Other names at the same address were folded into this one (several distinct functions share the code). */
  folded: boolean
}

export interface ElfReadOptions {
  /** The most bytes one compressed section may unpack to (default 1 GiB). */
  maxSectionBytes?: number
}

function hex(bytes: Buffer): string {
  return bytes.toString('hex')
}

/** An ELF object in a Buffer. The constructor reads and checks the headers; sections are read on demand. */
export class ElfObject {
  readonly bits: 32 | 64
  readonly littleEndian: boolean
  /** ET_DYN (3) for shared objects, ET_EXEC (2) for executables. */
  readonly type: number
  readonly machine: number
  readonly arch: NativeArch
  readonly segments: readonly ElfSegment[]
  readonly sections: readonly ElfSection[]
  /** p_vaddr of the first PT_LOAD segment (0 for a normal .so), which module-relative addresses are relative to (as dump_syms). */
  readonly firstLoadVaddr: number
  /** The lowest address of executable (SHF_EXECINSTR) sections, null without section headers. */
  readonly codeStart: number | null
  private readonly maxSectionBytes: number

  constructor(
    private readonly buf: Buffer,
    options: ElfReadOptions = {},
  ) {
    this.maxSectionBytes = options.maxSectionBytes ?? 1024 ** 3
    if (buf.length < 16 || buf.readUInt32BE(0) !== 0x7f454c46) throw new ElfError('not an ELF file')
    const elfClass = buf[4]
    const data = buf[5]
    if (elfClass !== 1 && elfClass !== 2) throw new ElfError(`not a valid ELF file (unknown class ${elfClass})`)
    if (data !== 1 && data !== 2) throw new ElfError(`not a valid ELF file (unknown byte order ${data})`)
    this.bits = elfClass === 1 ? 32 : 64
    this.littleEndian = data === 1
    const headerSize = this.bits === 32 ? 52 : 64
    if (buf.length < headerSize) throw new ElfError('truncated ELF: the file ends inside the ELF header')
    this.type = this.u16(16)
    if (this.type === 1) throw new ElfError('a relocatable object file (.o), not a linked shared object; upload the linked .so')
    if (this.type === 4) throw new ElfError('a core dump, not a shared object')
    if (this.type !== 2 && this.type !== 3) throw new ElfError(`not a shared object or executable (ELF type ${this.type})`)
    this.machine = this.u16(18)
    this.arch = this.machine === EM_MIPS ? (this.bits === 64 ? 'mips64' : 'mips') : (MACHINES[this.machine] ?? 'unknown')
    const w = this.bits === 32 ? 4 : 8
    const phoff = this.word(w === 4 ? 28 : 32)
    const shoff = this.word(w === 4 ? 32 : 40)
    const at = w === 4 ? 42 : 54
    const phentsize = this.u16(at)
    let phnum = this.u16(at + 2)
    const shentsize = this.u16(at + 4)
    let shnum = this.u16(at + 6)
    let shstrndx = this.u16(at + 8)

    // Section headers first: extended numbering keeps e_phnum, e_shnum and e_shstrndx in section 0.
    const sectionHeaders: Omit<ElfSection, 'name'>[] = []
    let nameOffsets: number[] = []
    if (shoff !== 0) {
      const minEntry = w === 4 ? 40 : 64
      if (shentsize < minEntry) throw new ElfError(`not a valid ELF file (section header size ${shentsize})`)
      if (shoff + minEntry > buf.length) throw new ElfError('truncated ELF: section header table past the end of the file')
      if (shnum === 0) shnum = this.word(shoff + (w === 4 ? 20 : 32))
      if (shstrndx === 0xffff) shstrndx = this.u32(shoff + (w === 4 ? 24 : 40))
      if (phnum === 0xffff) phnum = this.u32(shoff + (w === 4 ? 28 : 44))
      if (shoff + shnum * shentsize > buf.length) throw new ElfError('truncated ELF: section header table past the end of the file')
      nameOffsets = []
      for (let i = 0; i < shnum; i++) {
        const h = shoff + i * shentsize
        nameOffsets.push(this.u32(h))
        sectionHeaders.push(
          w === 4
            ? { index: i, type: this.u32(h + 4), flags: this.u32(h + 8), address: this.u32(h + 12), offset: this.u32(h + 16), size: this.u32(h + 20), link: this.u32(h + 24), addressAlign: this.u32(h + 32), entrySize: this.u32(h + 36) }
            : { index: i, type: this.u32(h + 4), flags: this.word(h + 8), address: this.word(h + 16), offset: this.word(h + 24), size: this.word(h + 32), link: this.u32(h + 40), addressAlign: this.word(h + 48), entrySize: this.word(h + 56) },
        )
      }
    }
    let names: Buffer | null = null
    const strtab = shstrndx < sectionHeaders.length ? sectionHeaders[shstrndx] : undefined
    if (strtab && strtab.type !== SHT_NOBITS) names = this.slice(strtab.offset, strtab.size, 'the section name table')
    this.sections = sectionHeaders.map((s, i) => ({ ...s, name: names ? cString(names, nameOffsets[i]!) : '' }))

    const segments: ElfSegment[] = []
    if (phoff !== 0 && phnum > 0) {
      const minEntry = w === 4 ? 32 : 56
      if (phentsize < minEntry) throw new ElfError(`not a valid ELF file (program header size ${phentsize})`)
      if (phoff + phnum * phentsize > buf.length) throw new ElfError('truncated ELF: program header table past the end of the file')
      for (let i = 0; i < phnum; i++) {
        const h = phoff + i * phentsize
        segments.push(
          w === 4
            ? { type: this.u32(h), offset: this.u32(h + 4), vaddr: this.u32(h + 8), fileSize: this.u32(h + 16), align: this.u32(h + 28) }
            : { type: this.u32(h), offset: this.word(h + 8), vaddr: this.word(h + 16), fileSize: this.word(h + 32), align: this.word(h + 48) },
        )
      }
    }
    this.segments = segments
    this.firstLoadVaddr = segments.find((s) => s.type === PT_LOAD)?.vaddr ?? 0
    let codeStart: number | null = null
    for (const s of this.sections) if (s.flags & 4 && s.size > 0 && (codeStart === null || s.address < codeStart)) codeStart = s.address
    this.codeStart = codeStart
  }

  /** The first section of that name; `.debug_x` also finds a legacy `.zdebug_x`. */
  section(name: string): ElfSection | undefined {
    return this.sections.find((s) => s.name === name) ?? (name.startsWith('.debug_') ? this.sections.find((s) => s.name === `.z${name.slice(1)}`) : undefined)
  }

  /** A section's bytes, unpacked if compressed; null for NOBITS (stripped into a debug extract) and empty sections. */
  sectionData(section: ElfSection): Buffer | null {
    if (section.type === SHT_NOBITS || section.size === 0) return null
    const raw = this.slice(section.offset, section.size, `section ${section.name || section.index}`)
    if (section.flags & SHF_COMPRESSED) return this.inflateElfSection(section, raw)
    if (section.name.startsWith('.zdebug_')) {
      if (raw.length < 12 || raw.toString('latin1', 0, 4) !== 'ZLIB') throw new ElfError(`section ${section.name} is not zlib-compressed as its name says`)
      const size = raw.readUInt32BE(4) * 2 ** 32 + raw.readUInt32BE(8)
      return this.inflate(section.name, raw.subarray(12), size)
    }
    return raw
  }

  /** The GNU build id, lower-case hex: from a note section, else from PT_NOTE segments (section headers stripped). */
  buildId(): string | null {
    for (const s of this.sections) {
      if (s.type !== SHT_NOTE || s.size === 0) continue
      const id = this.findBuildId(this.slice(s.offset, s.size, `section ${s.name}`), s.addressAlign)
      if (id) return id
    }
    for (const p of this.segments) {
      if (p.type !== PT_NOTE || p.fileSize === 0) continue
      const id = this.findBuildId(this.slice(p.offset, p.fileSize, 'a PT_NOTE segment'), p.align)
      if (id) return id
    }
    return null
  }

  /** The names of every note, e.g. "GNU", "Android" (NDK builds carry .note.android.ident). */
  noteNames(): string[] {
    const out: string[] = []
    for (const s of this.sections) if (s.type === SHT_NOTE && s.size > 0) for (const note of this.notes(this.slice(s.offset, s.size, `section ${s.name}`), s.addressAlign)) out.push(note.name)
    return out
  }

  /** DT_SONAME from the dynamic section (absent from debug-only extracts, where .dynamic is NOBITS). */
  soname(): string | null {
    const dynamic = this.sections.find((s) => s.type === SHT_DYNAMIC)
    if (!dynamic) return null
    const data = this.sectionData(dynamic)
    const strings = this.sections[dynamic.link]
    if (!data || !strings) return null
    const stringData = this.sectionData(strings)
    if (!stringData) return null
    const entry = this.bits === 32 ? 8 : 16
    for (let at = 0; at + entry <= data.length; at += entry) {
      const tag = this.bits === 32 ? readU32(data, at, this.littleEndian) : readWord64(data, at, this.littleEndian)
      if (tag === DT_NULL) break
      if (tag === DT_SONAME) {
        const value = this.bits === 32 ? readU32(data, at + 4, this.littleEndian) : readWord64(data, at + 8, this.littleEndian)
        const name = value < stringData.length ? cString(stringData, value) : ''
        return name || null
      }
    }
    return null
  }

  /** Whether the object has a PT_DYNAMIC segment (a dynamically linked object). */
  get isDynamic(): boolean {
    return this.segments.some((s) => s.type === PT_DYNAMIC)
  }

  /**
   * Function symbols (STT_FUNC, STT_GNU_IFUNC) defined in the object, from .symtab when it has
   * any, else from .dynsym (a stripped object: exported names only). One per address: several
   * symbols at one address (aliases, identical code folding) become the best name — STB_GLOBAL
   * before STB_WEAK before STB_LOCAL, a name without a `.suffix` (`.localalias`, `.part.0`)
   * first — marked `folded` when their names differ otherwise. Sorted by address.
   */
  functions(): { from: 'symtab' | 'dynsym' | null; functions: ElfFunction[] } {
    for (const type of [SHT_SYMTAB, SHT_DYNSYM]) {
      const functions: (ElfFunction & { binding: number })[] = []
      for (const table of this.sections) {
        if (table.type !== type) continue
        functions.push(...this.readSymbolTable(table))
      }
      if (functions.length > 0) return { from: type === SHT_SYMTAB ? 'symtab' : 'dynsym', functions: foldAliases(functions) }
    }
    return { from: null, functions: [] }
  }

  private readSymbolTable(table: ElfSection): (ElfFunction & { binding: number })[] {
    const data = this.sectionData(table)
    const strings = this.sections[table.link]
    if (!data) return []
    const names = strings ? this.sectionData(strings) : null
    if (!names) return []
    const entry = this.bits === 32 ? 16 : 24
    const le = this.littleEndian
    const thumb = this.machine === EM_ARM
    const out: (ElfFunction & { binding: number })[] = []
    for (let at = 0; at + entry <= data.length; at += entry) {
      const info = data[this.bits === 32 ? at + 12 : at + 4]!
      const kind = info & 0xf
      if (kind !== STT_FUNC && kind !== STT_GNU_IFUNC) continue
      const shndx = this.bits === 32 ? readU16(data, at + 14, le) : readU16(data, at + 6, le)
      if (shndx === 0 || shndx >= 0xff00) continue // undefined (an import), absolute or common
      const nameOffset = readU32(data, at, le)
      if (nameOffset >= names.length) continue
      const name = cString(names, nameOffset)
      if (!name || isArmMappingSymbol(name)) continue
      let value = this.bits === 32 ? readU32(data, at + 4, le) : readWord64(data, at + 8, le)
      const size = this.bits === 32 ? readU32(data, at + 8, le) : readWord64(data, at + 16, le)
      if (thumb) value -= value % 2
      const address = value - this.firstLoadVaddr
      if (address < 0 || !Number.isSafeInteger(address) || !Number.isSafeInteger(size)) continue
      out.push({ address, size, name, folded: false, binding: info >> 4 })
    }
    return out
  }

  private notes(data: Buffer, align: number): { name: string; type: number; desc: Buffer }[] {
    const pad = align === 8 ? 8 : 4
    const out: { name: string; type: number; desc: Buffer }[] = []
    let at = 0
    while (at + 12 <= data.length) {
      const nameSize = readU32(data, at, this.littleEndian)
      const descSize = readU32(data, at + 4, this.littleEndian)
      const type = readU32(data, at + 8, this.littleEndian)
      const nameAt = at + 12
      const descAt = nameAt + roundUp(nameSize, pad)
      const end = descAt + roundUp(descSize, pad)
      if (descAt + descSize > data.length || nameAt + nameSize > data.length) break
      out.push({ name: cString(data.subarray(nameAt, nameAt + nameSize), 0), type, desc: data.subarray(descAt, descAt + descSize) })
      at = end
    }
    return out
  }

  private findBuildId(data: Buffer, align: number): string | null {
    const note = this.notes(data, align).find((n) => n.type === NT_GNU_BUILD_ID && n.name === 'GNU' && n.desc.length > 0)
    return note ? hex(note.desc) : null
  }

  private inflateElfSection(section: ElfSection, raw: Buffer): Buffer {
    const headerSize = this.bits === 32 ? 12 : 24
    if (raw.length < headerSize) throw new ElfError(`truncated ELF: compressed section ${section.name} has no compression header`)
    const type = readU32(raw, 0, this.littleEndian)
    const size = this.bits === 32 ? readU32(raw, 4, this.littleEndian) : readWord64(raw, 8, this.littleEndian)
    if (type === ELFCOMPRESS_ZSTD) throw new ElfError('compressed with zstd, which is not supported; use zlib (objcopy --compress-debug-sections=zlib) or none')
    if (type !== ELFCOMPRESS_ZLIB) throw new ElfError(`section ${section.name} is compressed in an unknown way (type ${type}); use zlib (objcopy --compress-debug-sections=zlib) or none`)
    return this.inflate(section.name, raw.subarray(headerSize), size)
  }

  private inflate(name: string, data: Buffer, size: number): Buffer {
    if (size > this.maxSectionBytes) throw new ElfError(`section ${name} unpacks to ${size} bytes, more than the ${this.maxSectionBytes} allowed`)
    if (size === 0) return Buffer.alloc(0)
    let out: Buffer
    try {
      out = inflateSync(data, { maxOutputLength: size })
    } catch (err) {
      throw new ElfError(`section ${name} is damaged: it does not unpack (${(err as Error).message})`)
    }
    if (out.length !== size) throw new ElfError(`section ${name} is damaged: it unpacks to ${out.length} bytes, not the ${size} its header says`)
    return out
  }

  private slice(offset: number, size: number, what: string): Buffer {
    if (offset > this.buf.length || size > this.buf.length - offset) throw new ElfError(`truncated ELF: ${what} is past the end of the file`)
    return this.buf.subarray(offset, offset + size)
  }

  private u16(at: number): number {
    return readU16(this.buf, at, this.littleEndian)
  }

  private u32(at: number): number {
    if (at + 4 > this.buf.length) throw new ElfError('truncated ELF: a header is past the end of the file')
    return readU32(this.buf, at, this.littleEndian)
  }

  /** An address or offset: 32 bits in ELF32, 64 in ELF64 (exact below 2^53, which every size that fits a Buffer is). */
  private word(at: number): number {
    if (at + (this.bits === 32 ? 4 : 8) > this.buf.length) throw new ElfError('truncated ELF: a header is past the end of the file')
    return this.bits === 32 ? readU32(this.buf, at, this.littleEndian) : readWord64(this.buf, at, this.littleEndian)
  }
}

function readU16(buf: Buffer, at: number, le: boolean): number {
  if (at + 2 > buf.length) throw new ElfError('truncated ELF: a header is past the end of the file')
  return le ? buf.readUInt16LE(at) : buf.readUInt16BE(at)
}

function readU32(buf: Buffer, at: number, le: boolean): number {
  return le ? buf.readUInt32LE(at) : buf.readUInt32BE(at)
}

/** A 64-bit value as a number: exact below 2^53, approximate above (then never a valid offset). */
function readWord64(buf: Buffer, at: number, le: boolean): number {
  return le ? buf.readUInt32LE(at + 4) * 2 ** 32 + buf.readUInt32LE(at) : buf.readUInt32BE(at) * 2 ** 32 + buf.readUInt32BE(at + 4)
}

function roundUp(value: number, to: number): number {
  return Math.ceil(value / to) * to
}

/** The NUL-terminated string at `offset` (to the end of `buf` if unterminated). */
export function cString(buf: Buffer, offset: number): string {
  if (offset >= buf.length) return ''
  let end = buf.indexOf(0, offset)
  if (end < 0) end = buf.length
  return buf.toString('utf8', offset, end)
}

/** ARM and AArch64 mapping symbols ($a, $t, $d, $x, optionally `.suffix`): they mark code kinds, not functions. */
function isArmMappingSymbol(name: string): boolean {
  return name.length >= 2 && name[0] === '$' && 'atdx'.includes(name[1]!) && (name.length === 2 || name[2] === '.')
}

function bindingRank(binding: number): number {
  return binding === STB_GLOBAL ? 0 : binding === STB_WEAK ? 1 : binding === STB_LOCAL ? 2 : 3
}

/** The name without a compiler's `.suffix` (`.localalias`, `.part.0`, `.cold`, `.isra.0`). */
function baseName(name: string): string {
  const dot = name.indexOf('.', 1)
  return dot < 0 ? name : name.slice(0, dot)
}

function foldAliases(symbols: (ElfFunction & { binding: number })[]): ElfFunction[] {
  symbols.sort((a, b) => a.address - b.address)
  const out: ElfFunction[] = []
  for (let i = 0; i < symbols.length; ) {
    let j = i + 1
    while (j < symbols.length && symbols[j]!.address === symbols[i]!.address) j++
    let best = symbols[i]!
    let size = best.size
    const bases = new Set<string>()
    for (let k = i; k < j; k++) {
      const s = symbols[k]!
      bases.add(baseName(s.name))
      size = Math.max(size, s.size)
      const rank = bindingRank(s.binding) - bindingRank(best.binding)
      const suffixed = Number(s.name.includes('.', 1)) - Number(best.name.includes('.', 1))
      if (rank < 0 || (rank === 0 && (suffixed < 0 || (suffixed === 0 && s.name < best.name)))) best = s
    }
    out.push({ address: best.address, size: best.size || size, name: best.name, folded: bases.size > 1 })
    i = j
  }
  return out
}
