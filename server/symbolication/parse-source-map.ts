import resolveUri from '@jridgewell/resolve-uri'

/** The map's JSON text without a byte order mark and the XSSI guard `)]}'` (allowed by the source map spec). */
export const stripPrefix = (text: string) => text.replace(/^\uFEFF/, '').replace(/^\)\]\}'[^\n]*\n/, '')

/** A source map Errata cannot use; the message says why (upload refusals quote it). */
export class SourceMapError extends Error {}

/**
 * One regular map of a source map: the whole map, or one section of an index map. Its
 * `mappings` stay the encoded text; positions in it are relative to the section's start.
 */
export interface SourceMapSection {
  /** Where the section starts in the generated file: 0-based line, and column on that line. */
  line: number
  column: number
  mappings: string
  /** Index in the map's `sources` and `names` of this section's first source and name. */
  sourceOffset: number
  nameOffset: number
}

/**
 * A parsed version 3 source map. An index map keeps its sections as they are, each looked up
 * on its own: nothing is allocated per line or column a section's offset merely names (a
 * 136-byte map can name line 100,000,000), so memory and time follow the text's real size.
 */
export interface ParsedSourceMap {
  file: string | null
  /** Each source as the map writes it (an index map's: resolved against its section's sourceRoot). */
  sources: string[]
  /** The map's sourceRoot (null for an index map, whose sources already carry their sections'). */
  sourceRoot: string | null
  /** Each source resolved against sourceRoot and the map's URL. */
  resolvedSources: string[]
  /** Embedded sources, by source index (null where the map has none). */
  sourcesContent: (string | null)[]
  names: string[]
  /** In order of their start; one for a regular map. */
  sections: SourceMapSection[]
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
// Base64 VLQ digits and the separators: anything else is not a mappings string.
const MAPPINGS = /^[A-Za-z0-9+/,;]*$/

function checkStrings(map: Json, field: string, nullable: boolean, where: string) {
  const value = map[field]
  if (value === undefined) return
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' || (nullable && item === null))) {
    throw new SourceMapError(`${where}"${field}" must be a list of ${nullable ? 'strings (or null)' : 'strings'}`)
  }
}

/** The fields of a regular (not sectioned) version 3 map that lookups rely on. */
function checkRegularMap(map: Json, where: string) {
  if (map.version !== 3) throw new SourceMapError(`${where}"version" is ${JSON.stringify(map.version) ?? 'missing'}; only version 3 source maps are supported`)
  if (typeof map.mappings !== 'string') throw new SourceMapError(`${where}"mappings" is missing or not a string`)
  if (!MAPPINGS.test(map.mappings)) throw new SourceMapError(`${where}"mappings" holds characters that are not Base64 VLQ`)
  if (!Array.isArray(map.sources)) throw new SourceMapError(`${where}"sources" is missing or not a list`)
  checkStrings(map, 'sources', true, where)
  checkStrings(map, 'sourcesContent', true, where)
  checkStrings(map, 'names', false, where)
  if (map.sourceRoot !== undefined && map.sourceRoot !== null && typeof map.sourceRoot !== 'string') throw new SourceMapError(`${where}"sourceRoot" must be a string`)
}

/** The directory part of the map's URL, which relative sources resolve against (as trace-mapping does). */
const directoryOf = (url: string | undefined) => (url ? url.slice(0, url.lastIndexOf('/') + 1) : '')

/** A checked regular map's lists, appended to `into`, with its section's place. */
function addRegularMap(into: ParsedSourceMap, map: Json, at: { line: number; column: number }, mapUrl: string | undefined, sectioned: boolean) {
  const root = typeof map.sourceRoot === 'string' && map.sourceRoot !== '' ? map.sourceRoot : null
  const prefix = root === null ? '' : `${root}/`
  const base = directoryOf(mapUrl)
  const sources = (map.sources as (string | null)[]).map((source) => source ?? '')
  const contents = (map.sourcesContent as (string | null)[] | undefined) ?? []
  into.sections.push({ ...at, mappings: map.mappings as string, sourceOffset: into.sources.length, nameOffset: into.names.length })
  sources.forEach((source, index) => {
    const resolved = resolveUri(prefix + source, base)
    into.sources.push(sectioned ? resolved : source)
    into.resolvedSources.push(resolved)
    into.sourcesContent.push(contents[index] ?? null)
  })
  for (const name of (map.names as string[] | undefined) ?? []) into.names.push(name)
  if (!sectioned) into.sourceRoot = root
}

/**
 * Parses a version 3 source map (JSON text). Throws SourceMapError naming what is wrong: not
 * JSON, not version 3, fields of the wrong type, or an index map whose sections cannot be used
 * (a section that points at another map by `url`, a nested index map, sections out of order).
 * `mapUrl` resolves relative `sources`.
 */
export function parseSourceMap(text: string, mapUrl?: string): ParsedSourceMap {
  let json: unknown
  try {
    json = JSON.parse(stripPrefix(text))
  } catch (err) {
    throw new SourceMapError(`is not JSON (${(err as Error).message})`)
  }
  if (!isObject(json)) throw new SourceMapError('is not a JSON object')
  const parsed: ParsedSourceMap = {
    file: typeof json.file === 'string' ? json.file : null,
    sources: [],
    sourceRoot: null,
    resolvedSources: [],
    sourcesContent: [],
    names: [],
    sections: [],
  }
  if (json.sections === undefined) {
    checkRegularMap(json, '')
    addRegularMap(parsed, json, { line: 0, column: 0 }, mapUrl, false)
    return parsed
  }
  if (json.version !== 3) throw new SourceMapError(`"version" is ${JSON.stringify(json.version) ?? 'missing'}; only version 3 source maps are supported`)
  if (!Array.isArray(json.sections)) throw new SourceMapError('"sections" is not a list')
  let previous = { line: -1, column: -1 }
  json.sections.forEach((section: unknown, index) => {
    const where = `index map cannot be used: sections[${index}]: `
    if (!isObject(section)) throw new SourceMapError(`${where}is not an object`)
    if (section.url !== undefined && section.map === undefined) throw new SourceMapError(`${where}points at another map by "url"; embed it as "map" instead`)
    const offset = section.offset
    if (!isObject(offset) || !Number.isSafeInteger(offset.line) || !Number.isSafeInteger(offset.column) || (offset.line as number) < 0 || (offset.column as number) < 0) {
      throw new SourceMapError(`${where}"offset" must be {"line", "column"} with whole numbers`)
    }
    const at = { line: offset.line as number, column: offset.column as number }
    if (at.line < previous.line || (at.line === previous.line && at.column <= previous.column)) {
      throw new SourceMapError(`${where}starts before the section above it ends (sections must be in order)`)
    }
    previous = at
    if (!isObject(section.map)) throw new SourceMapError(`${where}"map" is not an object`)
    if (section.map.sections !== undefined) throw new SourceMapError(`${where}holds another index map`)
    checkRegularMap(section.map, where)
    addRegularMap(parsed, section.map, at, mapUrl, true)
  })
  return parsed
}
