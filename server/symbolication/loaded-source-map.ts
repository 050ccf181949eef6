import { lastAtOrBefore } from './chunked-mappings.ts'
import { MapMappings } from './map-mappings.ts'
import type { ParsedSourceMap } from './parse-source-map.ts'
import { wildcardMatch } from './url-pattern.ts'

/** Where a generated position comes from in the original sources. */
export interface OriginalPosition {
  sourceIndex: number
  /** 1-based. */
  line: number
  /** 0-based, as in source maps. */
  column: number
  /** The map's `names` entry at this position (the callee's name at a call site), if any. */
  name: string | null
}

export interface LoadedSourceMapInit {
  /** The upload's id, or `url:` and the address of a fetched map. */
  key: string
  parsed: ParsedSourceMap
  /** Size of the map's JSON text. */
  textBytes: number
  projectRoot: string | null
  /** The minified file, when uploaded or fetched: finds the names of functions where they are defined. */
  minified: string | null
  /** Source files uploaded in fields named by their URL ('*' wildcards allowed), by that name. */
  sourceFiles: ReadonlyMap<string, string>
  /**
   * Sources the map embeds but which were stored apart from it (its sourcesContent split off at
   * upload): index → size in bytes. Loaded when a frame needs one (setStoredSource).
   */
  storedSources?: ReadonlyMap<number, number>
}

// Decoded mappings take about 16 bytes per character of the VLQ string (measured in bench/symbolication.ts).
const DECODED_BYTES_PER_CHARACTER = 16

const URL_WITH_SCHEME = /^[a-z][a-z0-9+.-]*:/i

/** Lines of code context on each side of the frame's line (spec section 8: up to 3). */
export const CONTEXT_LINES = 3
/** Characters kept of each line of code context, as Bugsnag's notifiers cut them. */
export const CONTEXT_LINE_CHARS = 200

/**
 * Original paths that are not the developer's code: dependencies and the bundlers' runtime
 * helpers (webpack's bootstrap and runtime modules, Vite's preload helper and client, rollup's
 * commonjs helpers, virtual modules, Node's own modules).
 */
const NOT_IN_PROJECT = [
  /(^|[/\\])node_modules[/\\]/,
  /(^|\/)webpack\/(bootstrap|runtime|universalModuleDefinition)\b/,
  /^\(webpack\)/,
  /(^|\/)@?vite\/(client|preload-helper|modulepreload-polyfill|dynamic-import-helper)\b/,
  /^\0|\bcommonjsHelpers\b|__vite-browser-external/,
  /^(node|internal):/,
  /^<[^>]*>$/,
]

export function isInProject(path: string): boolean {
  return !NOT_IN_PROJECT.some((pattern) => pattern.test(path))
}

/**
 * A source path as people read it: without a `webpack://<name>/` prefix, without the upload's
 * projectRoot (the path it was built in), and without leading `./` and `../` (a map beside its
 * bundle in dist/ names `../src/index.js`).
 */
export function displayPath(source: string, projectRoot: string | null): string {
  let path = source.replace(/^webpack:\/\/[^/]*\//, '')
  for (const root of projectRoot ? [projectRoot, projectRoot.replace(/^file:\/\//, '')] : []) {
    const prefix = root.endsWith('/') ? root : `${root}/`
    if (root !== '' && path.startsWith(prefix)) {
      path = path.slice(prefix.length)
      break
    }
  }
  return path.replace(/^(\.\.?\/)+/, '') || source
}

// A minified function's definition, where its name token maps to the original name:
// `function n(`, `n=function`, `n=(…)=>`, `n=e=>`, `n:function`, and shorthand methods `n(…){`.
const DEFINITION =
  /\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(|(?<![\w$])([A-Za-z_$][\w$]*)\s*[:=]\s*(?:async\s*)?(?:function\b|\([^()]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)|(?<![\w$])([A-Za-z_$][\w$]*)\s*\([^()]*\)\s*\{/dg
const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'function', 'return', 'typeof'])

/** The identifier a V8 method name ends with: `r` of `Object.r`, `async r`, `new r`, `r [as x]`. */
function methodIdentifier(method: string | null): string | null {
  if (!method) return null
  const match = /([A-Za-z_$][\w$]*)$/.exec(method.replace(/\s*\[as [^\]]*\]$/, ''))
  return match ? match[1]! : null
}

const number = (value: number) => value

function lineStarts(text: string): number[] {
  const starts = [0]
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1)
  return starts
}

/**
 * One parsed source map with what symbolication needs beside it: lookups that never throw,
 * code context from `sourcesContent` or uploaded source files, display paths and the original
 * names of functions. Kept in the per-process LRU by `bytes`.
 */
export class LoadedSourceMap {
  readonly key: string
  readonly parsed: ParsedSourceMap
  /** The map's mappings, decoded a chunk at a time as lookups need them. */
  private readonly mappings: MapMappings
  readonly projectRoot: string | null
  /** Estimated memory held whatever lookups ask: the parsed map, the chunk index, the minified and uploaded files. */
  private readonly fixedBytes: number
  /** Sources read or fetched since, as lookups needed them. */
  private loadedSourceBytes = 0
  private readonly minified: string | null
  private readonly sourceFiles: ReadonlyMap<string, string>
  private readonly lines = new Map<number, string[] | null>()
  /** Code context by source index, then line: frames of one place repeat in every event. */
  private readonly contexts = new Map<number, Map<number, Readonly<Record<string, string>> | null>>()
  private readonly displayPaths: (string | undefined)[] = []
  private readonly inProjectSources: (boolean | undefined)[] = []
  private readonly fetchedSources = new Map<number, string | null>()
  private readonly storedSources: ReadonlyMap<number, number>
  private readonly storedSourceTexts = new Map<number, string | null>()
  private definitions: Map<string, number[]> | null = null
  private minifiedLineStarts: number[] | null = null

  constructor(init: LoadedSourceMapInit) {
    this.key = init.key
    this.parsed = init.parsed
    this.mappings = new MapMappings(init.parsed.sections)
    this.projectRoot = init.projectRoot
    this.minified = init.minified
    this.sourceFiles = init.sourceFiles
    this.storedSources = init.storedSources ?? new Map()
    let files = 0
    for (const text of init.sourceFiles.values()) files += text.length
    this.fixedBytes = init.textBytes + this.mappings.indexBytes + (init.minified?.length ?? 0) * 2 + files
  }

  /**
   * Estimated memory held now. It grows as lookups decode chunks and load sources: the
   * symbolicator counts a map again after each batch that used it, so its cache holds as many
   * maps as their used parts fit (counting every map as fully decoded kept about 5 times fewer).
   */
  get bytes(): number {
    return this.fixedBytes + this.mappings.decodedCharacters * DECODED_BYTES_PER_CHARACTER + this.loadedSourceBytes
  }

  /**
   * The original position of a frame (1-based line, 1-based column as V8 and the notifiers
   * give them; a missing column reads as the start of the line). The nearest mapping at or
   * before the column, else the first after it; null when the line has none.
   */
  position(line: number, column: number | null): OriginalPosition | null {
    if (!Number.isInteger(line) || line < 1) return null
    const column0 = column === null || column < 1 ? 0 : column - 1
    try {
      let segment: readonly number[] | null = this.mappings.segmentAt(line - 1, column0)
      if (!segment || segment.length < 4) segment = this.mappings.findFrom(line - 1, column0, (after) => after.length >= 4)
      if (!segment || segment.length < 4) return null
      const sourceIndex = segment[1]!
      if (sourceIndex < 0 || sourceIndex >= this.parsed.sources.length) return null
      return {
        sourceIndex,
        line: segment[2]! + 1,
        column: segment[3]!,
        name: segment.length === 5 ? (this.parsed.names[segment[4]!] ?? null) : null,
      }
    } catch {
      // A mappings string that decodes to nonsense: no position rather than a failed batch.
      return null
    }
  }

  /** The source's path as written in the map (with sourceRoot, resolved against the map's URL for fetched maps). */
  sourcePath(index: number): string {
    return this.parsed.resolvedSources[index] ?? this.parsed.sources[index] ?? ''
  }

  /** The source as the map writes it (with sourceRoot, not resolved against a fetched map's URL), cleaned for people. */
  displayPath(index: number): string {
    return (this.displayPaths[index] ??= this.computeDisplayPath(index))
  }

  /** Whether the source is the developer's code (isInProject of its display path). */
  inProject(index: number): boolean {
    return (this.inProjectSources[index] ??= isInProject(this.displayPath(index)))
  }

  private computeDisplayPath(index: number): string {
    const source = this.parsed.sources[index] ?? ''
    const root = this.parsed.sourceRoot
    const written = root && !URL_WITH_SCHEME.test(source) && !source.startsWith('/') ? `${root.endsWith('/') ? root : `${root}/`}${source}` : source
    return displayPath(written, this.projectRoot)
  }

  /**
   * The source's text: sourcesContent (in the map, or stored apart and loaded), else an uploaded
   * source file whose field names it (rule 5: any one), else a fetched copy.
   */
  sourceText(index: number): string | null {
    const embedded = this.parsed.sourcesContent[index] ?? this.storedSourceTexts.get(index)
    if (typeof embedded === 'string') return embedded
    const uploaded = this.uploadedSource(index)
    if (uploaded !== null) return uploaded
    return this.fetchedSources.get(index) ?? null
  }

  private uploadedSource(index: number): string | null {
    if (this.sourceFiles.size === 0) return null
    const names = [this.parsed.sources[index], this.sourcePath(index), this.displayPath(index)].filter((name): name is string => !!name)
    for (const name of names) {
      const exact = this.sourceFiles.get(name)
      if (exact !== undefined) return exact
    }
    for (const [pattern, text] of this.sourceFiles) if (names.some((name) => wildcardMatch(pattern, name))) return text
    return null
  }

  /** Whether the map embeds this source, stored apart and not loaded yet (setStoredSource). */
  needsStoredSource(index: number): boolean {
    return this.storedSources.has(index) && !this.storedSourceTexts.has(index)
  }

  /** Records an embedded source read from where it was stored apart (null: it is gone). */
  setStoredSource(index: number, text: string | null): void {
    this.loadedSourceBytes += (text?.length ?? 0) - (this.storedSourceTexts.get(index)?.length ?? 0)
    this.storedSourceTexts.set(index, text)
    this.lines.delete(index)
    this.contexts.delete(index)
  }

  /** Whether the source's text is known, or would have to be fetched. */
  needsSourceFetch(index: number): boolean {
    return this.sourceText(index) === null && !this.fetchedSources.has(index)
  }

  /** Records a fetched source (null: the fetch failed; not tried again for this cached map). */
  setFetchedSource(index: number, text: string | null): void {
    this.loadedSourceBytes += (text?.length ?? 0) - (this.fetchedSources.get(index)?.length ?? 0)
    this.fetchedSources.set(index, text)
    this.lines.delete(index)
    this.contexts.delete(index)
  }

  /**
   * Up to CONTEXT_LINES lines each side of `line` (1-based), keyed by line number; null without
   * the source. The same object for every frame of that line: copy it before changing it (not
   * frozen, as copying a frozen object with numeric keys is 30 times slower).
   */
  codeContext(index: number, line: number): Readonly<Record<string, string>> | null {
    let byLine = this.contexts.get(index)
    if (!byLine) this.contexts.set(index, (byLine = new Map()))
    let code = byLine.get(line)
    if (code === undefined) byLine.set(line, (code = this.computeCodeContext(index, line)))
    return code
  }

  private computeCodeContext(index: number, line: number): Readonly<Record<string, string>> | null {
    let lines = this.lines.get(index)
    if (lines === undefined) {
      const text = this.sourceText(index)
      lines = text === null ? null : text.split(/\r\n|\r|\n/)
      this.lines.set(index, lines)
    }
    if (lines === null || line < 1 || line > lines.length) return null
    const code: Record<string, string> = {}
    for (let n = Math.max(1, line - CONTEXT_LINES); n <= Math.min(lines.length, line + CONTEXT_LINES); n++) {
      const text = lines[n - 1]!
      code[String(n)] = text.length > CONTEXT_LINE_CHARS ? text.slice(0, CONTEXT_LINE_CHARS) : text
    }
    return code
  }

  /**
   * The original name of the function a frame is in, from the minified file: the nearest
   * definition of the frame's minified function name before the frame's position, whose name
   * token the map names. Null without the minified file or such a definition.
   */
  definitionName(line: number, column: number | null, method: string | null): string | null {
    if (this.minified === null) return null
    const identifier = methodIdentifier(method)
    if (identifier === null) return null
    const definitions = this.definitionIndex()
    const starts = this.minifiedLineStarts!
    const offsets = definitions.get(identifier)
    if (!offsets || line < 1 || line > starts.length) return null
    const at = lastAtOrBefore(offsets, starts[line - 1]! + (column === null ? 0 : Math.max(0, column - 1)), number)
    if (at === -1) return null
    const offset = offsets[at]!
    const defLine = lastAtOrBefore(starts, offset, number)
    const defColumn = offset - starts[defLine]!
    // The first segment on the name token that carries a name.
    const named = this.mappings.findFrom(defLine, defColumn, (segment) => segment[0] > defColumn + identifier.length || segment.length === 5)
    return named && named.length === 5 && named[0] <= defColumn + identifier.length ? (this.parsed.names[named[4]] ?? null) : null
  }

  private definitionIndex(): Map<string, number[]> {
    if (this.definitions) return this.definitions
    const definitions = new Map<string, number[]>()
    const text = this.minified ?? ''
    for (const match of text.matchAll(DEFINITION)) {
      const group = match[1] ? 1 : match[2] ? 2 : 3
      const name = match[group]!
      if (KEYWORDS.has(name)) continue
      const offset = match.indices![group]![0]
      const list = definitions.get(name)
      if (list) list.push(offset)
      else definitions.set(name, [offset])
    }
    this.minifiedLineStarts = lineStarts(text)
    this.definitions = definitions
    return definitions
  }
}
