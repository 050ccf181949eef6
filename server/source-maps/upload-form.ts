import { Failure, ValidationError } from '../failures.ts'
import type { ReceivedFile, ReceivedUpload } from './multipart-upload.ts'

export type UploadKind = 'js' | 'react_native'

/** What makes two uploads the same one (overwrite replaces it): the unique index of source_maps. */
export interface UploadIdentity {
  kind: UploadKind
  minifiedUrl: string
  appVersion: string
  codeBundleId: string
  platform: string
  appVersionCode: string
  dev: boolean
}

/** A checked upload, ready to be stored once its map is read. */
export interface UploadRequest {
  identity: UploadIdentity
  projectRoot: string | null
  overwrite: boolean
  map: ReceivedFile
  minified: ReceivedFile | null
  sources: ReceivedFile[]
}

/** The text fields of each endpoint (spec section 4, and the React Native capture); other fields are files. */
export const SCALAR_FIELDS: Record<UploadKind, ReadonlySet<string>> = {
  js: new Set(['apiKey', 'appVersion', 'codeBundleId', 'minifiedUrl', 'projectRoot', 'overwrite']),
  react_native: new Set(['apiKey', 'appVersion', 'codeBundleId', 'platform', 'dev', 'appVersionCode', 'appBundleVersion', 'projectRoot', 'overwrite']),
}

const MAX_WILDCARDS = 16
const MAX_VERSION_CHARS = 1024
// A path as curl sends it for `-F field=path` (no `@`): one line, no spaces or code punctuation.
const LOOKS_LIKE_A_PATH = /^[^\s{}();=<>"'`]+$/

export class NothingToUploadError extends Failure {
  constructor(messages: string[]) {
    super('unprocessable', ['Nothing to upload', ...messages])
  }
}

function flag(name: string, value: string | undefined, fallback: boolean, problems: string[]): boolean {
  if (value === undefined) return fallback
  const text = value.trim().toLowerCase()
  if (['true', '1', 'yes'].includes(text)) return true
  if (['false', '0', 'no', ''].includes(text)) return false
  problems.push(`${name}: must be true or false, not "${value.slice(0, 40)}"`)
  return fallback
}

function text(name: string, value: string | undefined, problems: string[], max = MAX_VERSION_CHARS): string {
  if (value === undefined) return ''
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) problems.push(`${name}: must not contain control characters (line breaks, tabs, NUL)`)
  else if (value.length > max) problems.push(`${name}: is longer than ${max} characters`)
  return value
}

/**
 * Whether a file field really holds a file: sent as a plain value, a source map is content only
 * when it is JSON, and anything else when it is not a bare path. Empty files hold nothing either.
 */
function notUploaded(file: ReceivedFile, json: boolean, mayBeEmpty = false): string | null {
  if (file.size === 0) return mayBeEmpty ? null : `${file.field}: the file is empty`
  if (!file.asText) return null
  const isContent = json ? /^\s*(\{|\)\]\})/.test(file.preview) : !LOOKS_LIKE_A_PATH.test(file.preview) || file.size > 4096
  if (isContent) return null
  const shown = file.preview.length > 80 ? `${file.preview.slice(0, 80)}…` : file.preview
  return `${file.field}: got the text "${shown}" instead of a file; send the file's content (with curl, put @ before the path: -F '${file.field}=@${shown}')`
}

/**
 * The fields of POST /sourcemap or POST /react-native-source-map, checked: 400 naming each
 * missing or malformed field, 422 "Nothing to upload" when file fields carry paths (or nothing)
 * instead of files. The API key is checked separately (before the files are read).
 */
export function readUploadForm(kind: UploadKind, upload: ReceivedUpload): UploadRequest {
  const { fields } = upload
  const problems: string[] = []
  const files = new Map(upload.files.map((file) => [file.field, file]))
  const map = files.get('sourceMap')
  const minifiedField = kind === 'js' ? 'minifiedFile' : 'bundle'
  const minified = files.get(minifiedField) ?? null
  const sources = kind === 'js' ? [...files.values()].filter((file) => file.field !== 'sourceMap' && file.field !== 'minifiedFile') : []

  let minifiedUrl = ''
  let platform = ''
  if (kind === 'js') {
    minifiedUrl = text('minifiedUrl', fields.get('minifiedUrl')?.trim(), problems, 2048)
    if (minifiedUrl === '') problems.push('minifiedUrl: missing; send the URL (or, for Node, the path) of the minified file, * wildcards allowed')
    else if ((minifiedUrl.match(/\*/g)?.length ?? 0) > MAX_WILDCARDS) problems.push(`minifiedUrl: has more than ${MAX_WILDCARDS} * wildcards`)
  } else {
    platform = fields.get('platform')?.trim().toLowerCase() ?? ''
    if (platform === '') problems.push('platform: missing; send android or ios')
    else if (platform !== 'android' && platform !== 'ios') problems.push(`platform: must be android or ios, not "${platform.slice(0, 40)}"`)
  }
  const appVersion = text('appVersion', fields.get('appVersion'), problems)
  const codeBundleId = text('codeBundleId', fields.get('codeBundleId'), problems)
  const versionCodeField = platform === 'ios' ? 'appBundleVersion' : 'appVersionCode'
  const appVersionCode = kind === 'js' ? '' : text(versionCodeField, fields.get(versionCodeField) ?? fields.get(platform === 'ios' ? 'appVersionCode' : 'appBundleVersion'), problems)
  const projectRoot = text('projectRoot', fields.get('projectRoot'), problems)
  const overwrite = flag('overwrite', fields.get('overwrite'), false, problems)
  const dev = kind === 'js' ? false : flag('dev', fields.get('dev'), false, problems)
  for (const source of sources) {
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(source.field)) problems.push(`${JSON.stringify(source.field)}: a source file's field name (its URL) must not contain control characters`)
  }
  if (!map) problems.push(`sourceMap: missing; send the source map file in the sourceMap field`)
  if (problems.length > 0) throw new ValidationError(problems)

  const empty = [notUploaded(map!, true), minified && notUploaded(minified, false), ...sources.map((file) => notUploaded(file, false, true))].filter(
    (message): message is string => message !== null,
  )
  if (empty.length > 0) throw new NothingToUploadError(empty)

  return {
    identity: { kind, minifiedUrl, appVersion, codeBundleId, platform, appVersionCode, dev },
    projectRoot: projectRoot === '' ? null : projectRoot,
    overwrite,
    map: map!,
    minified,
    sources,
  }
}
