// The native symbol upload endpoints of Bugsnag's upload API, on the main port ({upload_url} is
// the server's root), answered as the tools that use them expect (docs/native.md):
// - POST /minidump-symbol and POST /breakpad-symbol (where Breakpad's sym_upload and the Bugsnag
//   CLI send): a Breakpad text symbol file in `symbol_file`, the key in the `api_key` query
//   parameter (or an `apiKey` field); 200 "OK"; the refusals in the contract's words.
// - POST /ndk-symbol (the Android Gradle plugin and the Bugsnag CLI): an ELF object, a debug-only
//   extract, or gzip of either, in `soFile`, the key in `apiKey`; 202 "Accepted".
// Each streams (busboy) under its documented limit, refused with 413 while it streams.
import type { Readable } from 'node:stream'
import { Hono, type Context } from 'hono'
import { gunzipSync } from 'node:zlib'
import type { AppEnv } from '../context.ts'
import { Failure, UnauthorizedError, ValidationError } from '../failures.ts'
import { projectIdForApiKey } from '../ingest/accept/project-keys.ts'
import { admitUploadOrDrain, bodyStream, readMultipartUpload, type ReceivedFile, type ReceivedUpload } from '../source-maps/multipart-upload.ts'
import { takeUploadSlot } from '../source-maps/upload-slots.ts'
import { indexSymbolFile, type SymbolHints } from './index-symbol-file.ts'
import { storeSymbolFile, type SymbolKind } from './native-symbols.service.ts'

const BREAKPAD_FIELDS = new Set(['apiKey', 'api_key', 'version', 'os', 'cpu', 'debug_file', 'code_file', 'debug_identifier', 'product', 'overwrite', 'project_root'])
const NDK_FIELDS = new Set(['apiKey', 'appId', 'versionCode', 'sharedObjectName', 'versionName', 'projectRoot', 'overwrite', 'arch'])
const MAX_PARTS = 50

const isTrue = (value: string | undefined) => value !== undefined && /^(true|1|yes)$/i.test(value.trim())

/** The project of an upload key, refused in the contract's words ("missing api_key", "invalid api_key"). */
async function projectOf(c: Context<AppEnv>, key: string | undefined, name: 'api_key' | 'apiKey'): Promise<string> {
  if (key === undefined || key.trim() === '') throw new UnauthorizedError(`missing ${name}`)
  try {
    return await projectIdForApiKey(c.var.deps.database, key.trim())
  } catch (err) {
    if (err instanceof UnauthorizedError) throw new UnauthorizedError(`invalid ${name}`)
    throw err
  }
}

/**
 * Who an upload is for: the project an upload key names — `queryKey` (checked before the body is
 * read) or else the `apiKey` field (checked as soon as it arrives, before any file is kept) — or
 * the project the API's edge authorized for a signed-in user (the dashboard's form).
 */
export type UploadAuthority = { by: 'key'; queryKey: string | undefined; keyName: 'api_key' | 'apiKey' } | { by: 'user'; projectId: string; userId: string }

export async function receiveNativeUpload(
  c: Context<AppEnv>,
  fields: ReadonlySet<string>,
  authority: UploadAuthority,
  limit: { bytes: number; setting: string },
  body: Readable = bodyStream(c),
): Promise<{ projectId: string; upload: ReceivedUpload }> {
  const contentType = c.req.header('Content-Type') ?? ''
  if (!/^multipart\/form-data\b/i.test(contentType)) {
    throw new Failure('unsupported media type', [`Content-Type: expected multipart/form-data, not "${contentType.slice(0, 80) || 'none'}"`])
  }
  let projectId = authority.by === 'user' ? authority.projectId : authority.queryKey !== undefined ? await projectOf(c, authority.queryKey, authority.keyName) : null
  try {
    const upload = await readMultipartUpload(body, contentType, {
      scalarFields: fields,
      maxFileBytes: limit.bytes,
      maxFileSetting: limit.setting,
      maxTotalBytes: limit.bytes + 1024 * 1024,
      maxParts: MAX_PARTS,
      authorizeBy: {
        field: 'apiKey',
        check: async (apiKey) => {
          if (authority.by === 'user') {
            if (apiKey !== undefined) throw new ValidationError("apiKey: not used on this endpoint; the signed-in user's token authorizes the upload")
          } else if (projectId === null) projectId = await projectOf(c, apiKey, authority.keyName)
        },
      },
    })
    return { projectId: projectId!, upload }
  } catch (err) {
    if (err instanceof Failure && err.kind === 'too large') c.header('Connection', 'close')
    throw err
  }
}

/** The one file of an upload in `field` (sent as a file, not as text), gunzip'd from the spool. */
export function fileOf(upload: ReceivedUpload, field: string, missing: string): { file: ReceivedFile; bytes: Buffer } {
  const file = upload.files.findLast((f) => f.field === field)
  if (!file || file.size === 0) throw new ValidationError(missing)
  return { file, bytes: gunzipSync(file.gzipped) }
}

async function accept(
  c: Context<AppEnv>,
  kind: SymbolKind,
  read: (upload: ReceivedUpload) => { bytes: Buffer; hints: SymbolHints; projectRoot: string | null; overwrite: boolean; details: Record<string, string> },
  fields: ReadonlySet<string>,
  authority: UploadAuthority,
): Promise<string> {
  const release = takeUploadSlot(c)
  try {
    await admitUploadOrDrain(c, c.var.deps.config.native.maxSymbolFileBytes)
    const limit = { bytes: c.var.deps.config.native.maxSymbolFileBytes, setting: 'ERRATA_MAX_SYMBOL_FILE_BYTES' }
    const { projectId, upload } = await receiveNativeUpload(c, fields, authority, limit)
    const { bytes, hints, projectRoot, overwrite, details } = read(upload)
    const indexed = await indexSymbolFile(kind, bytes, hints, c.var.deps.config.native.maxSymbolFileBytes)
    const uploadedBy = authority.by === 'user' ? authority.userId : null
    return await storeSymbolFile(c.var.deps.database.db, projectId, { kind, indexed, original: bytes, projectRoot, details, overwrite, uploadedBy })
  } finally {
    release()
  }
}

const detailsOf = (upload: ReceivedUpload, names: readonly string[]) =>
  Object.fromEntries(names.flatMap((name) => (upload.fields.get(name)?.trim() ? [[name, upload.fields.get(name)!.trim()]] : [])))

/** Receives a Breakpad .sym upload; its id. */
export function acceptBreakpadUpload(c: Context<AppEnv>, authority: UploadAuthority): Promise<string> {
  const query = authority.by === 'key' ? c.req.query() : {}
  return accept(
    c,
    'breakpad',
    (upload) => {
      const { bytes } = fileOf(upload, 'symbol_file', 'missing symbol_file')
      const details = detailsOf(upload, ['version', 'os', 'cpu', 'debug_file', 'code_file', 'debug_identifier', 'product'])
      return {
        bytes,
        hints: { field: 'symbol_file', debugId: details.debug_identifier, os: details.os, cpu: details.cpu, moduleName: details.code_file ?? details.debug_file },
        projectRoot: (query.project_root ?? upload.fields.get('project_root'))?.trim() || null,
        overwrite: isTrue(query.overwrite ?? upload.fields.get('overwrite')),
        details,
      }
    },
    BREAKPAD_FIELDS,
    authority,
  )
}

/** Receives an ELF object upload; its id. */
export function acceptElfUpload(c: Context<AppEnv>, authority: UploadAuthority): Promise<string> {
  return accept(
    c,
    'elf',
    (upload) => {
      const { bytes } = fileOf(upload, 'soFile', 'missing soFile')
      const details = detailsOf(upload, ['appId', 'versionCode', 'versionName', 'sharedObjectName', 'arch'])
      return {
        bytes,
        hints: { field: 'soFile', moduleName: details.sharedObjectName },
        projectRoot: upload.fields.get('projectRoot')?.trim() || null,
        overwrite: isTrue(upload.fields.get('overwrite')),
        details,
      }
    },
    NDK_FIELDS,
    authority,
  )
}

async function breakpadUpload(c: Context<AppEnv>) {
  await acceptBreakpadUpload(c, { by: 'key', queryKey: c.req.query('api_key'), keyName: 'api_key' })
  return c.text('OK', 200)
}

export const symbolUploadRoutes = new Hono<AppEnv>()
  .post('/minidump-symbol', breakpadUpload)
  .post('/breakpad-symbol', breakpadUpload)
  .post('/ndk-symbol', async (c) => {
    await acceptElfUpload(c, { by: 'key', queryKey: undefined, keyName: 'apiKey' })
    return c.text('Accepted', 202)
  })
