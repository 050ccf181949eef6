import { Hono, type Context } from 'hono'
import type { AppEnv } from '../context.ts'
import { Failure, UnauthorizedError, ValidationError } from '../failures.ts'
import { projectIdForApiKey } from '../ingest/accept/project-keys.ts'
import { admitUploadOrDrain, bodyStream, readMultipartUpload, type ReceivedUpload } from './multipart-upload.ts'
import { inspectSourceMap } from './inspect-source-map.ts'
import { storeUpload } from './source-maps-upload.service.ts'
import { takeUploadSlot } from './upload-slots.ts'
import { readUploadForm, SCALAR_FIELDS, type UploadKind } from './upload-form.ts'

/** An upload may hold this many files of the largest size together (a map, its minified file and sources). */
export const TOTAL_FILES_FACTOR = 4
const MAX_PARTS = 2000
const API_KEY_FORMAT = /^[0-9a-f]{32}$/

class ApiKeyError extends Failure {
  constructor(message: string) {
    super('unauthenticated', [`apiKey: ${message}`])
  }
}

/** The project an upload's apiKey names, or 401 naming the field. */
async function projectForApiKey(c: Context<AppEnv>, apiKey: string): Promise<string> {
  const key = apiKey.trim()
  if (key === '') throw new ApiKeyError("missing; send the project's API key in the apiKey field")
  if (!API_KEY_FORMAT.test(key)) throw new ApiKeyError('is not an API key (32 lowercase hexadecimal characters)')
  try {
    return await projectIdForApiKey(c.var.deps.database, key)
  } catch (err) {
    if (err instanceof UnauthorizedError) throw new ApiKeyError('no project has this API key')
    throw err
  }
}

/**
 * Who an upload is for: the project its apiKey field names (the upload tools), or the project
 * the API's edge resolved for a signed-in user, who must not send an apiKey.
 */
type UploadAuthority = { by: 'api_key' } | { by: 'user'; projectId: string; userId: string }

async function receiveUpload(c: Context<AppEnv>, kind: UploadKind, authority: UploadAuthority): Promise<{ projectId: string; upload: ReceivedUpload }> {
  const contentType = c.req.header('Content-Type') ?? ''
  if (!/^multipart\/form-data\b/i.test(contentType)) {
    throw new Failure('unsupported media type', [`Content-Type: expected multipart/form-data, not "${contentType.slice(0, 80) || 'none'}"`])
  }
  const maxFileBytes = c.var.deps.config.sourceMaps.maxFileBytes
  let projectId = authority.by === 'user' ? authority.projectId : null
  try {
    const upload = await readMultipartUpload(bodyStream(c), contentType, {
      scalarFields: SCALAR_FIELDS[kind],
      maxFileBytes,
      maxTotalBytes: maxFileBytes * TOTAL_FILES_FACTOR,
      maxParts: MAX_PARTS,
      // The key comes first from the upload tools: an unknown one is refused before the files are read.
      authorizeBy: {
        field: 'apiKey',
        check: async (apiKey) => {
          if (authority.by === 'api_key') projectId = await projectForApiKey(c, apiKey ?? '')
          else if (apiKey !== undefined) throw new ValidationError("apiKey: not used on this endpoint; the signed-in user's token authorizes the upload")
        },
      },
    })
    // The check has passed before the upload is returned: the project is known.
    return { projectId: projectId!, upload }
  } catch (err) {
    // The client may still be sending what was not read: it reconnects for anything else.
    if (err instanceof Failure && err.kind === 'too large') c.header('Connection', 'close')
    throw err
  }
}

/** Receives, checks and stores one upload; its id. */
async function acceptUpload(c: Context<AppEnv>, kind: UploadKind, authority: UploadAuthority): Promise<string> {
  const release = takeUploadSlot(c)
  try {
    await admitUploadOrDrain(c, c.var.deps.config.sourceMaps.maxFileBytes * TOTAL_FILES_FACTOR)
    const { projectId, upload } = await receiveUpload(c, kind, authority)
    const request = readUploadForm(kind, upload)
    const summary = await inspectSourceMap(request.map.gzipped, request.map.size)
    return await storeUpload(c.var.deps.database.db, projectId, request, summary, authority.by === 'user' ? authority.userId : null)
  } finally {
    release()
  }
}

async function handleUpload(c: Context<AppEnv>, kind: UploadKind) {
  await acceptUpload(c, kind, { by: 'api_key' })
  return c.text('OK', 200)
}

/**
 * A browser or Node source map uploaded by a signed-in user through the Data Access API (the
 * dashboard's form): the same fields, checks and answers as POST /sourcemap, without apiKey; the
 * project is the one the API's edge authorized, and the upload is recorded as the user's.
 * Returns the new upload's id.
 */
export function uploadSourceMapAsUser(c: Context<AppEnv>, projectId: string): Promise<string> {
  return acceptUpload(c, 'js', { by: 'user', projectId, userId: c.var.user.id })
}

/**
 * The source map upload endpoints of Bugsnag's upload API ({upload_url} is the server's root),
 * used by @bugsnag/source-maps: POST /sourcemap (browser and Node) and
 * POST /react-native-source-map. docs/source-maps.md describes the fields and answers.
 */
export const sourceMapUploadRoutes = new Hono<AppEnv>()
  .post('/sourcemap', (c) => handleUpload(c, 'js'))
  .post('/react-native-source-map', (c) => handleUpload(c, 'react_native'))
