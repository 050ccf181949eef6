import { createHash } from 'node:crypto'
import type { CodeLines } from '../events/stored-frames.ts'

// A loaded map hands out one object per source line window (LoadedSourceMap.codeContext), so
// each window is hashed once while its map stays cached.
const hashes = new WeakMap<CodeLines, string>()

/** The snippet's content address: SHA-256 of its JSON text, base64url, 128 bits. */
export function snippetHash(code: CodeLines): string {
  let hash = hashes.get(code)
  if (hash === undefined) {
    hash = createHash('sha256').update(JSON.stringify(code)).digest('base64url').slice(0, 22)
    hashes.set(code, hash)
  }
  return hash
}
