// The DWARF line-number program decoder (`.debug_line`, DWARF versions 2 to 5, 32- and 64-bit
// DWARF), and a small reader of each compile unit's DW_AT_comp_dir from `.debug_info`, which
// relative file names are joined with (as llvm-symbolizer and dump_syms do).
//
// The decoder turns each line table into address ranges: a row covers the addresses up to the
// next row of its sequence, the last of several rows at one address wins (as llvm-symbolizer's
// lookup), and rows at a lower address than the one before are dropped. Sequences the linker
// discarded (--gc-sections) but left in the table are dropped whole: one starting at 0 when the
// object's code does not start at 0 (GNU ld), or at a tombstone ≥ 0xfffffffe (lld writes -1/-2).
//
// The input is untrusted: every read is bounds-checked and a malformed table throws a
// DwarfError. Every opcode consumes at least one byte, so decoding ends within the section's
// size in steps.

export class DwarfError extends Error {
  override name = 'DwarfError'
}

/** Sections the decoder reads strings from. */
export interface DwarfStrings {
  /** `.debug_line_str` (DW_FORM_line_strp, DWARF 5). */
  lineStr?: Buffer | null
  /** `.debug_str` (DW_FORM_strp). */
  str?: Buffer | null
}

export interface LineTableOptions extends DwarfStrings {
  littleEndian: boolean
  /** The lowest address of the object's code: a sequence starting at 0 below it is a discarded function's. Null: unknown (keep sequences at 0). */
  codeStart: number | null
  /** Compilation directory of the unit whose line table starts at that `.debug_line` offset (compDirsByLineOffset). */
  compDirs?: ReadonlyMap<number, string>
}

/** What the decoder reports, per line table (one per compile unit). */
export interface LineRangeSink {
  /** A new table starts: `files[n]` is DWARF file number n, joined with its directory (undefined: not in the table). */
  table(files: ReadonlyArray<string | undefined>): void
  /** Addresses [address, address + size) come from `line` (0: no source line) of file number `file` of the current table. */
  range(address: number, size: number, line: number, file: number): void
}

const DW_FORM_block2 = 0x03
const DW_FORM_block4 = 0x04
const DW_FORM_data2 = 0x05
const DW_FORM_data4 = 0x06
const DW_FORM_data8 = 0x07
const DW_FORM_string = 0x08
const DW_FORM_block = 0x09
const DW_FORM_block1 = 0x0a
const DW_FORM_data1 = 0x0b
const DW_FORM_sdata = 0x0d
const DW_FORM_strp = 0x0e
const DW_FORM_udata = 0x0f
const DW_FORM_data16 = 0x1e
const DW_FORM_line_strp = 0x1f
const DW_LNCT_path = 1
const DW_LNCT_directory_index = 2

/** A bounds-checked cursor over a section. */
class Cursor {
  constructor(
    readonly buf: Buffer,
    public at: number,
    readonly end: number,
    readonly le: boolean,
  ) {}

  private need(n: number, what: string): number {
    const at = this.at
    if (n > this.end - at) throw new DwarfError(`truncated DWARF: ${what} runs past the end of its unit`)
    this.at = at + n
    return at
  }

  u8(what = 'a value'): number {
    return this.buf[this.need(1, what)]!
  }

  u16(what = 'a value'): number {
    const at = this.need(2, what)
    return this.le ? this.buf.readUInt16LE(at) : this.buf.readUInt16BE(at)
  }

  u32(what = 'a value'): number {
    const at = this.need(4, what)
    return this.le ? this.buf.readUInt32LE(at) : this.buf.readUInt32BE(at)
  }

  /** 64 bits as a number (exact below 2^53; above, only ever compared against limits). */
  u64(what = 'a value'): number {
    const at = this.need(8, what)
    return this.le ? this.buf.readUInt32LE(at + 4) * 2 ** 32 + this.buf.readUInt32LE(at) : this.buf.readUInt32BE(at) * 2 ** 32 + this.buf.readUInt32BE(at + 4)
  }

  /** An unsigned value of 1, 2, 4 or 8 bytes. */
  uN(size: number, what: string): number {
    if (size === 1) return this.u8(what)
    if (size === 2) return this.u16(what)
    if (size === 4) return this.u32(what)
    if (size === 8) return this.u64(what)
    throw new DwarfError(`malformed DWARF: ${what} has an unsupported size of ${size} bytes`)
  }

  skip(n: number, what: string): void {
    this.need(n, what)
  }

  /** ULEB128, as a number: digits past 2^53 saturate (such values are only compared against limits). */
  uleb(what = 'a number'): number {
    let result = 0
    let scale = 1
    for (;;) {
      const byte = this.u8(what)
      if (scale < 2 ** 64) result += (byte & 0x7f) * scale
      scale *= 128
      if ((byte & 0x80) === 0) return result
    }
  }

  sleb(what = 'a number'): number {
    let result = 0
    let scale = 1
    for (;;) {
      const byte = this.u8(what)
      if (scale < 2 ** 64) result += (byte & 0x7f) * scale
      scale *= 128
      if ((byte & 0x80) === 0) return byte & 0x40 && scale <= 2 ** 64 ? result - scale : result
    }
  }

  cstring(what: string): string {
    const nul = this.buf.indexOf(0, this.at)
    if (nul < 0 || nul >= this.end) throw new DwarfError(`truncated DWARF: ${what} has no end`)
    const text = this.buf.toString('utf8', this.at, nul)
    this.at = nul + 1
    return text
  }
}

function stringAt(section: Buffer | null | undefined, offset: number, what: string): string {
  if (!section || offset >= section.length) throw new DwarfError(`malformed DWARF: ${what} points past the end of its string section`)
  const nul = section.indexOf(0, offset)
  return section.toString('utf8', offset, nul < 0 ? section.length : nul)
}

function isAbsolute(path: string): boolean {
  return path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:[\\/]/.test(path)
}

/** `dir/name`, unless `name` is absolute or `dir` empty. No normalisation: the path reads as the compiler wrote it. */
export function joinPath(dir: string | undefined, name: string): string {
  if (!dir || isAbsolute(name)) return name
  return dir.endsWith('/') || dir.endsWith('\\') ? dir + name : `${dir}/${name}`
}

interface Header {
  version: number
  offsetSize: 4 | 8
  end: number
  programStart: number
  minInstLength: number
  maxOpsPerInst: number
  defaultIsStmt: boolean
  lineBase: number
  lineRange: number
  opcodeBase: number
  standardLengths: number[]
  files: (string | undefined)[]
}

/** Reads one form of a v5 entry: a string, a number, or skipped data (null). */
function readForm(c: Cursor, form: number, offsetSize: 4 | 8, strings: DwarfStrings): string | number | null {
  switch (form) {
    case DW_FORM_string:
      return c.cstring('a file name')
    case DW_FORM_line_strp:
      return stringAt(strings.lineStr, c.uN(offsetSize, 'a string offset'), 'a DW_FORM_line_strp')
    case DW_FORM_strp:
      return stringAt(strings.str, c.uN(offsetSize, 'a string offset'), 'a DW_FORM_strp')
    case DW_FORM_udata:
      return c.uleb()
    case DW_FORM_sdata:
      return c.sleb()
    case DW_FORM_data1:
      return c.u8()
    case DW_FORM_data2:
      return c.u16()
    case DW_FORM_data4:
      return c.u32()
    case DW_FORM_data8:
      return c.u64()
    case DW_FORM_data16:
      c.skip(16, 'an MD5')
      return null
    case DW_FORM_block:
      c.skip(c.uleb(), 'a block')
      return null
    case DW_FORM_block1:
      c.skip(c.u8(), 'a block')
      return null
    case DW_FORM_block2:
      c.skip(c.u16(), 'a block')
      return null
    case DW_FORM_block4:
      c.skip(c.u32(), 'a block')
      return null
    default:
      throw new DwarfError(`unsupported DWARF: form 0x${form.toString(16)} in a line table's file list`)
  }
}

/** DWARF 5's directory or file list: a format (content type, form pairs), then entries. */
function readEntries(c: Cursor, offsetSize: 4 | 8, strings: DwarfStrings, what: string): { path: string | undefined; dir: number }[] {
  const formatCount = c.u8(what)
  const format: [number, number][] = []
  for (let i = 0; i < formatCount; i++) format.push([c.uleb(what), c.uleb(what)])
  const count = c.uleb(what)
  // Each entry takes at least a byte, unless its format is empty.
  if (count > c.end - c.at && formatCount > 0) throw new DwarfError(`truncated DWARF: the ${what} list is longer than its unit`)
  if (formatCount === 0 && count > 0) throw new DwarfError(`malformed DWARF: the ${what} list has entries but no format`)
  const out: { path: string | undefined; dir: number }[] = []
  for (let i = 0; i < count; i++) {
    let path: string | undefined
    let dir = 0
    for (const [kind, form] of format) {
      const value = readForm(c, form, offsetSize, strings)
      if (kind === DW_LNCT_path && typeof value === 'string') path = value
      else if (kind === DW_LNCT_directory_index && typeof value === 'number') dir = value
    }
    out.push({ path, dir })
  }
  return out
}

function readHeader(c: Cursor, strings: DwarfStrings, compDir: string | undefined): Header {
  let length = c.u32('a line table length')
  let offsetSize: 4 | 8 = 4
  if (length === 0xffffffff) {
    length = c.u64('a line table length')
    offsetSize = 8
  } else if (length >= 0xfffffff0) throw new DwarfError(`malformed DWARF: reserved unit length 0x${length.toString(16)}`)
  if (length > c.end - c.at) throw new DwarfError('truncated DWARF: a line table is longer than .debug_line')
  const end = c.at + length
  const unit = new Cursor(c.buf, c.at, end, c.le)
  const version = unit.u16('a line table version')
  if (version < 2 || version > 5) throw new DwarfError(`unsupported DWARF line table version ${version}`)
  if (version >= 5) {
    unit.u8('an address size')
    const segmentSelectorSize = unit.u8('a segment selector size')
    if (segmentSelectorSize !== 0) throw new DwarfError('unsupported DWARF: segmented addresses')
  }
  const headerLength = unit.uN(offsetSize, 'a line table header length')
  if (headerLength > end - unit.at) throw new DwarfError('truncated DWARF: a line table header is longer than its unit')
  const programStart = unit.at + headerLength
  const header = new Cursor(c.buf, unit.at, programStart, c.le)
  const minInstLength = header.u8('the line table header')
  const maxOpsPerInst = version >= 4 ? header.u8('the line table header') : 1
  const defaultIsStmt = header.u8('the line table header') !== 0
  const lineBaseByte = header.u8('the line table header')
  const lineBase = lineBaseByte >= 128 ? lineBaseByte - 256 : lineBaseByte
  const lineRange = header.u8('the line table header')
  const opcodeBase = header.u8('the line table header')
  if (lineRange === 0) throw new DwarfError('malformed DWARF: a line table has line_range 0')
  if (opcodeBase === 0) throw new DwarfError('malformed DWARF: a line table has opcode_base 0')
  const standardLengths = [0]
  for (let i = 1; i < opcodeBase; i++) standardLengths.push(header.u8('the standard opcode lengths'))

  const files: (string | undefined)[] = []
  if (version >= 5) {
    // Directory 0 is the compilation directory, file 0 the primary source file.
    const dirs = readEntries(header, offsetSize, strings, 'directory').map((d) => d.path)
    for (const f of readEntries(header, offsetSize, strings, 'file')) {
      if (f.path === undefined) files.push(undefined)
      else if (isAbsolute(f.path)) files.push(f.path)
      else {
        const dir = dirs[f.dir]
        files.push(joinPath(f.dir !== 0 && dir !== undefined && !isAbsolute(dir) ? joinPath(compDir, dir) : (dir ?? compDir), f.path))
      }
    }
  } else {
    const dirs: string[] = []
    for (;;) {
      const dir = header.cstring('an include directory')
      if (dir === '') break
      dirs.push(dir)
    }
    files.push(undefined) // file numbers start at 1
    for (;;) {
      const name = header.cstring('a file name')
      if (name === '') break
      const dirIndex = header.uleb('a file entry')
      header.uleb('a file entry')
      header.uleb('a file entry')
      files.push(fileName(name, dirIndex, dirs, compDir))
    }
  }
  c.at = end
  return { version, offsetSize, end, programStart, minInstLength, maxOpsPerInst, defaultIsStmt, lineBase, lineRange, opcodeBase, standardLengths, files }
}

/** A DWARF 2–4 file name joined with its include directory (1-based; 0 is the compilation directory). */
function fileName(name: string, dirIndex: number, dirs: readonly string[], compDir: string | undefined): string {
  if (isAbsolute(name)) return name
  const dir = dirIndex === 0 ? undefined : dirs[dirIndex - 1]
  if (dir !== undefined && isAbsolute(dir)) return joinPath(dir, name)
  return joinPath(compDir, dir === undefined ? name : joinPath(dir, name))
}

/** Decodes every line table of a `.debug_line` section into the sink. Throws DwarfError on a malformed table. */
export function decodeLineTables(debugLine: Buffer, options: LineTableOptions, sink: LineRangeSink): void {
  const c = new Cursor(debugLine, 0, debugLine.length, options.littleEndian)
  while (c.at < debugLine.length) {
    const tableOffset = c.at
    const header = readHeader(c, options, options.compDirs?.get(tableOffset))
    sink.table(header.files)
    runProgram(debugLine, header, options, sink)
  }
}

function runProgram(buf: Buffer, h: Header, options: LineTableOptions, sink: LineRangeSink): void {
  const c = new Cursor(buf, h.programStart, h.end, options.littleEndian)
  const tombstone = (address: number, addressSize: number) =>
    (address === 0 && options.codeStart !== null && options.codeStart > 0) || address >= (addressSize === 4 ? 0xfffffffe : 2 ** 53)
  let addressSize = 8
  // Registers.
  let address = 0
  let opIndex = 0
  let file = 1
  let line = 1
  // The sequence so far: whether it is dropped, and the row waiting for the next row's address.
  let sequenceStarted = false
  let dropped = false
  let pendingAddress = -1
  let pendingLine = 0
  let pendingFile = 0

  const reset = () => {
    address = 0
    opIndex = 0
    file = 1
    line = 1
    sequenceStarted = false
    dropped = false
    pendingAddress = -1
  }
  const row = (endSequence: boolean) => {
    if (!sequenceStarted) {
      sequenceStarted = true
      dropped = tombstone(address, addressSize)
    }
    if (dropped) return
    if (pendingAddress >= 0 && address > pendingAddress) sink.range(pendingAddress, address - pendingAddress, pendingLine, pendingFile)
    if (endSequence || address > 2 ** 53 - 1) {
      pendingAddress = -1
      return
    }
    pendingAddress = address
    pendingLine = line > 0 && line < 2 ** 32 ? line : 0
    pendingFile = file
  }
  const advance = (operationAdvance: number) => {
    if (h.maxOpsPerInst <= 1) address += h.minInstLength * operationAdvance
    else {
      // VLIW: op_index counts operations within an instruction; rows keep the instruction's address.
      const ops = opIndex + operationAdvance
      address += h.minInstLength * Math.floor(ops / h.maxOpsPerInst)
      opIndex = ops % h.maxOpsPerInst
    }
  }

  reset()
  while (c.at < h.end) {
    const opcode = c.u8('a line program')
    if (opcode >= h.opcodeBase) {
      const adjusted = opcode - h.opcodeBase
      advance(Math.floor(adjusted / h.lineRange))
      line += h.lineBase + (adjusted % h.lineRange)
      row(false)
    } else if (opcode === 0) {
      const length = c.uleb('an extended opcode')
      if (length === 0) continue
      if (length > h.end - c.at) throw new DwarfError('truncated DWARF: an extended opcode runs past the end of its line table')
      const next = c.at + length
      const sub = c.u8('an extended opcode')
      if (sub === 1) {
        row(true)
        reset()
      } else if (sub === 2) {
        addressSize = length - 1
        address = c.uN(addressSize, 'DW_LNE_set_address')
        opIndex = 0
      } else if (sub === 3 && h.version <= 4) {
        const name = c.cstring('DW_LNE_define_file')
        const dirIndex = c.uleb('DW_LNE_define_file')
        h.files.push(fileName(name, dirIndex, [], undefined))
        sink.table(h.files)
      }
      // DW_LNE_set_discriminator (4) and vendor opcodes carry nothing a lookup needs.
      c.at = next
    } else {
      switch (opcode) {
        case 1: // DW_LNS_copy
          row(false)
          break
        case 2: // DW_LNS_advance_pc
          advance(c.uleb('DW_LNS_advance_pc'))
          break
        case 3: // DW_LNS_advance_line
          line += c.sleb('DW_LNS_advance_line')
          break
        case 4: // DW_LNS_set_file
          file = c.uleb('DW_LNS_set_file')
          break
        case 8: // DW_LNS_const_add_pc
          advance(Math.floor((255 - h.opcodeBase) / h.lineRange))
          break
        case 9: // DW_LNS_fixed_advance_pc
          address += c.u16('DW_LNS_fixed_advance_pc')
          opIndex = 0
          break
        default: {
          // set_column, negate_stmt, basic_block, prologue_end, epilogue_begin, set_isa and
          // opcodes this reader does not know: skip their ULEB operands.
          const operands = h.standardLengths[opcode] ?? 0
          for (let i = 0; i < operands; i++) c.uleb('a standard opcode')
        }
      }
    }
  }
}

// ---- .debug_info: each compile unit's DW_AT_comp_dir, keyed by its DW_AT_stmt_list ----

const DW_AT_stmt_list = 0x10
const DW_AT_comp_dir = 0x1b
const DW_AT_str_offsets_base = 0x72

export interface DebugInfoSections extends DwarfStrings {
  info: Buffer
  abbrev: Buffer
  /** `.debug_str_offsets` (DW_FORM_strx*, DWARF 5). */
  strOffsets?: Buffer | null
  littleEndian: boolean
  /** The address size of the object (4 or 8), for DWARF 2's DW_FORM_ref_addr. */
  addressSize: number
}

/**
 * DW_AT_comp_dir of each compile unit, keyed by its DW_AT_stmt_list (the offset of its line
 * table). Reads only each unit's first DIE. Best effort: the names of files still read without
 * it, so a unit it cannot read is left out, and reading stops at the first malformed unit header.
 */
export function compDirsByLineOffset(s: DebugInfoSections): Map<number, string> {
  const out = new Map<number, string>()
  const c = new Cursor(s.info, 0, s.info.length, s.littleEndian)
  const abbrevs = new Map<string, [number, number, number][] | null>()
  while (c.at < s.info.length) {
    let length: number
    let offsetSize: 4 | 8 = 4
    try {
      length = c.u32()
      if (length === 0xffffffff) {
        length = c.u64()
        offsetSize = 8
      }
    } catch {
      break
    }
    if (length === 0 || length > s.info.length - c.at) break
    const end = c.at + length
    try {
      const unit = new Cursor(s.info, c.at, end, s.littleEndian)
      const version = unit.u16()
      let abbrevOffset: number
      let addressSize: number
      if (version >= 5) {
        const unitType = unit.u8()
        addressSize = unit.u8()
        abbrevOffset = unit.uN(offsetSize, 'an abbreviation offset')
        if (unitType !== 1 && unitType !== 3 && unitType !== 4) continue // type and split units name no directory
        if (unitType === 4) unit.skip(8, 'a DWO id')
      } else if (version >= 2) {
        abbrevOffset = unit.uN(offsetSize, 'an abbreviation offset')
        addressSize = unit.u8()
      } else continue
      const code = unit.uleb()
      const key = `${abbrevOffset}:${code}`
      let attributes = abbrevs.get(key)
      if (attributes === undefined) {
        attributes = readAbbrev(s.abbrev, abbrevOffset, code)
        abbrevs.set(key, attributes)
      }
      if (!attributes) continue
      let stmtList: number | null = null
      let compDir: string | { strx: number } | null = null
      let strOffsetsBase: number | null = null
      for (const [name, form, implicit] of attributes) {
        const value = readAttribute(unit, form, implicit, { version, offsetSize, addressSize, strings: s })
        if (name === DW_AT_stmt_list && typeof value === 'number') stmtList = value
        else if (name === DW_AT_comp_dir && value !== null && typeof value !== 'number') compDir = value
        else if (name === DW_AT_str_offsets_base && typeof value === 'number') strOffsetsBase = value
      }
      if (typeof compDir === 'object' && compDir !== null) {
        // strx: an index into .debug_str_offsets, from the unit's base.
        const index = compDir.strx
        const at = (strOffsetsBase ?? 8) + index * offsetSize
        if (s.strOffsets && at + offsetSize <= s.strOffsets.length) {
          const offsetCursor = new Cursor(s.strOffsets, at, s.strOffsets.length, s.littleEndian)
          compDir = stringAt(s.str, offsetCursor.uN(offsetSize, 'a string offset'), 'a DW_FORM_strx')
        } else compDir = null
      }
      if (stmtList !== null && typeof compDir === 'string' && compDir !== '') out.set(stmtList, compDir)
    } catch (err) {
      if (!(err instanceof DwarfError)) throw err
    } finally {
      c.at = end
    }
  }
  return out
}

/** The attributes of abbreviation `code` in the table at `offset` (null: not there). Reads the table up to it: gcc writes the compile unit's abbreviation last. */
function readAbbrev(abbrev: Buffer, offset: number, code: number): [number, number, number][] | null {
  if (offset >= abbrev.length) return null
  const c = new Cursor(abbrev, offset, abbrev.length, true)
  try {
    // Each entry takes bytes, so this ends with the section.
    for (;;) {
      const entryCode = c.uleb()
      if (entryCode === 0) return null
      c.uleb() // tag
      c.u8() // children
      const wanted = entryCode === code
      const attributes: [number, number, number][] = []
      for (;;) {
        const name = c.uleb()
        const form = c.uleb()
        const implicit = form === 0x21 ? c.sleb() : 0
        if (name === 0 && form === 0) break
        if (wanted) attributes.push([name, form, implicit])
      }
      if (wanted) return attributes
    }
  } catch (err) {
    if (!(err instanceof DwarfError)) throw err
    return null
  }
}

interface UnitShape {
  version: number
  offsetSize: 4 | 8
  addressSize: number
  strings: DwarfStrings
}

/** An attribute's value where a string or offset is wanted (`{ strx }` for an index to resolve later); other forms are skipped (null). */
function readAttribute(c: Cursor, form: number, implicit: number, u: UnitShape, depth = 0): string | number | { strx: number } | null {
  switch (form) {
    case 0x01: // addr
      c.skip(u.addressSize, 'an address')
      return null
    case 0x03:
    case 0x04:
    case 0x05:
    case 0x06:
    case 0x07:
    case 0x08:
    case 0x09:
    case 0x0a:
    case 0x0b:
    case 0x0d:
    case 0x0e:
    case 0x0f:
    case 0x1e:
    case 0x1f:
      return readForm(c, form, u.offsetSize, u.strings)
    case 0x0c: // flag
    case 0x11: // ref1
      c.skip(1, 'an attribute')
      return null
    case 0x12: // ref2
      c.skip(2, 'an attribute')
      return null
    case 0x13: // ref4
    case 0x1c: // ref_sup4
      c.skip(4, 'an attribute')
      return null
    case 0x14: // ref8
    case 0x20: // ref_sig8
    case 0x24: // ref_sup8
      c.skip(8, 'an attribute')
      return null
    case 0x10: // ref_addr
      c.skip(u.version <= 2 ? u.addressSize : u.offsetSize, 'an attribute')
      return null
    case 0x17: // sec_offset
      return c.uN(u.offsetSize, 'an offset')
    case 0x1d: // strp_sup
    case 0x1f20: // GNU_ref_alt
    case 0x1f21: // GNU_strp_alt
      c.skip(u.offsetSize, 'an attribute')
      return null
    case 0x15: // ref_udata
    case 0x1b: // addrx
    case 0x22: // loclistx
    case 0x23: // rnglistx
    case 0x1f01: // GNU_addr_index
      c.uleb()
      return null
    case 0x18: // exprloc
      c.skip(c.uleb(), 'an expression')
      return null
    case 0x19: // flag_present
    case 0x21: // implicit_const
      return form === 0x21 ? implicit : null
    case 0x1a: // strx
    case 0x1f02: // GNU_str_index
      return { strx: c.uleb() }
    case 0x25:
      return { strx: c.u8() }
    case 0x26:
      return { strx: c.u16() }
    case 0x27:
      return { strx: c.le ? c.u16() + c.u8() * 0x10000 : c.u8() * 0x10000 + c.u16() }
    case 0x28:
      return { strx: c.u32() }
    case 0x29:
      c.skip(1, 'an attribute')
      return null
    case 0x2a:
      c.skip(2, 'an attribute')
      return null
    case 0x2b:
      c.skip(3, 'an attribute')
      return null
    case 0x2c:
      c.skip(4, 'an attribute')
      return null
    case 0x16: // indirect
      if (depth > 4) throw new DwarfError('malformed DWARF: nested DW_FORM_indirect')
      return readAttribute(c, c.uleb(), implicit, u, depth + 1)
    default:
      throw new DwarfError(`unsupported DWARF form 0x${form.toString(16)}`)
  }
}
