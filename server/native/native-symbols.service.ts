// Native symbol files of a project: stored once indexed (index-symbol-file.ts), listed, deleted,
// and found for an event's modules. One row per (project, debug id, kind): a Breakpad .sym and an
// ELF object of the same library may both be held; a second upload of either is a duplicate
// unless it overwrites.
import { sql } from 'drizzle-orm'
import { gunzipSync, gzipSync } from 'node:zlib'
import type { NativeSymbolFile } from '../../contract/native.ts'
import { queryRows, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { ConflictError, NotFoundError } from '../failures.ts'
import type { IndexedSymbols } from './index-symbol-file.ts'

export type SymbolKind = 'breakpad' | 'elf'

export interface SymbolUpload {
  kind: SymbolKind
  indexed: IndexedSymbols
  /** The file as received (after any gzip was undone). */
  original: Buffer
  projectRoot: string | null
  /** What the upload tool said besides the file (version, product, appId, versionCode, …). */
  details: Record<string, string>
  overwrite: boolean
  uploadedBy: string | null
}

/** What 409 says, as the Breakpad symbol upload's contract words it (spec section 7). */
export const DUPLICATE_SYMBOLS = 'duplicate symbols file'

/** Stores an indexed upload; 409 for one already held unless it overwrites. Returns its id. */
export async function storeSymbolFile(db: Db, projectId: string, upload: SymbolUpload): Promise<string> {
  const { identity } = upload.indexed
  const id = newId()
  const values = sql`(${id}, ${projectId}, ${upload.kind}, ${identity.debugId}, ${identity.codeId}, ${identity.os}, ${identity.arch}, ${identity.moduleName},
    ${JSON.stringify(upload.details)}::jsonb, ${upload.projectRoot}, ${upload.indexed.hasSymbols}, ${upload.indexed.hasLineInfo}, ${upload.indexed.hasInlineInfo},
    ${upload.indexed.hasCfi}, ${upload.original.length}, ${upload.indexed.symcache}, ${gzipSync(upload.original)}, ${upload.uploadedBy})`
  const rows = await queryRows<{ id: string }>(
    db,
    sql`INSERT INTO native_symbols (id, project_id, kind, debug_id, code_id, os, arch, module_name, details, project_root,
        has_symbols, has_line_info, has_inline_info, has_cfi, size, symcache, original, uploaded_by)
      VALUES ${values}
      ON CONFLICT (project_id, debug_id, kind) ${
        upload.overwrite
          ? sql`DO UPDATE SET id = excluded.id, code_id = excluded.code_id, os = excluded.os, arch = excluded.arch, module_name = excluded.module_name,
              details = excluded.details, project_root = excluded.project_root, has_symbols = excluded.has_symbols,
              has_line_info = excluded.has_line_info, has_inline_info = excluded.has_inline_info, has_cfi = excluded.has_cfi,
              size = excluded.size, symcache = excluded.symcache, original = excluded.original, uploaded_by = excluded.uploaded_by, created_at = now()`
          : sql`DO NOTHING`
      }
      RETURNING id`,
  )
  if (!rows[0]) throw new ConflictError(DUPLICATE_SYMBOLS)
  return rows[0].id
}

interface ListRow {
  id: string
  kind: SymbolKind
  debug_id: string
  code_id: string | null
  os: string
  arch: string
  module_name: string
  details: Record<string, string>
  has_symbols: boolean
  has_line_info: boolean
  has_inline_info: boolean
  has_cfi: boolean
  size: number | string
  created_at: Date | string
  uploader_id: string | null
  uploader_name: string | null
}

const toFile = (r: ListRow): NativeSymbolFile => ({
  id: r.id,
  kind: r.kind,
  debug_id: r.debug_id,
  code_id: r.code_id,
  os: r.os,
  arch: r.arch,
  module_name: r.module_name,
  version: r.details.version ?? r.details.versionName ?? null,
  has_symbols: r.has_symbols,
  has_line_info: r.has_line_info,
  has_inline_info: r.has_inline_info,
  has_cfi: r.has_cfi,
  size: Number(r.size),
  uploaded_at: new Date(r.created_at).toISOString(),
  uploaded_by: r.uploader_id ? { id: r.uploader_id, name: r.uploader_name ?? '' } : null,
})

/** The project's symbol files (or the one `id` names), newest first. */
export async function listSymbolFiles(db: Db, projectId: string, id?: string): Promise<NativeSymbolFile[]> {
  const rows = await queryRows<ListRow>(
    db,
    sql`SELECT s.id, s.kind, s.debug_id, s.code_id, s.os, s.arch, s.module_name, s.details, s.has_symbols, s.has_line_info,
        s.has_inline_info, s.has_cfi, s.size, s.created_at, u.id AS uploader_id, coalesce(nullif(u.name, ''), u.email) AS uploader_name
      FROM native_symbols s LEFT JOIN users u ON u.id = s.uploaded_by
      WHERE s.project_id = ${projectId} ${id === undefined ? sql`` : sql`AND s.id = ${id}`} ORDER BY s.created_at DESC, s.id DESC`,
  )
  return rows.map(toFile)
}

export async function deleteSymbolFile(db: Db, projectId: string, id: string): Promise<void> {
  const rows = await queryRows<{ id: string }>(db, sql`DELETE FROM native_symbols WHERE project_id = ${projectId} AND id = ${id} RETURNING id`)
  if (!rows[0]) throw new NotFoundError('Symbol file')
}

/** A minidump event's dump as it was uploaded; 404 when the event has none (or is not the project's). */
export async function readMinidump(db: Db, projectId: string, eventId: string): Promise<Buffer> {
  const [row] = await queryRows<{ gzipped: Uint8Array }>(db, sql`SELECT gzipped FROM minidumps WHERE project_id = ${projectId} AND event_id = ${eventId}`)
  if (!row) throw new NotFoundError('Minidump')
  return gunzipSync(row.gzipped)
}

/** The size of the event's dump, when it came from one. */
export async function minidumpSize(db: Db, eventId: string): Promise<number | null> {
  const [row] = await queryRows<{ size: number | string }>(db, sql`SELECT size FROM minidumps WHERE event_id = ${eventId}`)
  return row ? Number(row.size) : null
}
