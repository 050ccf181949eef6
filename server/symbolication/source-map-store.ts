import { promisify } from 'node:util'
import { gunzip } from 'node:zlib'
import { sql } from 'drizzle-orm'
import { queryRows, type Db } from '../db/client.ts'
import { textArrayLiteral } from '../db/text-array.ts'
import type { UploadCandidate } from './match-uploads.ts'

const gunzipAsync = promisify(gunzip)

export interface CandidateQuery {
  projectId: string
  /** Events received up to this time: later uploads never apply (rule 6). */
  receivedUpTo: Date
  /** App versions of the events, '' for events without one. */
  appVersions: Iterable<string>
  /** Code bundle ids of the events (none empty). */
  codeBundleIds: Iterable<string>
  /** Every form of the frames' files an upload's minifiedUrl could equal; wildcard patterns are read whatever these are. */
  files: Iterable<string>
  /** Whether React Native uploads are wanted (matched by platform, not URL). */
  reactNative: boolean
}

interface CandidateRow {
  id: string
  kind: 'js' | 'react_native'
  minified_url: string
  app_version: string
  code_bundle_id: string
  platform: string
  app_version_code: string
  dev: boolean
  project_root: string | null
  uploaded_at: Date | string
}

/**
 * The uploads that may apply to a batch of one project's events: made before the newest of them
 * was received, for one of their versions, and naming one of their files exactly or by a
 * wildcard pattern (React Native: any file). One query per project and batch, through the
 * (project_id, kind, app_version, …) index.
 */
export async function findCandidates(db: Db, query: CandidateQuery): Promise<UploadCandidate[]> {
  const versions = textArrayLiteral(new Set(query.appVersions))
  const bundles = textArrayLiteral(new Set(query.codeBundleIds))
  const files = textArrayLiteral(new Set(query.files))
  const rows = await queryRows<CandidateRow>(
    db,
    sql`SELECT id, kind, minified_url, app_version, code_bundle_id, platform, app_version_code, dev, project_root, uploaded_at
      FROM source_maps
      WHERE project_id = ${query.projectId} AND kind IN ('js', 'react_native') AND uploaded_at <= ${query.receivedUpTo.toISOString()}::timestamptz
        AND (app_version = ANY(${versions}::text[]) OR code_bundle_id = ANY(${bundles}::text[]))
        AND (${query.reactNative ? sql`kind = 'react_native' OR ` : sql``}(kind = 'js' AND (minified_url = ANY(${files}::text[]) OR strpos(minified_url, '*') > 0)))`,
  )
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    minifiedUrl: row.minified_url,
    appVersion: row.app_version,
    codeBundleId: row.code_bundle_id,
    platform: row.platform,
    appVersionCode: row.app_version_code,
    dev: row.dev,
    projectRoot: row.project_root,
    uploadedAt: new Date(row.uploaded_at),
  }))
}

export interface UploadFiles {
  map: string | null
  mapBytes: number
  minified: string | null
  sources: Map<string, string>
  /** Sources the map embeds, stored apart (read with loadStoredSources): index → size in bytes. */
  storedSources: Map<number, number>
}

const gunzipText = async (base64: string) => (await gunzipAsync(Buffer.from(base64, 'base64'))).toString('utf8')

/** An upload's files, decompressed (null when the upload was deleted meanwhile), without the sources its map embeds. */
export async function loadUploadFiles(db: Db, sourceMapId: string): Promise<UploadFiles | null> {
  // As base64: reading bytea took PGlite 170 ms for an 840 KB file (its hex form decoded in
  // JavaScript), base64 10 ms. The sources stored apart (often hundreds) come as one row of
  // "index:size" pairs: a row each took a third of the query's time.
  const rows = await queryRows<{ role: string; name: string; size_bytes: number | string; content: string | null }>(
    db,
    sql`SELECT role, name, size_bytes, encode(content, 'base64') AS content
      FROM source_map_files WHERE source_map_id = ${sourceMapId} AND role <> 'source_content'
      UNION ALL
      SELECT 'source_content', string_agg(name || ':' || size_bytes, ','), 0, NULL
      FROM source_map_files WHERE source_map_id = ${sourceMapId} AND role = 'source_content' HAVING count(*) > 0`,
  )
  if (rows.length === 0) return null
  const files: UploadFiles = { map: null, mapBytes: 0, minified: null, sources: new Map(), storedSources: new Map() }
  for (const row of rows) {
    if (row.role === 'source_content') {
      for (const pair of row.name.split(',')) {
        const [index, size] = pair.split(':')
        files.storedSources.set(Number(index), Number(size))
      }
      continue
    }
    const text = await gunzipText(row.content!)
    if (row.role === 'map') {
      files.map = text
      files.mapBytes = text.length
    } else if (row.role === 'minified') files.minified = text
    else if (row.role === 'source') files.sources.set(row.name, text)
  }
  return files
}

/** Sources an upload's map embeds, stored apart, by index (one query); an index not stored is left out. */
export async function loadStoredSources(db: Db, sourceMapId: string, indexes: Iterable<number>): Promise<Map<number, string>> {
  const names = textArrayLiteral([...indexes].map(String))
  const rows = await queryRows<{ name: string; content: string }>(
    db,
    sql`SELECT name, encode(content, 'base64') AS content FROM source_map_files
      WHERE source_map_id = ${sourceMapId} AND role = 'source_content' AND name = ANY(${names}::text[])`,
  )
  const texts = new Map<number, string>()
  for (const row of rows) texts.set(Number(row.name), await gunzipText(row.content))
  return texts
}

/** Adds to each upload's events_mapped in one statement. */
export async function addEventsMapped(db: Db, counts: ReadonlyMap<string, number>): Promise<void> {
  if (counts.size === 0) return
  const values = sql.join(
    [...counts].map(([id, n]) => sql`(${id}, ${n}::bigint)`),
    sql`, `,
  )
  await db.execute(sql`UPDATE source_maps SET events_mapped = source_maps.events_mapped + counted.n
    FROM (VALUES ${values}) AS counted (id, n) WHERE source_maps.id = counted.id`)
}
