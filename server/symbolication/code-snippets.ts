import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { Db } from '../db/client.ts'
import { insertCodeSnippets, type CodeLines } from '../events/stored-frames.ts'

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

export interface CodeSnippetStore {
  /**
   * Makes sure each snippet exists for the project (one INSERT … ON CONFLICT DO NOTHING for the
   * ones this process has not written or seen written); rejects when the database does.
   */
  save(projectId: string, snippets: ReadonlyMap<string, CodeLines>): Promise<void>
}

/**
 * Snippets known to exist are remembered (a bounded LRU of project and hash), so steady-state
 * ingestion, whose frames keep landing on the same lines, writes nothing extra. Rows are only
 * removed with their project, whose events go with them.
 */
export function createCodeSnippetStore(db: Db, knownMax = 200_000): CodeSnippetStore {
  const known = new LRUCache<string, true>({ max: knownMax })
  return {
    async save(projectId, snippets) {
      const missing = new Map<string, CodeLines>()
      for (const [hash, code] of snippets) if (!known.has(`${projectId}\n${hash}`)) missing.set(hash, code)
      if (missing.size === 0) return
      await insertCodeSnippets(db, projectId, missing)
      for (const hash of missing.keys()) known.set(`${projectId}\n${hash}`, true)
    },
  }
}
