// The project's native symbol files (server/native/) as loaded SymCaches, for the process stage's
// symbolication and the minidump endpoint's stack walk: which file serves a module (by its debug
// id), and the file's SymCache, read once and kept in an LRU bounded by bytes. An overwritten
// upload gets a new id, so a cached SymCache is never stale.
import { sql } from 'drizzle-orm'
import { LRUCache } from 'lru-cache'
import type { Logger } from 'pino'
import { queryRows, type Db } from '../db/client.ts'
import { textArrayLiteral } from '../db/text-array.ts'
import { SymCache } from './native/symcache.ts'

export interface LoadedSymbols {
  /** The native_symbols row. */
  id: string
  projectRoot: string | null
  cache: SymCache
}

export class NativeSymbolStore {
  private readonly caches: LRUCache<string, SymCache>

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    cacheBytes: number,
  ) {
    this.caches = new LRUCache<string, SymCache>({ maxSize: cacheBytes, sizeCalculation: (cache) => Math.max(1, cache.byteLength) })
  }

  /**
   * Per debug id of `debugIds`: the project's symbol file for it, loaded. `for: 'lines'` (frames):
   * a file with line info first, then the newest; `for: 'cfi'` (stack walking): only files with
   * unwind records, the newest.
   */
  async find(projectId: string, debugIds: Iterable<string>, use: 'lines' | 'cfi'): Promise<Map<string, LoadedSymbols>> {
    const ids = [...new Set(debugIds)]
    const out = new Map<string, LoadedSymbols>()
    if (ids.length === 0) return out
    const rows = await queryRows<{ id: string; debug_id: string; project_root: string | null }>(
      this.db,
      sql`SELECT DISTINCT ON (debug_id) id, debug_id, project_root FROM native_symbols
        WHERE project_id = ${projectId} AND debug_id = ANY(${textArrayLiteral(ids)}::text[]) ${use === 'cfi' ? sql`AND has_cfi` : sql``}
        ORDER BY debug_id, ${use === 'lines' ? sql`has_line_info DESC,` : sql``} created_at DESC, id DESC`,
    )
    for (const row of rows) {
      const cache = await this.load(row.id)
      if (cache) out.set(row.debug_id, { id: row.id, projectRoot: row.project_root, cache })
    }
    return out
  }

  private async load(id: string): Promise<SymCache | null> {
    const cached = this.caches.get(id)
    if (cached) return cached
    const [row] = await queryRows<{ symcache: Uint8Array }>(this.db, sql`SELECT symcache FROM native_symbols WHERE id = ${id}`)
    if (!row) return null
    try {
      const cache = SymCache.fromBuffer(Buffer.from(row.symcache.buffer, row.symcache.byteOffset, row.symcache.byteLength))
      this.caches.set(id, cache)
      return cache
    } catch (err) {
      this.logger.error({ err, symbolFile: id }, 'a stored symbol file cannot be read; its frames stay unsymbolicated')
      return null
    }
  }
}
