import type { UrlFetcher } from './fetch-url.ts'
import { LoadedSourceMap } from './loaded-source-map.ts'
import { parseSourceMap, SourceMapError } from './parse-source-map.ts'

/**
 * The `sourceMappingURL` a minified file names: its `SourceMap` (or `X-SourceMap`) header, else
 * the last `//# sourceMappingURL=` (or legacy `//@`, or a CSS-style block) comment.
 */
export function sourceMappingUrl(text: string, header: string | undefined): string | null {
  if (header && header.trim() !== '') return header.trim()
  const at = text.lastIndexOf('sourceMappingURL=')
  if (at === -1) return null
  const before = text.slice(Math.max(0, at - 4), at)
  if (!/(?:\/\/|\/\*)\s*[#@]\s*$/.test(before)) return null
  const reference = /sourceMappingURL=([^\s'"*]+)/y
  reference.lastIndex = at
  return reference.exec(text)?.[1] ?? null
}

/** The JSON text of a `data:application/json;base64,…` (or percent-encoded) URL. */
function decodeDataUrl(url: string): string | null {
  const comma = url.indexOf(',')
  if (comma === -1) return null
  const meta = url.slice(5, comma)
  const data = url.slice(comma + 1)
  try {
    return /;base64$/i.test(meta) ? Buffer.from(data, 'base64').toString('utf8') : decodeURIComponent(data)
  } catch {
    return null
  }
}

/**
 * The map of a minified file nothing was uploaded for (spec rule 7): fetches the file, follows
 * its sourceMappingURL (inline `data:` maps included) and parses the map, its relative sources
 * resolved against the map's address. An error says what failed, for the event's symbolication.
 */
export async function fetchSourceMapForUrl(fetcher: UrlFetcher, minifiedUrl: string): Promise<LoadedSourceMap | { error: string }> {
  const minified = await fetcher.fetchText(minifiedUrl)
  if (!minified.ok) return { error: `could not fetch ${minifiedUrl}: ${minified.reason}` }
  const reference = sourceMappingUrl(minified.text, minified.headers.sourcemap)
  if (!reference) return { error: `${minifiedUrl} names no sourceMappingURL` }
  let mapText: string | null
  let mapUrl: string | undefined
  if (/^data:/i.test(reference)) {
    mapText = decodeDataUrl(reference)
    mapUrl = minifiedUrl
    if (mapText === null) return { error: `the inline source map of ${minifiedUrl} cannot be decoded` }
  } else {
    try {
      mapUrl = new URL(reference, minifiedUrl).href
    } catch {
      return { error: `${minifiedUrl} names a sourceMappingURL that is not a URL` }
    }
    const fetched = await fetcher.fetchText(mapUrl)
    if (!fetched.ok) return { error: `could not fetch the source map ${mapUrl}: ${fetched.reason}` }
    mapText = fetched.text
  }
  try {
    const parsed = parseSourceMap(mapText, mapUrl)
    return new LoadedSourceMap({ key: `url:${minifiedUrl}`, parsed, textBytes: mapText.length, projectRoot: null, minified: minified.text, sourceFiles: new Map() })
  } catch (err) {
    return { error: `the source map ${mapUrl} ${err instanceof SourceMapError ? err.message : 'could not be read'}` }
  }
}
