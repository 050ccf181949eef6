import { AnyMap, TraceMap } from '@jridgewell/trace-mapping'

/** The map's JSON text without a byte order mark and the XSSI guard `)]}'` (allowed by the source map spec). */
export const stripPrefix = (text: string) => text.replace(/^\uFEFF/, '').replace(/^\)\]\}'[^\n]*\n/, '')

/** A source map Errata cannot use; the message says why (upload refusals quote it). */
export class SourceMapError extends Error {}

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

/**
 * Parses a version 3 source map (JSON text) into a TraceMap, flattening an index map
 * (`sections`) into one. Throws SourceMapError naming what is wrong: not JSON, not version 3,
 * fields of the wrong type, or sections that cannot be flattened (a section that points at
 * another map by `url`, overlapping sections). `mapUrl` resolves relative `sources`.
 */
export function parseSourceMap(text: string, mapUrl?: string): TraceMap {
  let json: unknown
  try {
    json = JSON.parse(stripPrefix(text))
  } catch (err) {
    throw new SourceMapError(`is not JSON (${(err as Error).message})`)
  }
  if (!isObject(json)) throw new SourceMapError('is not a JSON object')
  if (json.sections === undefined) {
    checkRegularMap(json, '')
    return new TraceMap(json as never, mapUrl ?? null)
  }
  if (json.version !== 3) throw new SourceMapError(`"version" is ${JSON.stringify(json.version) ?? 'missing'}; only version 3 source maps are supported`)
  if (!Array.isArray(json.sections)) throw new SourceMapError('"sections" is not a list')
  let previous = { line: -1, column: -1 }
  json.sections.forEach((section: unknown, index) => {
    const where = `sections[${index}]: `
    if (!isObject(section)) throw new SourceMapError(`index map cannot be flattened: ${where}is not an object`)
    if (section.url !== undefined && section.map === undefined) {
      throw new SourceMapError(`index map cannot be flattened: ${where}points at another map by "url"; embed it as "map" instead`)
    }
    const offset = section.offset
    if (!isObject(offset) || !Number.isInteger(offset.line) || !Number.isInteger(offset.column) || (offset.line as number) < 0 || (offset.column as number) < 0) {
      throw new SourceMapError(`index map cannot be flattened: ${where}"offset" must be {"line", "column"} with whole numbers`)
    }
    const at = { line: offset.line as number, column: offset.column as number }
    if (at.line < previous.line || (at.line === previous.line && at.column <= previous.column)) {
      throw new SourceMapError(`index map cannot be flattened: ${where}starts before the section above it ends (sections must be in order)`)
    }
    previous = at
    if (!isObject(section.map)) throw new SourceMapError(`index map cannot be flattened: ${where}"map" is not an object`)
    if (section.map.sections !== undefined) throw new SourceMapError(`index map cannot be flattened: ${where}holds another index map`)
    checkRegularMap(section.map, `index map cannot be flattened: ${where}`)
  })
  try {
    return new AnyMap(json as never, mapUrl ?? null)
  } catch (err) {
    throw new SourceMapError(`index map cannot be flattened: ${(err as Error).message}`)
  }
}
