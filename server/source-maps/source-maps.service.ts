import { and, count, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm'
import type { ListSourceMapsQuery, SourceMap } from '../../contract/source-maps.ts'
import type { ProjectScope } from '../auth/scope.ts'
import type { Db } from '../db/client.ts'
import { sourceMaps, users } from '../db/schema.ts'
import { decodeCursor, encodeCursor, type Cursor } from '../http/cursor.ts'
import { NotFoundError, ValidationError } from '../failures.ts'
import type { UrlBuilder } from '../http/urls.ts'

const columns = {
  upload: sourceMaps,
  userName: users.name,
  userEmail: users.email,
  cursorValue: sql<string>`to_char(${sourceMaps.uploadedAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
}

type Row = { upload: typeof sourceMaps.$inferSelect; userName: string | null; userEmail: string | null }

const orNull = (value: string) => (value === '' ? null : value)

function toSourceMap(urls: UrlBuilder, { upload, userName, userEmail }: Row): SourceMap {
  return {
    id: upload.id,
    project_id: upload.projectId,
    type: upload.kind,
    minified_url: upload.kind === 'js' ? upload.minifiedUrl : null,
    app_version: orNull(upload.appVersion),
    code_bundle_id: orNull(upload.codeBundleId),
    platform: orNull(upload.platform),
    app_version_code: orNull(upload.appVersionCode),
    dev: upload.dev,
    project_root: upload.projectRoot,
    map_file: upload.mapFile,
    sources_count: upload.sourcesCount,
    has_minified_file: upload.hasMinified,
    size_bytes: upload.sizeBytes,
    stored_bytes: upload.storedBytes,
    uploaded_by: upload.uploadedBy === null ? { type: 'api_key' } : { type: 'user', id: upload.uploadedBy, name: userName, email: userEmail },
    uploaded_at: upload.uploadedAt.toISOString(),
    events_mapped: upload.eventsMapped,
    url: urls.api(`/projects/${upload.projectId}/source_maps/${upload.id}`),
  }
}

const listOf = (projectId: string) => `source_maps|${projectId}|uploaded_at|desc`
// Exactly what cursorValue writes.
const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/

function readCursor(text: string, projectId: string): Cursor {
  const cursor = decodeCursor(text, listOf(projectId))
  if (typeof cursor.v !== 'string' || !CURSOR_TIME.test(cursor.v) || Number.isNaN(Date.parse(cursor.v))) {
    throw new ValidationError('cursor: is not a cursor this server issued (use the Link rel="next" address)')
  }
  return cursor
}

/** `text` inside an ILIKE pattern, its wildcards taken literally. */
const likeContaining = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

function searchCondition(q: string | undefined): SQL | undefined {
  const text = q?.trim()
  if (!text) return undefined
  if (text.includes('\u0000')) throw new ValidationError('q: must not contain NUL characters')
  return or(ilike(sourceMaps.minifiedUrl, likeContaining(text)), ilike(sourceMaps.appVersion, likeContaining(text)))
}

export interface SourceMapsPage {
  sourceMaps: SourceMap[]
  nextCursor: string | null
  totalCount: number
}

/** A page of the project's uploads, newest first (keyset by uploaded_at, then id). Any member of the project. */
export async function listSourceMaps(db: Db, urls: UrlBuilder, { projectId }: ProjectScope, query: ListSourceMapsQuery): Promise<SourceMapsPage> {
  const cursor = query.cursor === undefined ? undefined : readCursor(query.cursor, projectId)
  const search = searchCondition(query.q)
  const after = cursor && sql`(${sourceMaps.uploadedAt}, ${sourceMaps.id}) < (${cursor.v}::timestamptz, ${cursor.id})`
  const [rows, totals] = await Promise.all([
    db
      .select(columns)
      .from(sourceMaps)
      .leftJoin(users, eq(users.id, sourceMaps.uploadedBy))
      .where(and(eq(sourceMaps.projectId, projectId), search, after))
      .orderBy(desc(sourceMaps.uploadedAt), desc(sourceMaps.id))
      .limit(query.per_page + 1),
    db.select({ n: count() }).from(sourceMaps).where(and(eq(sourceMaps.projectId, projectId), search)),
  ])
  const page = rows.slice(0, query.per_page)
  const last = page[page.length - 1]
  return {
    sourceMaps: page.map((row) => toSourceMap(urls, row)),
    nextCursor: rows.length > query.per_page && last ? encodeCursor({ v: last.cursorValue, id: last.upload.id }, listOf(projectId)) : null,
    totalCount: totals[0]?.n ?? 0,
  }
}

export async function getSourceMap(db: Db, urls: UrlBuilder, { projectId }: ProjectScope, sourceMapId: string): Promise<SourceMap> {
  const rows = await db
    .select(columns)
    .from(sourceMaps)
    .leftJoin(users, eq(users.id, sourceMaps.uploadedBy))
    .where(and(eq(sourceMaps.projectId, projectId), eq(sourceMaps.id, sourceMapId)))
  if (!rows[0]) throw new NotFoundError('Source map')
  return toSourceMap(urls, rows[0])
}

/** Deletes an upload and its files (the route is for admins). Events it mapped keep their mapped frames. */
export async function deleteSourceMap(db: Db, { projectId }: ProjectScope, sourceMapId: string): Promise<void> {
  const deleted = await db
    .delete(sourceMaps)
    .where(and(eq(sourceMaps.projectId, projectId), eq(sourceMaps.id, sourceMapId)))
    .returning({ id: sourceMaps.id })
  if (deleted.length === 0) throw new NotFoundError('Source map')
}
