import { and, eq, sql } from 'drizzle-orm'
import { withTransaction, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { sourceMapFiles, sourceMaps } from '../db/schema.ts'
import { ConflictError } from '../failures.ts'
import type { SourceMapSummary } from './inspect-source-map.ts'
import type { UploadIdentity, UploadRequest } from './upload-form.ts'

function sameIdentity(identity: UploadIdentity, projectId: string) {
  return and(
    eq(sourceMaps.projectId, projectId),
    eq(sourceMaps.kind, identity.kind),
    eq(sourceMaps.appVersion, identity.appVersion),
    eq(sourceMaps.codeBundleId, identity.codeBundleId),
    eq(sourceMaps.minifiedUrl, identity.minifiedUrl),
    eq(sourceMaps.platform, identity.platform),
    eq(sourceMaps.appVersionCode, identity.appVersionCode),
    eq(sourceMaps.dev, identity.dev),
  )
}

/** The identity as one string, for the advisory lock uploads of it take turns on. */
function identityKey(identity: UploadIdentity, projectId: string): string {
  const { kind, appVersion, codeBundleId, minifiedUrl, platform, appVersionCode, dev } = identity
  return JSON.stringify(['source map', projectId, kind, appVersion, codeBundleId, minifiedUrl, platform, appVersionCode, dev])
}

function describe(identity: UploadIdentity): string {
  const versions = [
    identity.appVersion === '' ? 'no appVersion' : `appVersion "${identity.appVersion}"`,
    ...(identity.codeBundleId === '' ? [] : [`codeBundleId "${identity.codeBundleId}"`]),
    ...(identity.appVersionCode === '' ? [] : [`version code "${identity.appVersionCode}"`]),
  ].join(', ')
  return identity.kind === 'js'
    ? `minifiedUrl: a source map for "${identity.minifiedUrl}" with ${versions} was uploaded already`
    : `platform: a ${identity.dev ? 'dev' : 'release'} ${identity.platform} source map with ${versions} was uploaded already`
}

/**
 * Stores an upload and its files in one transaction. With overwrite the upload of the same
 * URL pattern and versions is replaced (its files and its count go with it); without, such an
 * upload answers 409. Returns the new upload's id.
 *
 * Uploads of one identity take turns (a transaction-level advisory lock on it, released at
 * commit): each sees the one before it committed, so concurrent overwrites all succeed and the
 * last one stays, on PostgreSQL as on the embedded database.
 */
export async function storeUpload(
  db: Db,
  projectId: string,
  request: UploadRequest,
  summary: SourceMapSummary,
  uploadedBy: string | null = null,
): Promise<string> {
  const { identity } = request
  const id = newId()
  const { split } = summary
  const files = [
    // With its sourcesContent split off, the map row holds the rest: its size stays the map's as sent.
    { role: 'map' as const, name: '', file: split ? { size: request.map.size, gzipped: split.map } : request.map },
    ...(request.minified ? [{ role: 'minified' as const, name: '', file: request.minified }] : []),
    ...request.sources.map((file) => ({ role: 'source' as const, name: file.field, file })),
  ]
  // Each embedded source on its own (name: its index in the map's sources), read only for code context.
  const contents = (split?.sources ?? []).map((source) => ({
    role: 'source_content' as const,
    name: String(source.index),
    file: { size: source.size, gzipped: source.gzipped },
  }))
  const row = {
    id,
    projectId,
    ...identity,
    projectRoot: request.projectRoot,
    mapFile: summary.mapFile,
    sourcesCount: summary.sourcesCount,
    hasMinified: request.minified !== null,
    sizeBytes: files.reduce((sum, entry) => sum + entry.file.size, 0),
    storedBytes: [...files, ...contents].reduce((sum, entry) => sum + entry.file.gzipped.length, 0),
    uploadedBy,
    uploadedAt: new Date(),
  }
  await withTransaction(db, async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${identityKey(identity, projectId)}, 0))`)
    if (request.overwrite) await tx.delete(sourceMaps).where(sameIdentity(identity, projectId))
    const inserted = await tx.insert(sourceMaps).values(row).onConflictDoNothing().returning({ id: sourceMaps.id })
    if (inserted.length === 0) throw new ConflictError(
        `${describe(identity)}; to replace it, upload again with overwrite=true (the CLI's --overwrite; in the dashboard, tick "Replace an earlier upload")`,
      )
    // Distinct names only: a source field sent twice keeps its last copy.
    const byName = new Map([...files, ...contents].map((entry) => [`${entry.role}\n${entry.name}`, entry]))
    // Sent as base64 and decoded by the database: a bytea parameter is written out as hex by the
    // drivers, which took PGlite 2 s on the HTTP thread for a 3 MB file (base64: 0.3 s).
    for (const entry of byName.values()) {
      await tx.insert(sourceMapFiles).values({
        sourceMapId: id,
        role: entry.role,
        name: entry.name,
        sizeBytes: entry.file.size,
        content: sql`decode(${entry.file.gzipped.toString('base64')}, 'base64')`,
      })
    }
  })
  return id
}
