// The build's hashed files (dist/assets/), sent from memory: a page load asks for about 16 of them
// at once, beside its first API requests, from the same process. Through serveStatic each one cost
// two `stat` calls, a read stream and its conversion to a web stream and back; their bytes never
// change under their name (Vite puts a content hash in it), so each is read once, on its first
// request, and sent as one buffer with its headers made once. The precompressed copies the build
// writes beside them (vite.config.ts, `precompress`) go to a browser that takes them.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { MiddlewareHandler } from 'hono'
import { getMimeType } from 'hono/utils/mime'
import type { AppEnv } from '../context.ts'

/** Cached for good: a new build gives its files new names. */
export const IMMUTABLE = 'public, max-age=31536000, immutable'

const ENCODINGS = [
  ['br', '.br'],
  ['gzip', '.gz'],
] as const

interface Sent {
  body: Uint8Array<ArrayBuffer>
  headers: Record<string, string>
}

/**
 * Answers GET (and so HEAD) of `/assets/<name>` for the files the build wrote (listed once at start);
 * anything else (a file written since, a source map, a name not in the build) goes on to `next`.
 * Source maps, fetched only by devtools and the largest files, are not kept in memory.
 */
export function hashedAssets(root: string): MiddlewareHandler<AppEnv> {
  const dir = join(root, 'assets')
  let names: Set<string>
  try {
    names = new Set(readdirSync(dir))
  } catch {
    names = new Set()
  }
  const sent = new Map<string, Sent>()
  const load = (name: string, file: string, encoding: string | null): Sent => {
    let found = sent.get(file)
    if (!found) {
      const body = new Uint8Array(readFileSync(join(dir, file)))
      const headers: Record<string, string> = {
        'Content-Type': getMimeType(name) ?? 'application/octet-stream',
        'Content-Length': String(body.length),
        'Cache-Control': IMMUTABLE,
      }
      // Every file with copies varies by what the browser takes, the file as built included.
      if (names.has(`${name}.br`) || names.has(`${name}.gz`)) headers.Vary = 'Accept-Encoding'
      if (encoding) headers['Content-Encoding'] = encoding
      found = { body, headers }
      sent.set(file, found)
    }
    return found
  }
  return async (c, next) => {
    const name = c.req.path.slice('/assets/'.length)
    // (Hono answers HEAD with its GET handlers, the body left out.)
    if (c.req.method !== 'GET' || !names.has(name) || name.endsWith('.map')) return next()
    // As serveStatic reads it: the tokens as listed (one with parameters, `br;q=0`, is not taken).
    const accepted = new Set((c.req.header('Accept-Encoding') ?? '').split(',').map((token) => token.trim()))
    const [encoding, suffix] = ENCODINGS.find(([token, ending]) => accepted.has(token) && names.has(`${name}${ending}`)) ?? [null, '']
    const { body, headers } = load(name, `${name}${suffix}`, encoding)
    return c.body(body, 200, headers)
  }
}
