import { decode, type SourceMapSegment } from '@jridgewell/sourcemap-codec'

/**
 * Segments decoded together. A lookup decodes at most the run of this many segments (of one
 * generated line) that holds its column; smaller runs cost more index, larger ones more work on
 * the first lookup of each run.
 */
const CHUNK_SEGMENTS = 64

// Per chunk, in `chunks`: where its text starts in the mappings string, the decoder's state
// before its first segment (generated column of the segment before it on its line, source,
// original line, original column, name), and its first segment's generated column.
const OFFSET = 0
const GEN_COLUMN = 1
const SOURCE = 2
const LINE = 3
const COLUMN = 4
const NAME = 5
const FIRST_COLUMN = 6
const FIELDS = 7

// Base64 VLQ digits, as @jridgewell/sourcemap-codec reads them.
const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const charToInt = new Uint8Array(128)
for (let i = 0; i < DIGITS.length; i++) charToInt[DIGITS.charCodeAt(i)] = i
const COMMA = 44
const SEMICOLON = 59

const decodeSign = (value: number) => (value & 1 ? -0x80000000 | -(value >>> 1) : value >>> 1)

// Where readInteger stopped: a module variable rather than a closure's, which V8 keeps in a
// heap-allocated context (the scan took 1.5 times as long).
let readEnd = 0

/** One VLQ integer of `text` from `pos`, as sourcemap-codec decodes it; sets readEnd. */
function readInteger(bytes: Uint8Array, pos: number): number {
  let value = 0
  let shift = 0
  let digit = 0
  do {
    digit = charToInt[bytes[pos++]!]!
    value |= (digit & 31) << shift
    shift += 5
  } while (digit & 32)
  readEnd = pos
  return decodeSign(value)
}

/**
 * A source map's `mappings`, decoded a chunk at a time as lookups need them, with the answers of
 * trace-mapping's `traceSegment` (greatest lower bound; the first of equal columns).
 *
 * trace-mapping decodes the whole string on the first lookup: for a 5 MB map about 240,000
 * segment arrays, most of a cold lookup's time, to answer one frame. Here one pass over the
 * string records, every CHUNK_SEGMENTS segments and at each generated line, where the text is and
 * the decoder's running state (the VLQ fields other than the generated column are deltas that
 * run across lines), allocating nothing per segment; a lookup then decodes only its chunk with
 * sourcemap-codec and adds that state. A one-line bundle gets chunks within its line, so it
 * profits as much as a multi-line one. The pass reads the string exactly as sourcemap-codec's
 * `decode` does, so both agree on every input, malformed ones included. A line whose segments
 * are not in column order is one chunk, decoded whole and sorted (as trace-mapping does).
 */
export class ChunkedMappings {
  readonly lineCount: number
  private readonly mappings: string
  /** FIELDS numbers per chunk. */
  private readonly chunks: Int32Array
  private readonly chunkCount: number
  /** Index of each line's first chunk; lineCount + 1 entries (every line has at least one chunk). */
  private readonly lineChunks: Int32Array
  private readonly decoded: (SourceMapSegment[] | undefined)[]
  private decodedText = 0

  constructor(mappings: string) {
    this.mappings = mappings
    const length = mappings.length
    // Bytes read 2-3 times faster than charCodeAt. Mappings are ASCII: parseSourceMap refuses
    // any other character, which latin1 would otherwise fold onto a separator.
    const bytes = Buffer.from(mappings, 'latin1')
    // Grown as needed: an index map's many small sections each start small.
    let chunks = new Int32Array(FIELDS * Math.min(1024, 1 + (length >>> 4)))
    let chunkCount = 0
    const lineChunks: number[] = []
    let source = 0
    let line = 0
    let column = 0
    let name = 0
    let pos = 0
    const startChunk = (genColumn: number) => {
      if ((chunkCount + 1) * FIELDS > chunks.length) {
        const grown = new Int32Array(chunks.length * 2)
        grown.set(chunks)
        chunks = grown
      }
      const at = chunkCount * FIELDS
      chunks[at + OFFSET] = pos
      chunks[at + GEN_COLUMN] = genColumn
      chunks[at + SOURCE] = source
      chunks[at + LINE] = line
      chunks[at + COLUMN] = column
      chunks[at + NAME] = name
      chunks[at + FIRST_COLUMN] = 0x7fffffff
      chunkCount += 1
    }
    do {
      let semi = bytes.indexOf(SEMICOLON, pos)
      if (semi === -1) semi = length
      const lineFirst = chunkCount
      lineChunks.push(lineFirst)
      let genColumn = 0
      let lastColumn = 0
      let sorted = true
      let inChunk = 0
      startChunk(0)
      while (pos < semi) {
        if (inChunk === CHUNK_SEGMENTS) {
          startChunk(genColumn)
          inChunk = 0
        }
        genColumn += readInteger(bytes, pos)
        pos = readEnd
        if (inChunk === 0) chunks[(chunkCount - 1) * FIELDS + FIRST_COLUMN] = genColumn
        if (genColumn < lastColumn) sorted = false
        lastColumn = genColumn
        if (pos < semi && bytes[pos] !== COMMA) {
          source += readInteger(bytes, pos)
          line += readInteger(bytes, readEnd)
          column += readInteger(bytes, readEnd)
          pos = readEnd
          if (pos < semi && bytes[pos] !== COMMA) {
            name += readInteger(bytes, pos)
            pos = readEnd
          }
        }
        inChunk += 1
        pos++
      }
      // Out of order: one chunk for the line, sorted when decoded.
      if (!sorted) chunkCount = lineFirst + 1
      pos = semi + 1
    } while (pos <= length)
    lineChunks.push(chunkCount)
    this.lineCount = lineChunks.length - 1
    this.lineChunks = Int32Array.from(lineChunks)
    this.chunks = chunks.slice(0, chunkCount * FIELDS)
    this.chunkCount = chunkCount
    this.decoded = new Array<SourceMapSegment[] | undefined>(chunkCount)
  }

  /** Characters of the mappings string decoded so far (their segments are kept). */
  get decodedCharacters(): number {
    return this.decodedText
  }

  /** Bytes of the chunk index, held whatever gets decoded. */
  get indexBytes(): number {
    return this.chunks.byteLength + this.lineChunks.byteLength + this.chunkCount * 8
  }

  /**
   * The segment at or before `column` on generated `line` (both 0-based): the last one whose
   * column is not greater, the first of several at that column; null when none is.
   */
  segmentAt(line: number, column: number): SourceMapSegment | null {
    if (line < 0 || line >= this.lineCount) return null
    const first = this.lineChunks[line]!
    const end = this.lineChunks[line + 1]!
    // The last chunk of the line starting before the column (the first chunk otherwise): one
    // starting at it may be preceded by segments at the same column.
    let low = first + 1
    let high = end - 1
    let chunk = first
    while (low <= high) {
      const mid = (low + high) >>> 1
      if (this.chunks[mid * FIELDS + FIRST_COLUMN]! < column) {
        chunk = mid
        low = mid + 1
      } else high = mid - 1
    }
    const segments = this.chunk(chunk)
    let index = lastAtOrBefore(segments, column, generatedColumn)
    if (index === -1) return null
    if (segments[index]![0] !== column && index === segments.length - 1 && chunk + 1 < end && this.chunks[(chunk + 1) * FIELDS + FIRST_COLUMN] === column) {
      return this.chunk(chunk + 1)[0]!
    }
    while (index > 0 && segments[index - 1]![0] === column) index--
    return segments[index]!
  }

  /** Calls `visit` with the segments of `line` from the first at or after `column`, in order, until it returns true. */
  findFrom(line: number, column: number, visit: (segment: SourceMapSegment) => boolean): SourceMapSegment | null {
    if (line < 0 || line >= this.lineCount) return null
    const end = this.lineChunks[line + 1]!
    let chunk = this.lineChunks[line]!
    // Chunks wholly before the column are skipped undecoded.
    while (chunk + 1 < end && this.chunks[(chunk + 1) * FIELDS + FIRST_COLUMN]! < column) chunk++
    for (; chunk < end; chunk++) {
      for (const segment of this.chunk(chunk)) if (segment[0] >= column && visit(segment)) return segment
    }
    return null
  }

  private chunk(index: number): SourceMapSegment[] {
    let segments = this.decoded[index]
    if (segments) return segments
    const at = index * FIELDS
    const start = this.chunks[at + OFFSET]!
    // The chunk's text ends before the separator in front of the next chunk (or at the string's end).
    const end = index + 1 < this.chunkCount ? this.chunks[at + FIELDS + OFFSET]! - 1 : this.mappings.length
    segments = start >= end ? [] : decode(this.mappings.slice(start, end))[0]!
    this.decodedText += Math.max(0, end - start)
    const genColumn = this.chunks[at + GEN_COLUMN]!
    const source = this.chunks[at + SOURCE]!
    const line = this.chunks[at + LINE]!
    const column = this.chunks[at + COLUMN]!
    const name = this.chunks[at + NAME]!
    for (const segment of segments as number[][]) {
      segment[0]! += genColumn
      if (segment.length >= 4) {
        segment[1]! += source
        segment[2]! += line
        segment[3]! += column
        if (segment.length === 5) segment[4]! += name
      }
    }
    this.decoded[index] = segments
    return segments
  }
}

/** Index of the last item whose key is ≤ value in items sorted by key, or -1. */
export function lastAtOrBefore<T>(items: readonly T[], value: number, key: (item: T) => number): number {
  let low = 0
  let high = items.length - 1
  let found = -1
  while (low <= high) {
    const mid = (low + high) >>> 1
    if (key(items[mid]!) <= value) {
      found = mid
      low = mid + 1
    } else high = mid - 1
  }
  return found
}

const generatedColumn = (segment: SourceMapSegment) => segment[0]
