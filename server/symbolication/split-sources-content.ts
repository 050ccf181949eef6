import { promisify } from 'node:util'
import { gzip } from 'node:zlib'

const gzipAsync = promisify(gzip)

/** A map stored apart from its embedded sources: what a cold lookup reads, and each source on its own. */
export interface SplitSourceMap {
  /** The map's JSON without `sourcesContent`, gzip'd. */
  map: Buffer
  /** Each embedded source (by its index in `sources`), as UTF-8 bytes before and gzip'd after. */
  sources: { index: number; size: number; gzipped: Buffer }[]
}

/**
 * Most of a large map's bytes are usually `sourcesContent`, which only code context needs, one
 * source at a time. Stored apart, a cold lookup decompresses and parses only mappings, names
 * and sources (docs/source-maps.md, "Storage"). Null when there is nothing to split off: no
 * `sourcesContent`, or an index map (`sections`, kept whole).
 */
export async function splitSourcesContent(json: Record<string, unknown>): Promise<SplitSourceMap | null> {
  const contents = json.sourcesContent
  if (json.sections !== undefined || !Array.isArray(contents) || !contents.some((text) => typeof text === 'string')) return null
  const { sourcesContent: _split, ...rest } = json
  const sources: SplitSourceMap['sources'] = []
  for (const [index, text] of contents.entries()) {
    if (typeof text !== 'string') continue
    const bytes = Buffer.from(text, 'utf8')
    sources.push({ index, size: bytes.length, gzipped: await gzipAsync(bytes) })
  }
  return { map: await gzipAsync(Buffer.from(JSON.stringify(rest), 'utf8')), sources }
}
