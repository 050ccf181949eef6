import type { SourceMapSegment } from '@jridgewell/sourcemap-codec'
import { ChunkedMappings } from './chunked-mappings.ts'
import type { SourceMapSection } from './parse-source-map.ts'

interface Section {
  line: number
  column: number
  sourceOffset: number
  nameOffset: number
  mappings: ChunkedMappings
}

/**
 * The mappings of a whole map, its sections (an index map's, or the one of a regular map) each
 * decoded a chunk at a time. A position is looked up in the section it falls in, and the segment
 * found is given in the map's terms: generated column on the file's line, source and name
 * indexes into the map's lists. Nothing is allocated for the lines before a section's offset.
 */
export class MapMappings {
  private readonly sections: Section[]

  constructor(sections: readonly SourceMapSection[]) {
    this.sections = sections.map(({ mappings, ...place }) => ({ ...place, mappings: new ChunkedMappings(mappings) }))
  }

  /** Characters of the mappings decoded so far (their segments are kept). */
  get decodedCharacters(): number {
    let total = 0
    for (const section of this.sections) total += section.mappings.decodedCharacters
    return total
  }

  /** Bytes held whatever gets decoded: the chunk indexes. */
  get indexBytes(): number {
    let total = 0
    for (const section of this.sections) total += section.mappings.indexBytes + 64
    return total
  }

  /** The segment at or before `column` on generated `line` (both 0-based), within the section holding that position. */
  segmentAt(line: number, column: number): SourceMapSegment | null {
    const index = this.sectionAt(line, column)
    if (index === -1) return null
    const section = this.sections[index]!
    const relativeLine = line - section.line
    const found = section.mappings.segmentAt(relativeLine, relativeLine === 0 ? column - section.column : column)
    return found && translate(found, section, relativeLine)
  }

  /**
   * Calls `visit` with the segments of generated `line` from the first at or after `column`, in
   * order (on into later sections that start on the same line), until it returns true.
   */
  findFrom(line: number, column: number, visit: (segment: SourceMapSegment) => boolean): SourceMapSegment | null {
    let index = this.sectionAt(line, column)
    if (index === -1) index = 0
    for (; index < this.sections.length; index++) {
      const section = this.sections[index]!
      if (section.line > line) return null
      const relativeLine = line - section.line
      const from = relativeLine === 0 ? Math.max(0, column - section.column) : column
      const hit = section.mappings.findFrom(relativeLine, from, (segment) => visit(translate(segment, section, relativeLine)))
      if (hit) return translate(hit, section, relativeLine)
    }
    return null
  }

  /** The last section starting at or before the position, or -1. */
  private sectionAt(line: number, column: number): number {
    let low = 0
    let high = this.sections.length - 1
    let found = -1
    while (low <= high) {
      const mid = (low + high) >>> 1
      const section = this.sections[mid]!
      if (section.line < line || (section.line === line && section.column <= column)) {
        found = mid
        low = mid + 1
      } else high = mid - 1
    }
    return found
  }
}

/** A section's segment in the map's terms (the same array when the section starts at 0, 0 and has no offsets). */
function translate(segment: SourceMapSegment, section: Section, relativeLine: number): SourceMapSegment {
  const columnShift = relativeLine === 0 ? section.column : 0
  if (columnShift === 0 && section.sourceOffset === 0 && section.nameOffset === 0) return segment
  if (segment.length === 1) return [segment[0] + columnShift]
  if (segment.length === 4) return [segment[0] + columnShift, segment[1] + section.sourceOffset, segment[2], segment[3]]
  return [segment[0] + columnShift, segment[1] + section.sourceOffset, segment[2], segment[3], segment[4] + section.nameOffset]
}
