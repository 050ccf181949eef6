import { eq } from 'drizzle-orm'
import type { Database } from '../db/client.ts'
import { projects } from '../db/schema.ts'
import { UnauthorizedError } from '../http/errors.ts'

const TTL_MS = 30_000
// Unknown keys are remembered briefly too, so a misconfigured client cannot hammer the database.
const UNKNOWN_TTL_MS = 5_000
const MAX_ENTRIES = 10_000

interface Entry {
  projectId: string | null
  expires: number
}

// One cache per database: tests run several apps, each with its own database, in one process.
const caches = new WeakMap<Database, Map<string, Entry>>()

/**
 * The project an ingestion API key belongs to. Looked up on every POST /notify, so
 * answers are cached for 30 s; a deleted project's key keeps working that long at most.
 */
export async function projectIdForApiKey(database: Database, apiKey: string | null | undefined): Promise<string> {
  if (!apiKey) throw new UnauthorizedError('missing API key: send the Bugsnag-Api-Key header or apiKey in the body')
  let cache = caches.get(database)
  if (!cache) {
    cache = new Map()
    caches.set(database, cache)
  }
  const now = Date.now()
  let entry = cache.get(apiKey)
  if (!entry || entry.expires < now) {
    const rows = await database.db.select({ id: projects.id }).from(projects).where(eq(projects.apiKey, apiKey)).limit(1)
    const projectId = rows[0]?.id ?? null
    entry = { projectId, expires: now + (projectId ? TTL_MS : UNKNOWN_TTL_MS) }
    if (cache.size >= MAX_ENTRIES) cache.clear()
    cache.set(apiKey, entry)
  }
  if (!entry.projectId) throw new UnauthorizedError('invalid API key: no project has this API key')
  return entry.projectId
}
