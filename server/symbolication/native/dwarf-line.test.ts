import { describe, expect, it } from 'vitest'
import { compDirsByLineOffset, decodeLineTables, DwarfError, type LineTableOptions } from './dwarf-line.ts'

// Line tables written byte by byte (little-endian), each feature in isolation. The real
// compilers' output is covered by elf-symbols.test.ts against llvm-symbolizer.

const uleb = (value: number): number[] => {
  const out: number[] = []
  do {
    let byte = value % 128
    value = Math.floor(value / 128)
    if (value > 0) byte |= 0x80
    out.push(byte)
  } while (value > 0)
  return out
}
const sleb = (value: number): number[] => {
  const out: number[] = []
  for (;;) {
    const byte = value & 0x7f
    value >>= 7
    if ((value === 0 && !(byte & 0x40)) || (value === -1 && byte & 0x40)) return [...out, byte]
    out.push(byte | 0x80)
  }
}
const u16 = (v: number) => [v & 0xff, v >> 8]
const u32 = (v: number) => [v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >>> 24]
const u64 = (v: bigint) => [...u32(Number(v & 0xffffffffn)), ...u32(Number(v >> 32n))]
const cstr = (s: string) => [...Buffer.from(s), 0]

/** Line program opcodes for opcode_base 13, line_base -5, line_range 14. */
const op = {
  setAddress: (a: number | bigint, size = 8) => [0, ...uleb(size + 1), 2, ...(size === 8 ? u64(BigInt(a)) : u32(Number(a)))],
  endSequence: () => [0, 1, 1],
  copy: () => [1],
  advancePc: (n: number) => [2, ...uleb(n)],
  advanceLine: (n: number) => [3, ...sleb(n)],
  setFile: (n: number) => [4, ...uleb(n)],
  constAddPc: () => [8],
  fixedAdvancePc: (n: number) => [9, ...u16(n)],
  /** A special opcode: advance the address by `ops` operations and the line by `lines` (-5..8). */
  special: (ops: number, lines: number, base = 13) => [base + (lines + 5) + 14 * ops],
  defineFile: (name: string, dir: number) => {
    const body = [3, ...cstr(name), ...uleb(dir), 0, 0]
    return [0, ...uleb(body.length), ...body]
  },
}

interface TableSpec {
  version: 2 | 3 | 4 | 5
  dwarf64?: boolean
  minInst?: number
  maxOps?: number
  opcodeBase?: number
  lineRange?: number
  /** The header's directory and file lists, already encoded (v5: with their formats). */
  lists: number[]
  program: number[]
}

function table(spec: TableSpec): number[] {
  const opcodeBase = spec.opcodeBase ?? 13
  const standard = [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1].slice(0, opcodeBase - 1)
  while (standard.length < opcodeBase - 1) standard.push(2) // opcodes this reader does not know: two operands
  const afterHeaderLength = [spec.minInst ?? 1, ...(spec.version >= 4 ? [spec.maxOps ?? 1] : []), 1, -5 & 0xff, spec.lineRange ?? 14, opcodeBase, ...standard, ...spec.lists]
  const offset = (v: number) => (spec.dwarf64 ? u64(BigInt(v)) : u32(v))
  const body = [...u16(spec.version), ...(spec.version >= 5 ? [8, 0] : []), ...offset(afterHeaderLength.length), ...afterHeaderLength, ...spec.program]
  return spec.dwarf64 ? [...u32(0xffffffff), ...u64(BigInt(body.length)), ...body] : [...u32(body.length), ...body]
}

/** DWARF 2-4 lists: include directories, then files (name, directory index, mtime, length). */
const oldLists = (dirs: string[], files: [string, number][]) => [...dirs.flatMap(cstr), 0, ...files.flatMap(([name, dir]) => [...cstr(name), ...uleb(dir), 0, 0]), 0]

function decode(bytes: number[], options: Partial<LineTableOptions> = {}) {
  const tables: (string | undefined)[][] = []
  const ranges: [number, number, number, string | undefined][] = []
  decodeLineTables(Buffer.from(bytes), { littleEndian: true, codeStart: null, ...options }, {
    table: (files) => tables.push([...files]),
    range: (address, size, line, file) => ranges.push([address, size, line, tables.at(-1)![file]]),
  })
  return { tables, ranges }
}

describe('decodeLineTables', () => {
  it('DWARF 2, 64-bit DWARF: rows become ranges, the last row at an address wins, names join their directory and comp_dir', () => {
    const program = [
      ...op.setAddress(0x1000),
      ...op.copy(), // line 1 at 0x1000, replaced by the next row
      ...op.special(0, 4), // line 5 at 0x1000
      ...op.special(4, 2), // line 7 at 0x1004
      ...op.setFile(2),
      ...op.advanceLine(-7), // line 0: no source line
      ...op.special(2, 0),
      ...op.advancePc(6),
      ...op.endSequence(), // ends at 0x100c
    ]
    const bytes = table({ version: 2, dwarf64: true, lists: oldLists(['include', '/abs'], [['main.c', 0], ['util.h', 1], ['sys.h', 2]]), program })
    const { tables, ranges } = decode(bytes, { compDirs: new Map([[0, '/build']]) })
    expect(tables).toEqual([[undefined, '/build/main.c', '/build/include/util.h', '/abs/sys.h']])
    expect(ranges).toEqual([
      [0x1000, 4, 5, '/build/main.c'],
      [0x1004, 2, 7, '/build/main.c'],
      [0x1006, 6, 0, '/build/include/util.h'],
    ])
  })

  it('DWARF 3 with opcode_base 10 (opcodes 10-12 are special) and 4: unknown standard opcodes skip their operands, min_inst_length scales', () => {
    const v3 = table({ version: 3, opcodeBase: 10, lists: oldLists([], [['a.c', 0]]), program: [...op.setAddress(0x100), ...op.special(0, 1, 10), ...op.special(1, 1, 10), ...op.advancePc(1), ...op.endSequence()] })
    expect(decode(v3).ranges).toEqual([
      [0x100, 1, 2, 'a.c'],
      [0x101, 1, 3, 'a.c'],
    ])
    // opcode_base 14: opcode 13 is a standard opcode this reader does not know, with two ULEB operands.
    const program = [...op.setAddress(0x2000), 13, ...uleb(300), ...uleb(5), ...op.special(0, 0, 14), ...op.constAddPc(), ...op.copy(), ...op.fixedAdvancePc(0x10), ...op.endSequence()]
    const v4 = table({ version: 4, minInst: 4, opcodeBase: 14, lists: oldLists([], [['b.c', 0]]), program })
    // const_add_pc advances (255 - 14) / 14 = 17 operations of 4 bytes: 68; fixed_advance_pc is in bytes, unscaled.
    expect(decode(v4).ranges).toEqual([
      [0x2000, 68, 1, 'b.c'],
      [0x2044, 16, 1, 'b.c'],
    ])
  })

  it('VLIW (max_ops_per_inst > 1): op_index counts operations, the address moves per whole instruction', () => {
    const program = [...op.setAddress(0x400), ...op.copy(), ...op.special(2, 1), ...op.special(1, 1), ...op.special(3, 1), ...op.advancePc(3), ...op.endSequence()]
    const bytes = table({ version: 4, minInst: 8, maxOps: 3, lists: oldLists([], [['v.c', 0]]), program })
    // Operations 0 → 2 → 3 (next instruction) → 6 → 9: rows for lines 1 and 2 at 0x400 (2 wins), 3 at 0x408, 4 at 0x410, the end at 0x418.
    expect(decode(bytes).ranges).toEqual([
      [0x400, 8, 2, 'v.c'],
      [0x408, 8, 3, 'v.c'],
      [0x410, 8, 4, 'v.c'],
    ])
  })

  it('DW_LNE_define_file adds a file to a DWARF 2-4 table', () => {
    const program = [...op.defineFile('late.c', 0), ...op.setAddress(0x10), ...op.setFile(2), ...op.copy(), ...op.advancePc(2), ...op.endSequence()]
    const bytes = table({ version: 4, lists: oldLists([], [['first.c', 0]]), program })
    expect(decode(bytes, { compDirs: new Map([[0, 'cd']]) }).ranges).toEqual([[0x10, 2, 1, 'late.c']])
  })

  it('DWARF 5: entry formats, line_strp and strp names, data and block forms, MD5, file index 0', () => {
    const lineStr = Buffer.from('\0/src/proj\0include\0main.c\0')
    const str = Buffer.from('\0\0gen.h\0')
    const dirFormat = [1, ...uleb(1), ...uleb(0x1f)] // DW_LNCT_path, DW_FORM_line_strp
    const dirs = [...uleb(2), ...u32(1), ...u32(11)]
    // DW_LNCT_path strp | string, DW_LNCT_directory_index udata | data1, DW_LNCT_MD5 data16, DW_LNCT_size data4, vendor 0x2001 block.
    const fileFormat = (pathForm: number, dirForm: number) => [5, ...uleb(1), ...uleb(pathForm), ...uleb(2), ...uleb(dirForm), ...uleb(5), ...uleb(0x1e), ...uleb(4), ...uleb(0x06), ...uleb(0x2001), ...uleb(0x09)]
    const md5 = Array(16).fill(0xab)
    const lists = [...dirFormat, ...dirs, ...fileFormat(0x08, 0x0f), ...uleb(3), ...cstr('main.c'), ...uleb(0), ...md5, ...u32(100), 2, 9, 9, ...cstr('/usr/include/x.h'), ...uleb(1), ...md5, ...u32(1), 0, ...cstr('util.h'), ...uleb(1), ...md5, ...u32(1), 0]
    const program = [...op.setAddress(0x500), ...op.setFile(0), ...op.copy(), ...op.setFile(2), ...op.special(2, 3), ...op.advancePc(2), ...op.endSequence()]
    const { tables, ranges } = decode(table({ version: 5, lists, program }), { lineStr, compDirs: new Map([[0, '/ignored']]) })
    expect(tables).toEqual([['/src/proj/main.c', '/usr/include/x.h', '/ignored/include/util.h']])
    expect(ranges).toEqual([
      [0x500, 2, 1, '/src/proj/main.c'],
      [0x502, 2, 4, '/ignored/include/util.h'],
    ])
    // The same with the file's path through DW_FORM_strp and its directory as data1.
    const strpLists = [...dirFormat, ...dirs, 2, ...uleb(1), ...uleb(0x0e), ...uleb(2), ...uleb(0x0b), ...uleb(1), ...u32(2), 1]
    expect(decode(table({ version: 5, lists: strpLists, program: [...op.setAddress(0x10), ...op.setFile(0), ...op.copy(), ...op.advancePc(1), ...op.endSequence()] }), { lineStr, str }).ranges).toEqual([[0x10, 1, 1, 'include/gen.h']])
  })

  it('drops sequences a linker discarded: at 0 below the code, or at a tombstone; keeps the rest', () => {
    const sequence = (address: number | bigint, size = 8) => [...op.setAddress(address, size), ...op.copy(), ...op.advancePc(4), ...op.endSequence()]
    const program = [...sequence(0), ...sequence(0xffffffff, 4), ...sequence(0xfffffffe, 4), ...sequence(0xffffffffffffffffn), ...sequence(0xfffffffffffffffen), ...sequence(0x1000)]
    const bytes = table({ version: 4, lists: oldLists([], [['t.c', 0]]), program })
    expect(decode(bytes, { codeStart: 0x1000 }).ranges).toEqual([[0x1000, 4, 1, 't.c']])
    // Code that starts at 0 (an object file's layout): a sequence at 0 is real.
    expect(decode(bytes, { codeStart: 0 }).ranges).toEqual([
      [0, 4, 1, 't.c'],
      [0x1000, 4, 1, 't.c'],
    ])
  })

  it('never answers a negative range when set_address goes backwards', () => {
    const program = [...op.setAddress(0x200), ...op.copy(), ...op.setAddress(0x100), ...op.copy(), ...op.advancePc(8), ...op.endSequence()]
    expect(decode(table({ version: 4, lists: oldLists([], [['b.c', 0]]), program })).ranges).toEqual([[0x100, 8, 1, 'b.c']])
  })

  it('reads several tables, and big-endian ones', () => {
    const one = table({ version: 4, lists: oldLists([], [['one.c', 0]]), program: [...op.setAddress(0x10), ...op.copy(), ...op.advancePc(1), ...op.endSequence()] })
    const two = table({ version: 2, lists: oldLists([], [['two.c', 0]]), program: [...op.setAddress(0x20), ...op.copy(), ...op.advancePc(1), ...op.endSequence()] })
    expect(decode([...one, ...two]).ranges).toEqual([
      [0x10, 1, 1, 'one.c'],
      [0x20, 1, 1, 'two.c'],
    ])
    // Big-endian DWARF 2, written by hand: length, version, header length, then the same fields.
    const header = [1, 1, -5 & 0xff, 14, 13, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, ...cstr('be.c'), 0, 0, 0, 0]
    const program = [0, 5, 2, 0, 0, 0x12, 0x34, 1, 2, 3, 0, 1, 1]
    const body = [0, 2, 0, 0, 0, header.length, ...header, ...program]
    expect(decode([0, 0, 0, body.length, ...body], { littleEndian: false }).ranges).toEqual([[0x1234, 3, 1, 'be.c']])
  })

  it('throws a DwarfError for a malformed table', () => {
    const good = table({ version: 4, lists: oldLists([], [['a.c', 0]]), program: [...op.setAddress(0x10), ...op.copy(), ...op.advancePc(1), ...op.endSequence()] })
    const cases: [string, number[], RegExp][] = [
      ['truncated length', good.slice(0, 3), /truncated DWARF/],
      ['a unit longer than the section', good.slice(0, -1), /longer than \.debug_line/],
      ['a program cut inside set_address', (() => {
        const cut = table({ version: 4, lists: oldLists([], [['a.c', 0]]), program: op.setAddress(0x10).slice(0, 6) })
        return cut
      })(), /runs past the end/],
      ['version 1', table({ version: 4, lists: [], program: [] }).map((b, i) => (i === 4 ? 1 : b)), /unsupported DWARF line table version 1/],
      ['line_range 0', table({ version: 4, lineRange: 0, lists: oldLists([], []), program: [] }), /line_range 0/],
      ['a reserved length', [...u32(0xfffffff5), 0, 0], /reserved unit length/],
      ['an unknown DWARF 5 form', table({ version: 5, lists: [1, 1, 0x42, 1, 0], program: [] }), /form 0x42/],
      ['a file list longer than its header', table({ version: 5, lists: [1, 1, 0x08, ...uleb(100_000)], program: [] }), /longer than its unit/],
      ['an unterminated file name', table({ version: 4, lists: [...cstr('dir'), 0, 0x61, 0x62], program: [] }), /has no end/],
    ]
    for (const [what, bytes, message] of cases) {
      expect(() => decode(bytes), what).toThrow(DwarfError)
      expect(() => decode(bytes), what).toThrow(message)
    }
  })
})

describe('compDirsByLineOffset', () => {
  it("reads each compile unit's DW_AT_comp_dir, keyed by its DW_AT_stmt_list: DWARF 4 with its abbreviation last (gcc), DWARF 5 with strx1", () => {
    // Abbreviations at 0: code 1 (a variable, unused here), code 2 the compile unit: name string, stmt_list sec_offset, comp_dir strp.
    // At 20: code 1 the compile unit: name strx1, str_offsets_base sec_offset, stmt_list sec_offset, comp_dir strx1, low_pc addr.
    const abbrev = Buffer.from([
      ...[1, 0x34, 0, 0x03, 0x08, 0, 0],
      ...[2, 0x11, 1, 0x03, 0x08, 0x10, 0x17, 0x1b, 0x0e, 0, 0],
      0,
      ...[0],
      ...[1, 0x11, 1, 0x03, 0x25, 0x72, 0x17, 0x10, 0x17, 0x1b, 0x25, 0x11, 0x01, 0, 0],
      0,
    ])
    expect(abbrev[20]).toBe(1)
    const str = Buffer.from('\0/home/me/proj\0/build/v5\0x.c\0')
    const strOffsets = Buffer.from([...u32(0), ...u32(0), ...u32(25), ...u32(15)]) // a header, then offsets of "x.c" and "/build/v5"
    const v4Body = [...u16(4), ...u32(0), 8, 2, ...cstr('a.c'), ...u32(0x40), ...u32(1), 0]
    const v5Body = [...u16(5), 1, 8, ...u32(20), 1, 0, ...u32(8), ...u32(0x80), 1, ...u64(0x1000n), 0]
    const info = Buffer.from([...u32(v4Body.length), ...v4Body, ...u32(v5Body.length), ...v5Body])
    const dirs = compDirsByLineOffset({ info, abbrev, str, strOffsets, littleEndian: true, addressSize: 8 })
    expect([...dirs]).toEqual([
      [0x40, '/home/me/proj'],
      [0x80, '/build/v5'],
    ])
    // A damaged unit is left out; reading stops, nothing throws.
    expect([...compDirsByLineOffset({ info: info.subarray(0, 20), abbrev, str, littleEndian: true, addressSize: 8 })]).toEqual([])
  })
})
