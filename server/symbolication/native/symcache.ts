// SymCache: the one lookup index an upload of native symbols becomes (SYMBOLICATION.md §4). A
// symbol source (a Breakpad .sym file, an ELF object) feeds a builder through SymbolSink once, at
// upload; the builder sorts, de-duplicates and writes one little-endian Buffer. At event time
// SymCache.fromBuffer() lays typed arrays over that Buffer without copying and every lookup is a
// binary search, so no event ever parses symbol text again.
//
// Layout, version 1 (every number little-endian, every section starting on an 8-byte boundary):
//
//   header (72 bytes)  magic "ESYMCACH", u32 version, u32 flags (1 line info, 2 inline info,
//                      4 CFI), u32 counts: functions, publics, lines, inlines, CFI INIT records,
//                      CFI delta records, strings, string bytes; u32 string indexes of the
//                      identity: debug id, code id, os, arch, module name (0xffffffff: none)
//   functions          f64 start, f64 size, u32 name, u32 first and end line (the line records
//                      starting inside the function, an index range), u8 flags (1: folded)
//                                                                               sorted by start
//   publics            f64 start, u32 name, u8 flags (1: folded)                sorted by start
//   lines              f64 start, u32 size, u32 line, u32 file                  sorted by start
//   inlines            f64 start, u32 size, u32 depth, u32 call line, u32 call file, u32 origin
//                                                                               sorted by (depth, start)
//   CFI INIT           f64 start, f64 size, u32 record                          sorted by start
//   CFI deltas         f64 address, u32 record                                  sorted by address
//   strings            u32 offsets[count + 1], then the UTF-8 bytes
//
// Sections follow one another in this order, each array of a section in the order listed, so
// their offsets follow from the counts alone; a buffer whose length is not exactly what its
// counts say is refused. Names, files and CFI records are indexes into the string table.
//
// Addresses are module-relative and below 2^53 (f64 holds them exactly).
//
// Lookup rules (those of Breakpad's processor and rust-minidump's breakpad-symbols):
// - The function is the FUNC whose start is the nearest at or below the address, if its range
//   covers the address. A FUNC of size 0 extends to the next FUNC or PUBLIC (the builder stores
//   that extent; the last symbol of a module extends to its end, as a PUBLIC does).
// - Several FUNCs at one address (identical code folding): one is kept, a non-folded one first,
//   else the first fed. The same for PUBLICs.
// - No FUNC covers it: the nearest PUBLIC at or below the address, refused when a FUNC starts at
//   or after that PUBLIC and at or before the address (a PUBLIC cannot extend past a FUNC).
//   A PUBLIC answers a name only: no file, no line, no inlines.
// - The line is that of the line record covering the address (line 0 → null).
// - Inline records covering the address are found depth by depth from 0 until a depth has none.
//   Frames, innermost first: the deepest inlined function (named by its origin) at the line
//   record's file:line; each shallower inlined function at the call site of the record one level
//   deeper; last the FUNC at the call site of the depth-0 record. This is rust-minidump's
//   `fill_symbol` (breakpad-symbols/src/sym_file/mod.rs), except that an unknown origin keeps
//   its frame with a null name instead of dropping it (dropping it would shift the call sites).
import type { ModuleIdentity, NativeArch, NativeLocation, SymbolSink } from './native-symbols.ts'

export const SYMCACHE_VERSION = 1
const MAGIC = Buffer.from('ESYMCACH', 'latin1')
const HEADER_BYTES = 72
const NONE = 0xffffffff
const FLAG_LINES = 1
const FLAG_INLINES = 2
const FLAG_CFI = 4
const FOLDED = 1
const MAX_U32 = 0xffffffff
/** Where a size-0 symbol that is the last of its module ends. */
const END_OF_MODULE = Number.MAX_SAFE_INTEGER

/** A buffer that is not a SymCache this server can read. */
export class SymCacheError extends Error {
  override name = 'SymCacheError'
}

interface Counts {
  functions: number
  publics: number
  lines: number
  inlines: number
  cfiInits: number
  cfiDeltas: number
  strings: number
  stringBytes: number
}

type Kind = 'f64' | 'u32' | 'u8'
const WIDTH: Record<Kind, number> = { f64: 8, u32: 4, u8: 1 }

/** Every array of the layout, in order: [name, element kind, element count]. */
function arrays(c: Counts): Array<[string, Kind, number]> {
  return [
    ['funcStart', 'f64', c.functions],
    ['funcSize', 'f64', c.functions],
    ['funcName', 'u32', c.functions],
    ['funcLineFrom', 'u32', c.functions],
    ['funcLineTo', 'u32', c.functions],
    ['funcFlags', 'u8', c.functions],
    ['publicStart', 'f64', c.publics],
    ['publicName', 'u32', c.publics],
    ['publicFlags', 'u8', c.publics],
    ['lineStart', 'f64', c.lines],
    ['lineSize', 'u32', c.lines],
    ['lineNo', 'u32', c.lines],
    ['lineFile', 'u32', c.lines],
    ['inlineStart', 'f64', c.inlines],
    ['inlineSize', 'u32', c.inlines],
    ['inlineDepth', 'u32', c.inlines],
    ['inlineCallLine', 'u32', c.inlines],
    ['inlineCallFile', 'u32', c.inlines],
    ['inlineOrigin', 'u32', c.inlines],
    ['cfiStart', 'f64', c.cfiInits],
    ['cfiSize', 'f64', c.cfiInits],
    ['cfiRecord', 'u32', c.cfiInits],
    ['cfiDeltaAddress', 'f64', c.cfiDeltas],
    ['cfiDeltaRecord', 'u32', c.cfiDeltas],
    ['stringOffsets', 'u32', c.strings + 1],
    ['stringBytes', 'u8', c.stringBytes],
  ]
}

const align8 = (n: number) => Math.ceil(n / 8) * 8

/** Each array's byte offset, and the total length. */
function layout(c: Counts): { offsets: Map<string, [Kind, number, number]>; length: number } {
  const offsets = new Map<string, [Kind, number, number]>()
  let at = HEADER_BYTES
  for (const [name, kind, count] of arrays(c)) {
    offsets.set(name, [kind, at, count])
    at = align8(at + count * WIDTH[kind])
  }
  return { offsets, length: at }
}

/** A `STACK CFI` record's text (after "STACK CFI "): `INIT <addr> <size> <rules>` or `<addr> <rules>`. Null when malformed. */
export function parseCfiRecord(record: string): { init: boolean; address: number; size: number } | null {
  const init = record.startsWith('INIT ')
  const fields = (init ? record.slice(5) : record).split(' ', init ? 3 : 2)
  const address = hexField(fields[0])
  const size = init ? hexField(fields[1]) : 0
  const rules = fields[init ? 2 : 1]
  if (address === null || size === null || !rules) return null
  return { init, address, size }
}

function hexField(text: string | undefined): number | null {
  if (!text || text.length > 14 || !/^[0-9a-fA-F]+$/.test(text)) return null
  const value = parseInt(text, 16)
  return Number.isSafeInteger(value) ? value : null
}

/** The order that sorts records by `compare`, checking first whether they already are (symbol sources mostly feed them sorted). */
function sortedOrder(count: number, compare: (a: number, b: number) => number): Uint32Array {
  const order = new Uint32Array(count)
  let sorted = true
  for (let i = 0; i < count; i++) {
    order[i] = i
    if (sorted && i > 0 && compare(i - 1, i) > 0) sorted = false
  }
  return sorted ? order : order.sort(compare)
}

class StringTable {
  private readonly index = new Map<string, number>()
  readonly strings: string[] = []
  intern(text: string): number {
    let at = this.index.get(text)
    if (at === undefined) {
      at = this.strings.length
      this.strings.push(text)
      this.index.set(text, at)
    }
    return at
  }
}

export interface SymCacheBuilder extends SymbolSink {
  /** The SymCache of everything fed so far. `identity` replaces the one given at creation (a .sym file's INFO CODE_ID comes after its MODULE line). */
  finish(identity?: ModuleIdentity): Buffer
}

/** A SymbolSink that collects a module's symbols; finish() writes them as a SymCache. */
export function createSymCacheBuilder(identity?: ModuleIdentity): SymCacheBuilder {
  const files = new Map<number, string>()
  const origins = new Map<number, string>()
  const func = { start: [] as number[], size: [] as number[], name: [] as string[], folded: [] as boolean[] }
  const pub = { start: [] as number[], name: [] as string[], folded: [] as boolean[] }
  const line = { start: [] as number[], size: [] as number[], line: [] as number[], file: [] as number[] }
  const inl = { start: [] as number[], size: [] as number[], depth: [] as number[], callLine: [] as number[], callFile: [] as number[], origin: [] as number[] }
  const cfiInit = { start: [] as number[], size: [] as number[], record: [] as string[] }
  const cfiDelta = { address: [] as number[], record: [] as string[] }

  const address = (value: number) => (Number.isSafeInteger(value) && value >= 0 ? value : null)

  return {
    file(id, name) {
      if (!files.has(id)) files.set(id, name)
    },
    inlineOrigin(id, name) {
      if (!origins.has(id)) origins.set(id, name)
    },
    func(start, size, name, folded = false) {
      if (address(start) === null || address(size) === null) return
      func.start.push(start)
      func.size.push(size)
      func.name.push(name)
      func.folded.push(folded)
    },
    line(start, size, lineNo, fileId) {
      if (address(start) === null || address(size) === null || size === 0) return
      line.start.push(start)
      line.size.push(Math.min(size, MAX_U32))
      line.line.push(lineNo >>> 0 === lineNo ? lineNo : 0)
      line.file.push(fileId)
    },
    inline(depth, callLine, callFileId, originId, ranges) {
      if (depth >>> 0 !== depth) return
      for (const [start, size] of ranges) {
        if (address(start) === null || address(size) === null || size === 0) continue
        inl.start.push(start)
        inl.size.push(Math.min(size, MAX_U32))
        inl.depth.push(depth)
        inl.callLine.push(callLine >>> 0 === callLine ? callLine : 0)
        inl.callFile.push(callFileId)
        inl.origin.push(originId)
      }
    },
    publicSymbol(start, name, folded = false) {
      if (address(start) === null) return
      pub.start.push(start)
      pub.name.push(name)
      pub.folded.push(folded)
    },
    cfi(record) {
      const parsed = parseCfiRecord(record)
      if (!parsed) throw new Error(`not a STACK CFI record: ${record.slice(0, 80)}`)
      if (parsed.init) {
        if (parsed.size === 0) return
        cfiInit.start.push(parsed.address)
        cfiInit.size.push(parsed.size)
        cfiInit.record.push(record)
      } else {
        cfiDelta.address.push(parsed.address)
        cfiDelta.record.push(record)
      }
    },
    finish(finalIdentity) {
      const id = finalIdentity ?? identity
      if (!id) throw new Error('a SymCache needs the module identity: pass it to createSymCacheBuilder() or finish()')
      const strings = new StringTable()
      const stringOf = (text: string | null) => (text === null ? NONE : strings.intern(text))
      const identityIndexes = [stringOf(id.debugId), stringOf(id.codeId), stringOf(id.os), stringOf(id.arch), stringOf(id.moduleName)]

      // Publics: sorted by start; at one address the first non-folded one, else the first.
      const publicOrder = sortedOrder(pub.start.length, (a, b) => pub.start[a]! - pub.start[b]! || Number(pub.folded[a]) - Number(pub.folded[b]) || a - b)
      const publics = dedupe(publicOrder, (a, b) => pub.start[a] === pub.start[b])
      const publicStarts = publics.map((i) => pub.start[i]!)

      // Functions: the same, then size 0 resolved to the next symbol.
      const funcOrder = sortedOrder(func.start.length, (a, b) => func.start[a]! - func.start[b]! || Number(func.folded[a]) - Number(func.folded[b]) || a - b)
      const funcs = dedupe(funcOrder, (a, b) => func.start[a] === func.start[b])
      const funcSizes = funcs.map((i, k) => {
        const start = func.start[i]!
        const size = func.size[i]!
        if (size > 0) return Math.min(size, END_OF_MODULE - start)
        const nextFunc = k + 1 < funcs.length ? func.start[funcs[k + 1]!]! : END_OF_MODULE
        const p = upperBound(publicStarts, 0, publicStarts.length, start)
        const nextPublic = p < publicStarts.length ? publicStarts[p]! : END_OF_MODULE
        return Math.min(nextFunc, nextPublic) - start
      })

      const lineOrder = sortedOrder(line.start.length, (a, b) => line.start[a]! - line.start[b]! || a - b)
      const lines = dedupe(lineOrder, (a, b) => line.start[a] === line.start[b])
      const lineStarts = lines.map((i) => line.start[i]!)
      // Each function's line records, so a lookup searches a few dozen records, not all of them.
      const funcLineFrom = funcs.map((i) => lowerBound(lineStarts, 0, lineStarts.length, func.start[i]!))
      const funcLineTo = funcs.map((i, k) => lowerBound(lineStarts, funcLineFrom[k]!, lineStarts.length, func.start[i]! + funcSizes[k]!))

      const inlineOrder = sortedOrder(inl.start.length, (a, b) => inl.depth[a]! - inl.depth[b]! || inl.start[a]! - inl.start[b]! || a - b)
      const inlines = dedupe(inlineOrder, (a, b) => inl.depth[a] === inl.depth[b] && inl.start[a] === inl.start[b])

      const cfiOrder = sortedOrder(cfiInit.start.length, (a, b) => cfiInit.start[a]! - cfiInit.start[b]! || a - b)
      const cfis = dedupe(cfiOrder, (a, b) => cfiInit.start[a] === cfiInit.start[b])
      // Delta records: at one address the last wins, as in Breakpad's processor.
      const deltaOrder = sortedOrder(cfiDelta.address.length, (a, b) => cfiDelta.address[a]! - cfiDelta.address[b]! || b - a)
      const deltas = dedupe(deltaOrder, (a, b) => cfiDelta.address[a] === cfiDelta.address[b])

      const fileIndex = new Map<number, number>()
      const fileOf = (fileId: number) => {
        let at = fileIndex.get(fileId)
        if (at === undefined) {
          const name = files.get(fileId)
          at = name === undefined ? NONE : strings.intern(name)
          fileIndex.set(fileId, at)
        }
        return at
      }
      const originOf = (originId: number) => {
        const name = origins.get(originId)
        return name === undefined ? NONE : strings.intern(name)
      }

      const funcNames = funcs.map((i) => strings.intern(func.name[i]!))
      const publicNames = publics.map((i) => strings.intern(pub.name[i]!))
      const lineFiles = lines.map((i) => fileOf(line.file[i]!))
      const inlineFiles = inlines.map((i) => fileOf(inl.callFile[i]!))
      const inlineOrigins = inlines.map((i) => originOf(inl.origin[i]!))
      const cfiRecords = cfis.map((i) => strings.intern(cfiInit.record[i]!))
      const deltaRecords = deltas.map((i) => strings.intern(cfiDelta.record[i]!))

      const encoded = strings.strings.map((text) => Buffer.from(text, 'utf8'))
      const counts: Counts = {
        functions: funcs.length,
        publics: publics.length,
        lines: lines.length,
        inlines: inlines.length,
        cfiInits: cfis.length,
        cfiDeltas: deltas.length,
        strings: encoded.length,
        stringBytes: encoded.reduce((sum, bytes) => sum + bytes.length, 0),
      }
      const { offsets, length } = layout(counts)
      const buf = Buffer.alloc(length)
      MAGIC.copy(buf, 0)
      const header = [
        SYMCACHE_VERSION,
        (counts.lines > 0 ? FLAG_LINES : 0) | (counts.inlines > 0 ? FLAG_INLINES : 0) | (counts.cfiInits > 0 ? FLAG_CFI : 0),
        counts.functions,
        counts.publics,
        counts.lines,
        counts.inlines,
        counts.cfiInits,
        counts.cfiDeltas,
        counts.strings,
        counts.stringBytes,
        ...identityIndexes,
      ]
      header.forEach((value, k) => buf.writeUInt32LE(value, 8 + k * 4))

      const views = viewsOf(buf, offsets)
      const put = (name: string, values: ArrayLike<number>) => (views[name] as Float64Array | Uint32Array | Uint8Array).set(values)
      put('funcStart', funcs.map((i) => func.start[i]!))
      put('funcSize', funcSizes)
      put('funcName', funcNames)
      put('funcLineFrom', funcLineFrom)
      put('funcLineTo', funcLineTo)
      put('funcFlags', funcs.map((i) => (func.folded[i] ? FOLDED : 0)))
      put('publicStart', publicStarts)
      put('publicName', publicNames)
      put('publicFlags', publics.map((i) => (pub.folded[i] ? FOLDED : 0)))
      put('lineStart', lineStarts)
      put('lineSize', lines.map((i) => line.size[i]!))
      put('lineNo', lines.map((i) => line.line[i]!))
      put('lineFile', lineFiles)
      put('inlineStart', inlines.map((i) => inl.start[i]!))
      put('inlineSize', inlines.map((i) => inl.size[i]!))
      put('inlineDepth', inlines.map((i) => inl.depth[i]!))
      put('inlineCallLine', inlines.map((i) => inl.callLine[i]!))
      put('inlineCallFile', inlineFiles)
      put('inlineOrigin', inlineOrigins)
      put('cfiStart', cfis.map((i) => cfiInit.start[i]!))
      put('cfiSize', cfis.map((i) => cfiInit.size[i]!))
      put('cfiRecord', cfiRecords)
      put('cfiDeltaAddress', deltas.map((i) => cfiDelta.address[i]!))
      put('cfiDeltaRecord', deltaRecords)
      const stringOffsets = views.stringOffsets as Uint32Array
      const bytesAt = offsets.get('stringBytes')![1]
      let at = 0
      encoded.forEach((bytes, k) => {
        stringOffsets[k] = at
        bytes.copy(buf, bytesAt + at)
        at += bytes.length
      })
      stringOffsets[encoded.length] = at
      return buf
    },
  }
}

/** `order` without the records that are the `same` as the one before them (the first of each run stays). */
function dedupe(order: Uint32Array, same: (a: number, b: number) => boolean): number[] {
  const kept: number[] = []
  let previous = -1
  for (const i of order) {
    if (previous >= 0 && same(previous, i)) continue
    kept.push(i)
    previous = i
  }
  return kept
}

function viewsOf(buf: Buffer, offsets: Map<string, [Kind, number, number]>): Record<string, Float64Array | Uint32Array | Uint8Array> {
  const views: Record<string, Float64Array | Uint32Array | Uint8Array> = {}
  for (const [name, [kind, at, count]] of offsets) {
    const byteOffset = buf.byteOffset + at
    views[name] = kind === 'f64' ? new Float64Array(buf.buffer, byteOffset, count) : kind === 'u32' ? new Uint32Array(buf.buffer, byteOffset, count) : new Uint8Array(buf.buffer, byteOffset, count)
  }
  return views
}

/** A copy in memory of its own (Buffer.alloc never hands out a slice of the shared pool). */
function copyAligned(input: Buffer): Buffer {
  const copy = Buffer.alloc(input.length)
  input.copy(copy)
  return copy
}

/** The first index in [lo, hi) whose value is greater than `value` (hi when none is). */
function upperBound(values: ArrayLike<number>, lo: number, hi: number, value: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (values[mid]! <= value) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The first index in [lo, hi) whose value is at least `value`. */
function lowerBound(values: ArrayLike<number>, lo: number, hi: number, value: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (values[mid]! < value) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** A SymCache read from its Buffer: typed-array views over it, no copy (unless the buffer is not 8-byte aligned). */
export class SymCache {
  readonly identity: ModuleIdentity
  readonly hasLineInfo: boolean
  readonly hasInlineInfo: boolean
  readonly hasCfi: boolean
  /** How many records of each kind it holds (after de-duplication). */
  readonly counts: Readonly<Counts>
  private readonly funcStart: Float64Array
  private readonly funcSize: Float64Array
  private readonly funcName: Uint32Array
  private readonly funcLineFrom: Uint32Array
  private readonly funcLineTo: Uint32Array
  private readonly publicStart: Float64Array
  private readonly publicName: Uint32Array
  private readonly lineStart: Float64Array
  private readonly lineSize: Uint32Array
  private readonly lineNo: Uint32Array
  private readonly lineFile: Uint32Array
  private readonly inlineStart: Float64Array
  private readonly inlineSize: Uint32Array
  private readonly inlineDepth: Uint32Array
  private readonly inlineCallLine: Uint32Array
  private readonly inlineCallFile: Uint32Array
  private readonly inlineOrigin: Uint32Array
  private readonly cfiStart: Float64Array
  private readonly cfiSize: Float64Array
  private readonly cfiRecord: Uint32Array
  private readonly cfiDeltaAddress: Float64Array
  private readonly cfiDeltaRecord: Uint32Array
  private readonly stringOffsets: Uint32Array
  private readonly stringBytes: Buffer
  private readonly decoded: Array<string | undefined>
  /** Where each depth's inline records are, for depths 0, 1, … as long as each has some. */
  private readonly depthFrom: number[] = []
  private readonly depthTo: number[] = []

  /** The SymCache's size in bytes (what a cache of loaded SymCaches counts). */
  readonly byteLength: number

  private constructor(buf: Buffer, counts: Counts, offsets: Map<string, [Kind, number, number]>, identityIndexes: number[], flags: number) {
    const v = viewsOf(buf, offsets)
    this.byteLength = buf.length
    this.counts = counts
    this.funcStart = v.funcStart as Float64Array
    this.funcSize = v.funcSize as Float64Array
    this.funcName = v.funcName as Uint32Array
    this.funcLineFrom = v.funcLineFrom as Uint32Array
    this.funcLineTo = v.funcLineTo as Uint32Array
    this.publicStart = v.publicStart as Float64Array
    this.publicName = v.publicName as Uint32Array
    this.lineStart = v.lineStart as Float64Array
    this.lineSize = v.lineSize as Uint32Array
    this.lineNo = v.lineNo as Uint32Array
    this.lineFile = v.lineFile as Uint32Array
    this.inlineStart = v.inlineStart as Float64Array
    this.inlineSize = v.inlineSize as Uint32Array
    this.inlineDepth = v.inlineDepth as Uint32Array
    this.inlineCallLine = v.inlineCallLine as Uint32Array
    this.inlineCallFile = v.inlineCallFile as Uint32Array
    this.inlineOrigin = v.inlineOrigin as Uint32Array
    this.cfiStart = v.cfiStart as Float64Array
    this.cfiSize = v.cfiSize as Float64Array
    this.cfiRecord = v.cfiRecord as Uint32Array
    this.cfiDeltaAddress = v.cfiDeltaAddress as Float64Array
    this.cfiDeltaRecord = v.cfiDeltaRecord as Uint32Array
    this.stringOffsets = v.stringOffsets as Uint32Array
    const [, bytesAt] = offsets.get('stringBytes')!
    this.stringBytes = buf.subarray(bytesAt, bytesAt + counts.stringBytes)
    this.decoded = new Array<string | undefined>(counts.strings)
    for (let depth = 0; ; depth++) {
      const from = lowerBound(this.inlineDepth, 0, this.inlineDepth.length, depth)
      const to = upperBound(this.inlineDepth, from, this.inlineDepth.length, depth)
      if (to === from) break
      this.depthFrom.push(from)
      this.depthTo.push(to)
    }
    const [debugId, codeId, os, arch, moduleName] = identityIndexes.map((k) => this.string(k))
    if (debugId == null || os == null || arch == null || moduleName == null) throw new SymCacheError('corrupt SymCache: its module identity is missing')
    this.identity = { debugId, codeId: codeId ?? null, os, arch: arch as NativeArch, moduleName }
    this.hasLineInfo = (flags & FLAG_LINES) !== 0
    this.hasInlineInfo = (flags & FLAG_INLINES) !== 0
    this.hasCfi = (flags & FLAG_CFI) !== 0
  }

  /** Reads a SymCache; throws a SymCacheError when the buffer is not one (wrong magic, other version, truncated, inconsistent). */
  static fromBuffer(input: Buffer): SymCache {
    if (input.length < HEADER_BYTES || !input.subarray(0, MAGIC.length).equals(MAGIC)) throw new SymCacheError('not a SymCache (bad magic or shorter than its header)')
    const version = input.readUInt32LE(8)
    if (version !== SYMCACHE_VERSION) throw new SymCacheError(`SymCache version ${version}; this server reads version ${SYMCACHE_VERSION} (rebuild it from the upload)`)
    const word = (k: number) => input.readUInt32LE(12 + k * 4)
    const flags = word(0)
    const counts: Counts = {
      functions: word(1),
      publics: word(2),
      lines: word(3),
      inlines: word(4),
      cfiInits: word(5),
      cfiDeltas: word(6),
      strings: word(7),
      stringBytes: word(8),
    }
    const identityIndexes = [word(9), word(10), word(11), word(12), word(13)]
    const { offsets, length } = layout(counts)
    if (length !== input.length) throw new SymCacheError(`corrupt SymCache: ${input.length} bytes where its counts make ${length} (truncated or damaged)`)
    // Float64Array views need 8-byte alignment within the ArrayBuffer; a pooled or sliced Buffer may not have it.
    const buf = input.byteOffset % 8 === 0 ? input : copyAligned(input)
    if (buf.byteOffset % 8 !== 0) throw new SymCacheError('could not align the SymCache buffer')
    const [, offsetsAt] = offsets.get('stringOffsets')!
    const stringOffsets = new Uint32Array(buf.buffer, buf.byteOffset + offsetsAt, counts.strings + 1)
    let previous = 0
    for (const at of stringOffsets) {
      if (at < previous) throw new SymCacheError('corrupt SymCache: string offsets go backwards')
      previous = at
    }
    if (stringOffsets[0] !== 0 || previous !== counts.stringBytes) throw new SymCacheError('corrupt SymCache: string offsets do not match the string bytes')
    return new SymCache(buf, counts, offsets, identityIndexes, flags)
  }

  /** The string at index `k`; null for "none" and for an index out of range. */
  private string(k: number): string | null {
    if (k >= this.counts.strings) return null
    let text = this.decoded[k]
    if (text === undefined) {
      text = this.stringBytes.toString('utf8', this.stringOffsets[k], this.stringOffsets[k + 1])
      this.decoded[k] = text
    }
    return text
  }

  /** The frames at a module-relative address, innermost (inlined callee) first; [] when no symbol covers it. */
  lookup(address: number): NativeLocation[] {
    if (!(address >= 0)) return []
    const f = upperBound(this.funcStart, 0, this.funcStart.length, address) - 1
    if (f >= 0 && address - this.funcStart[f]! < this.funcSize[f]!) return this.functionFrames(f, address)
    const p = upperBound(this.publicStart, 0, this.publicStart.length, address) - 1
    if (p < 0) return []
    // A FUNC between the PUBLIC and the address ends the PUBLIC's extent.
    if (f >= 0 && this.funcStart[f]! >= this.publicStart[p]!) return []
    return [{ function: this.string(this.publicName[p]!), file: null, line: null, inlined: false }]
  }

  private functionFrames(f: number, address: number): NativeLocation[] {
    let file: string | null = null
    let line: number | null = null
    // The function's own line records, and the one before them (it may run into the function):
    // the same answer as a search of all line records.
    const from = Math.min(this.funcLineFrom[f]!, this.lineStart.length)
    const first = from > 0 ? from - 1 : 0
    const l = upperBound(this.lineStart, first, Math.max(first, Math.min(this.funcLineTo[f]!, this.lineStart.length)), address) - 1
    if (l >= first && address - this.lineStart[l]! < this.lineSize[l]!) {
      file = this.string(this.lineFile[l]!)
      line = this.lineNo[l]! || null
    }
    const name = this.string(this.funcName[f]!)
    if (this.inlineStart.length === 0) return [{ function: name, file, line, inlined: false }]
    const chain: number[] = []
    for (let depth = 0; ; depth++) {
      const k = this.inlineAt(depth, address)
      if (k < 0) break
      chain.push(k)
    }
    if (chain.length === 0) return [{ function: name, file, line, inlined: false }]
    const frames: NativeLocation[] = []
    for (let d = chain.length - 1; d >= 0; d--) {
      frames.push({ function: this.string(this.inlineOrigin[chain[d]!]!), file, line, inlined: true })
      // The frame one level out is at this inlined call's call site.
      file = this.string(this.inlineCallFile[chain[d]!]!)
      line = this.inlineCallLine[chain[d]!]! || null
    }
    frames.push({ function: name, file, line, inlined: false })
    return frames
  }

  /** The inline record of `depth` covering the address, or -1. */
  private inlineAt(depth: number, address: number): number {
    if (depth >= this.depthFrom.length) return -1
    const from = this.depthFrom[depth]!
    const to = this.depthTo[depth]!
    const k = upperBound(this.inlineStart, from, to, address) - 1
    return k >= from && address - this.inlineStart[k]! < this.inlineSize[k]! ? k : -1
  }

  /**
   * The CFI for an address, for a stack walker: the `STACK CFI INIT` record covering it and the
   * `STACK CFI` delta records from the INIT's start up to and including the address, in address
   * order, each verbatim as the symbol file had it after "STACK CFI ". Null when none covers it.
   */
  cfiAt(address: number): { init: string; deltas: string[] } | null {
    if (!(address >= 0)) return null
    const k = upperBound(this.cfiStart, 0, this.cfiStart.length, address) - 1
    if (k < 0 || address - this.cfiStart[k]! >= this.cfiSize[k]!) return null
    const from = lowerBound(this.cfiDeltaAddress, 0, this.cfiDeltaAddress.length, this.cfiStart[k]!)
    const to = upperBound(this.cfiDeltaAddress, from, this.cfiDeltaAddress.length, address)
    const deltas: string[] = []
    for (let d = from; d < to; d++) deltas.push(this.string(this.cfiDeltaRecord[d]!) ?? '')
    return { init: this.string(this.cfiRecord[k]!) ?? '', deltas }
  }
}
