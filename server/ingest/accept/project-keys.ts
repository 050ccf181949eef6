import { eq } from 'drizzle-orm'
import type { Database, Db } from '../../db/client.ts'
import { projects } from '../../db/schema.ts'
import { UnauthorizedError } from '../../failures.ts'

const TTL_MS = 30_000
// Unknown keys are remembered briefly too, so a misconfigured client cannot hammer the database.
const UNKNOWN_TTL_MS = 5_000
const MAX_ENTRIES = 10_000
/** What newApiKey makes (and Bugsnag's keys look like): anything else is no project's key. */
const API_KEY_FORMAT = /^[0-9a-f]{32}$/

interface Entry {
  projectId: string | null
  expires: number
}

interface Cache {
  entries: Map<string, Entry>
  /** Moves on whenever keys are forgotten, so a lookup that started before does not store a stale answer. */
  generation: number
}

// One cache per database: tests run several apps, each with its own database, in one process.
// Keyed by the query layer, which services hold (forgetProjectApiKeys).
const caches = new WeakMap<Db, Cache>()

function cacheOf(db: Db): Cache {
  let cache = caches.get(db)
  if (!cache) {
    cache = { entries: new Map(), generation: 0 }
    caches.set(db, cache)
  }
  return cache
}

/** Drops expired entries; when all are current (many keys in 30 s), starts afresh. */
function sweep(cache: Map<string, Entry>, now: number) {
  for (const [key, entry] of cache) if (entry.expires < now) cache.delete(key)
  if (cache.size >= MAX_ENTRIES) cache.clear()
}

/**
 * The project an ingestion API key belongs to. Looked up on every POST /notify, so
 * answers are cached for 30 s. A replaced key, or a deleted project's, stops working at once in
 * this process (forgetProjectApiKeys), within 30 s in other processes sharing the PostgreSQL database.
 */
export async function projectIdForApiKey(database: Database, apiKey: string | null | undefined): Promise<string> {
  if (!apiKey) throw new UnauthorizedError('missing API key: send the Bugsnag-Api-Key header or apiKey in the body')
  // Checked before the cache and the database: an unauthenticated client must not fill memory
  // with huge keys, nor reach PostgreSQL with text it cannot take (a NUL).
  if (!API_KEY_FORMAT.test(apiKey)) {
    throw new UnauthorizedError('invalid API key: an API key is 32 lowercase hexadecimal characters')
  }
  const cache = cacheOf(database.db)
  const now = Date.now()
  let entry = cache.entries.get(apiKey)
  if (!entry || entry.expires < now) {
    const generation = cache.generation
    const rows = await database.db.select({ id: projects.id }).from(projects).where(eq(projects.apiKey, apiKey)).limit(1)
    const projectId = rows[0]?.id ?? null
    entry = { projectId, expires: now + (projectId ? TTL_MS : UNKNOWN_TTL_MS) }
    // Keys were forgotten meanwhile: this answer may be from before the change, so use it once.
    if (generation === cache.generation) {
      if (cache.entries.size >= MAX_ENTRIES) sweep(cache.entries, now)
      cache.entries.set(apiKey, entry)
    }
  }
  if (!entry.projectId) throw new UnauthorizedError('invalid API key: no project has this API key')
  return entry.projectId
}

/**
 * Forgets this process's cached answers for the project's keys, after its API key changed: the
 * old key is refused from the next request on. Other processes on the same PostgreSQL
 * database keep their answers for up to 30 s.
 */
export function forgetProjectApiKeys(db: Db, projectId: string): void {
  const cache = caches.get(db)
  if (!cache) return
  cache.generation += 1
  for (const [key, entry] of cache.entries) if (entry.projectId === projectId) cache.entries.delete(key)
}
