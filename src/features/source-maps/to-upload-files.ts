/**
 * What the upload form makes of the files dropped on it: which is the source map (checked the
 * way the server checks it: JSON, version 3), which its minified file, and which of the others
 * are sources the map names without embedding them. Pure, so it is tested without a browser.
 */

/** What the form needs from a version 3 source map. */
export interface SourceMapFacts {
  /** The map's own `file`: the minified file's name or URL, if the bundler wrote it. */
  file: string | null
  sources: string[]
  /** Sources whose text the map carries (`sourcesContent`): no file needed for their code. */
  embedded: boolean[]
}

export type SourceMapCheck = { ok: true; facts: SourceMapFacts } | { ok: false; problem: string }

/**
 * Checks a map's text as the server will (parse-source-map.ts), so a wrong file is caught before
 * its upload: JSON, an object, `version` 3, `sources` (or `sections` of an index map).
 */
export function checkSourceMap(text: string, fileName: string): SourceMapCheck {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    return { ok: false, problem: `${fileName} is not JSON (${(err as Error).message}); a source map is a JSON file` }
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return { ok: false, problem: `${fileName} is JSON but not a source map: expected an object with "version": 3` }
  }
  const map = json as Record<string, unknown>
  if (map.version !== 3) {
    return { ok: false, problem: `${fileName}: "version" is ${JSON.stringify(map.version) ?? 'missing'}; only version 3 source maps are supported` }
  }
  const file = typeof map.file === 'string' && map.file.trim() !== '' ? map.file : null
  if (Array.isArray(map.sections)) {
    // An index map: its sections' sources, as the server reads them.
    const sections = map.sections as { map?: Record<string, unknown> }[]
    const sources: string[] = []
    const embedded: boolean[] = []
    for (const section of sections) {
      const inner = section?.map
      if (!inner || typeof inner !== 'object') continue
      const facts = readSources(inner)
      sources.push(...facts.sources)
      embedded.push(...facts.embedded)
    }
    return { ok: true, facts: { file, sources, embedded } }
  }
  if (!Array.isArray(map.sources)) return { ok: false, problem: `${fileName}: "sources" is missing; it is not a usable source map` }
  if (typeof map.mappings !== 'string') return { ok: false, problem: `${fileName}: "mappings" is missing; it is not a usable source map` }
  return { ok: true, facts: { file, ...readSources(map) } }
}

function readSources(map: Record<string, unknown>): Pick<SourceMapFacts, 'sources' | 'embedded'> {
  const sources = Array.isArray(map.sources) ? map.sources.map((source) => (typeof source === 'string' ? source : '')) : []
  const content = Array.isArray(map.sourcesContent) ? map.sourcesContent : []
  return { sources, embedded: sources.map((_, index) => typeof content[index] === 'string') }
}

/** The last segment of a path or URL, without a query string. */
export const baseName = (path: string): string => {
  const bare = path.replace(/[?#].*$/, '')
  return bare.slice(bare.lastIndexOf('/') + 1)
}

/**
 * The URL pattern to suggest: the map's `file` when it is a URL already, else any URL ending in
 * its name (a `*`, a slash, then `app.min.js`); without a `file`, the map's own name less `.map`.
 */
export function suggestMinifiedUrl(facts: SourceMapFacts, mapFileName: string): string {
  if (facts.file && /^[a-z][a-z0-9+.-]*:\/\//i.test(facts.file)) return facts.file
  const name = baseName(facts.file ?? mapFileName.replace(/\.map$/i, ''))
  return name === '' ? '' : `*/${name}`
}

export interface DroppedFile<F> {
  file: F
  role: 'map' | 'minified' | 'source' | 'unused'
  /** For a source: the field name it is sent under (the map's name for it). */
  field: string | null
  /** Why an unused file is not sent. */
  note: string | null
}

interface NamedFile {
  name: string
}

/**
 * Sorts dropped files: the first `.map` is the map; the file the map names (`file`), else the one
 * named like the map less `.map`, else the only script, is the minified file; a file whose name
 * ends one of the map's sources is that source, sent under the map's name for it. Others are
 * listed as not sent, with the reason.
 */
export function sortDroppedFiles<F extends NamedFile>(files: readonly F[], facts: SourceMapFacts | null): DroppedFile<F>[] {
  const mapFile = files.find((file) => /\.map$/i.test(file.name))
  const mapName = mapFile ? mapFile.name.replace(/\.map$/i, '') : null
  const wanted = [facts?.file ? baseName(facts.file) : null, mapName].filter((name): name is string => !!name)
  const scripts = files.filter((file) => file !== mapFile && /\.(m|c)?jsx?$|\.bundle$/i.test(file.name))
  const minified =
    files.find((file) => file !== mapFile && wanted.includes(file.name)) ?? (scripts.length === 1 && !facts?.sources.some((source) => baseName(source) === scripts[0]!.name) ? scripts[0] : undefined)

  return files.map((file): DroppedFile<F> => {
    if (file === mapFile) return { file, role: 'map', field: null, note: null }
    if (file === minified) return { file, role: 'minified', field: null, note: null }
    if (/\.map$/i.test(file.name)) return { file, role: 'unused', field: null, note: 'one source map an upload; upload it on its own' }
    if (!facts) return { file, role: 'unused', field: null, note: 'drop a .map file first' }
    const matches = facts.sources.filter((source) => baseName(source) === file.name)
    if (matches.length === 0) return { file, role: 'unused', field: null, note: 'the source map names no source of this name' }
    // Two sources of one name (src/a/index.js, src/b/index.js): the longest common tail cannot
    // be told from a bare file name, so the first is used and the others say so.
    return { file, role: 'source', field: matches[0]!, note: matches.length > 1 ? `also named by ${matches.length - 1} other source(s); sent as ${matches[0]}` : null }
  })
}

/** Sources whose text neither the map nor a dropped file gives: their frames get no code. */
export function sourcesWithoutCode(facts: SourceMapFacts, dropped: readonly DroppedFile<NamedFile>[]): string[] {
  const given = new Set(dropped.filter((entry) => entry.role === 'source').map((entry) => entry.field))
  return facts.sources.filter((source, index) => !facts.embedded[index] && !given.has(source))
}
