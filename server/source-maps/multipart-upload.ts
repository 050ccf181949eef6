import { createWriteStream } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable, Transform, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import busboy from 'busboy'
import type { Context } from 'hono'
import type { IncomingMessage } from 'node:http'
import type { ReadableStream as WebReadableStream } from 'node:stream/web'
import type { AppEnv } from '../context.ts'
import { Failure, ValidationError } from '../failures.ts'

/** A file of an upload, gzip'd as it arrived. */
export interface ReceivedFile {
  /** The form field: `sourceMap`, `minifiedFile`, `bundle`, or a source file's URL. */
  field: string
  gzipped: Buffer
  /** Bytes as sent. */
  size: number
  /**
   * Sent as a plain form value rather than a file part (curl's `-F field=path` without `@`):
   * then `preview` holds its first characters, to tell a path from content.
   */
  asText: boolean
  preview: string
}

export interface ReceivedUpload {
  /** The text fields named in `scalarFields` (the last value of a repeated field wins). */
  fields: Map<string, string>
  /** Every other field, file parts and text values alike, in the order sent. */
  files: ReceivedFile[]
}

export interface MultipartOptions {
  /** The text fields kept as strings; every other field is a file. */
  scalarFields: ReadonlySet<string>
  /**
   * Who may send the upload, decided by one of its scalar fields (the API key): `check` is called
   * as soon as that field arrives (the upload tools send it first), or with undefined once the body
   * has ended without it. A rejection refuses the upload, whose remaining parts are then read and
   * dropped. No file is read into memory before the check has passed (see readMultipartUpload).
   */
  authorizeBy: { field: string; check: (value: string | undefined) => Promise<void> }
  /** Largest file (or text value); past it the upload is refused with 413 while it streams. */
  maxFileBytes: number
  /** The setting that sets maxFileBytes, as the 413 names it; default ERRATA_MAX_SOURCE_MAP_BYTES. */
  maxFileSetting?: string
  /** Largest upload, all files together. */
  maxTotalBytes: number
  /** Most parts (fields and files). */
  maxParts: number
}

/** Longest value of a scalar field (apiKey, appVersion, minifiedUrl, …). */
export const MAX_SCALAR_CHARS = 4096
/** Largest value of a part sent without a filename: busboy holds such a value whole in memory. */
export const MAX_TEXT_VALUE_BYTES = 1024 * 1024
/** Longest field name (a source file's field is named by its URL). */
export const MAX_FIELD_NAME_CHARS = 2048
// After a refusal the rest of the body is read and dropped, up to this much, so that the client
// reads the answer instead of a reset connection (the upload tools retry on a network error).
const DRAIN_BYTES = 64 * 1024 * 1024
const PREVIEW_CHARS = 200

export class PayloadTooLargeUploadError extends Failure {
  constructor(message: string) {
    super('too large', [message])
  }
}

/** A part of the upload, gzip'd into a file of the upload's temporary directory. */
interface SpooledPart extends Omit<ReceivedFile, 'gzipped'> {
  path: string
}

/**
 * Reads a multipart/form-data upload as it streams (busboy): text fields named in
 * `scalarFields` as strings, everything else gzip'd part by part into owner-only files of a
 * temporary directory (TMPDIR), read into memory only once the body has ended and
 * `authorizeBy.check` has passed; the directory is removed whatever the outcome. Until then an
 * upload holds little memory however large its files: a text value being read (at most
 * MAX_TEXT_VALUE_BYTES), its scalar fields and part names, and stream buffers.
 *
 * Sizes are enforced while reading: a file past `maxFileBytes`, or an upload past
 * `maxTotalBytes`, stops being kept and the upload is refused with 413 once the rest of the body
 * has been read (up to 64 MiB more; past that the answer goes at once). A body that is not valid
 * multipart, or ends before its closing boundary, answers 400; a client that goes away mid-body
 * is forgotten.
 */
export async function readMultipartUpload(source: Readable, contentType: string, options: MultipartOptions): Promise<ReceivedUpload> {
  let parser: busboy.Busboy
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      limits: { fieldSize: Math.min(options.maxFileBytes, MAX_TEXT_VALUE_BYTES) + 1, parts: options.maxParts },
      defParamCharset: 'utf8',
    })
  } catch (err) {
    throw new Failure('unsupported media type', [`Content-Type: expected multipart/form-data with a boundary (${(err as Error).message})`])
  }
  // mkdtemp makes it owner-only (0700); the files in it are 0600.
  const spool = await mkdtemp(join(tmpdir(), 'errata-upload-'))
  try {
    const { fields, parts } = await receive(source, parser, spool, options)
    const files: ReceivedFile[] = []
    for (const { path, ...part } of parts) files.push({ ...part, gzipped: await readFile(path) })
    return { fields, files }
  } finally {
    // A part's file stream refused mid-way may still be opening its file (creating it) while its
    // pipeline has already failed: rm retries on ENOTEMPTY rather than failing the upload with it.
    await rm(spool, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 })
  }
}

/** busboy's complaints about a body, as the client is told them. */
function invalidBody(err: Error): ValidationError {
  if (/^Unexpected end of (form|file)$/.test(err.message)) return new ValidationError('body: ends before its closing boundary: the upload is incomplete')
  if (err.message === 'Malformed part header') return new ValidationError("body: a part's headers are malformed")
  return new ValidationError(`body: is not valid multipart/form-data (${err.message})`)
}

const discard = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done()
    },
  })

/**
 * Parses the body into the spool; settles once every part has been read (or dropped) and the
 * authorization has settled, so nothing writes to the spool afterwards.
 *
 * Busboy hands over each part as a stream that must be read to its end (the parse waits for it)
 * and that it destroys with an error when the body breaks off: every part is read through
 * `pipeline`, which always listens for that error. A part's error is the body's: busboy reports it
 * too (first), and that report is the answer.
 */
function receive(source: Readable, parser: busboy.Busboy, spool: string, options: MultipartOptions): Promise<{ fields: Map<string, string>; parts: SpooledPart[] }> {
  const { scalarFields, authorizeBy, maxFileBytes, maxTotalBytes, maxParts, maxFileSetting = 'ERRATA_MAX_SOURCE_MAP_BYTES' } = options
  return new Promise((resolve, reject) => {
    const fields = new Map<string, string>()
    const parts: SpooledPart[] = []
    const pending: Promise<unknown>[] = []
    let total = 0
    let refusal: Error | null = null
    let authorizing = false
    let read = 0
    let readAtRefusal = 0
    let settled = false

    const finish = (err: Error | null) => {
      if (settled) return
      settled = true
      source.off('data', countRead)
      if (err) {
        source.unpipe(parser)
        // Ends the part being read, if any (its pipeline fails, and is waited for below).
        parser.destroy()
        // Keep reading what is left and drop it, so the client's writes do not fail.
        source.resume()
      }
      void Promise.allSettled(pending).then(() => (err ? reject(err) : resolve({ fields, parts })))
    }
    const refuse = (err: Error) => {
      if (refusal) return
      refusal = err
      readAtRefusal = read
    }
    const countRead = (chunk: Buffer) => {
      read += chunk.length
      if (refusal && read - readAtRefusal > DRAIN_BYTES) finish(refusal)
    }
    const failed = (err: Error) => finish(refusal ?? err)
    const tooLarge = (what: string) =>
      refuse(new PayloadTooLargeUploadError(`${what} is larger than the limit of ${maxFileBytes} bytes a file (${maxFileSetting})`))
    const totalTooLarge = () => refuse(new PayloadTooLargeUploadError(`the upload is larger than the limit of ${maxTotalBytes} bytes for all its files`))

    const authorize = (value: string | undefined) => {
      if (authorizing) return
      authorizing = true
      pending.push(Promise.resolve(value).then(authorizeBy.check).catch(refuse))
    }
    const scalar = (name: string, value: string) => {
      if (value.length > MAX_SCALAR_CHARS) return refuse(new ValidationError(`${name}: is longer than ${MAX_SCALAR_CHARS} characters`))
      fields.set(name, value)
      if (name === authorizeBy.field) authorize(value)
    }
    const drop = (part: Readable) => pending.push(pipeline(part, discard()).catch(failed))

    /** A part's content, gzip'd into the spool while it streams; once the upload is refused the rest is dropped. */
    const spoolPart = (part: Readable, field: string, asText: boolean, preview: string) => {
      const spooled: SpooledPart = { field, path: join(spool, String(parts.length)), size: 0, asText, preview }
      parts.push(spooled)
      const limit = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          spooled.size += chunk.length
          total += chunk.length
          if (spooled.size > maxFileBytes) tooLarge(field)
          else if (total > maxTotalBytes) totalTooLarge()
          done(null, refusal ? undefined : chunk)
        },
      })
      pending.push(pipeline(part, limit, createGzip(), createWriteStream(spooled.path, { flags: 'wx', mode: 0o600 })).catch(failed))
    }
    /** A scalar sent as a file part (a form library's choice): read as text. */
    const readScalarPart = (part: Readable, name: string) => {
      const chunks: Buffer[] = []
      let size = 0
      const keep = new Writable({
        write(chunk: Buffer, _encoding, done) {
          size += chunk.length
          if (size <= MAX_SCALAR_CHARS) chunks.push(chunk)
          done()
        },
      })
      pending.push(
        pipeline(part, keep).then(() => {
          if (size > MAX_SCALAR_CHARS) refuse(new ValidationError(`${name}: is longer than ${MAX_SCALAR_CHARS} characters`))
          else if (!refusal) scalar(name, Buffer.concat(chunks).toString('utf8'))
        }, failed),
      )
    }
    /** Refuses a part busboy found no name for (name absent from its Content-Disposition), or too long a name. */
    const badName = (name: string | undefined): name is undefined => {
      if (name === undefined) refuse(new ValidationError('body: a part has no field name (Content-Disposition: form-data; name="…")'))
      else if (name.length > MAX_FIELD_NAME_CHARS) refuse(new ValidationError(`a field's name is longer than ${MAX_FIELD_NAME_CHARS} characters ("${name.slice(0, 40)}…")`))
      else return false
      return true
    }

    // A handler that threw would throw inside busboy's parse: the error would escape every
    // listener and the parse would stop for good. A throw ends the upload instead (a 500).
    parser.on('file', (name: string | undefined, part) => {
      try {
        if (refusal || badName(name)) drop(part)
        else if (scalarFields.has(name)) readScalarPart(part, name)
        else spoolPart(part, name, false, '')
      } catch (err) {
        if (part.listenerCount('error') === 0) drop(part)
        finish(err as Error)
      }
    })
    parser.on('field', (name: string | undefined, value, info) => {
      try {
        if (refusal || badName(name)) return
        if (scalarFields.has(name)) return scalar(name, value)
        if (info.valueTruncated || Buffer.byteLength(value) > maxFileBytes) {
          if (maxFileBytes <= MAX_TEXT_VALUE_BYTES) return tooLarge(name)
          return refuse(
            new PayloadTooLargeUploadError(
              `${name}: a value sent as text (a part without a filename) is larger than the limit of ${MAX_TEXT_VALUE_BYTES} bytes; send it as a file (with curl: -F '${name}=@path')`,
            ),
          )
        }
        spoolPart(Readable.from([Buffer.from(value)]), name, true, value.slice(0, PREVIEW_CHARS))
      } catch (err) {
        finish(err as Error)
      }
    })
    parser.on('partsLimit', () => refuse(new PayloadTooLargeUploadError(`the upload has more than ${maxParts} parts`)))
    parser.on('error', (err: Error) => finish(refusal ?? invalidBody(err)))
    parser.on('close', () => {
      if (settled) return
      if (!refusal) authorize(undefined)
      void Promise.allSettled(pending).then(() => finish(refusal))
    })

    const clientGone = () => finish(new ValidationError('the client closed the connection before the upload was complete'))
    // A body decompressed on its way here (server/native/minidump.routes.ts) that is not gzip is the client's mistake, not a hang-up.
    const sourceFailed = (err: unknown) =>
      typeof (err as NodeJS.ErrnoException | null)?.code === 'string' && (err as NodeJS.ErrnoException).code!.startsWith('Z_')
        ? finish(new ValidationError(`body: says Content-Encoding: gzip but is not gzip (${(err as Error).message})`))
        : clientGone()
    // A source that failed before the upload was read (while the key was checked) emits nothing more.
    if (source.destroyed) return sourceFailed(source.errored)
    source.on('data', countRead)
    source.on('error', sourceFailed)
    source.on('close', () => {
      if (!source.readableEnded) clientGone()
    })
    // pipe, not pipeline: pipeline would destroy the request on a refusal, and the client would
    // see a reset connection instead of the answer. The request's errors are listened for above,
    // the parser's too, and finish() stops the parser.
    // eslint-disable-next-line no-restricted-syntax
    source.pipe(parser)
  })
}

/** The request body as a Node stream: the socket's own under @hono/node-server, else the web stream (app.request in tests). */
export function bodyStream(c: Context<AppEnv>): Readable {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  if (incoming && !incoming.readableDidRead) return incoming
  const body = c.req.raw.body
  return body ? Readable.fromWeb(body as WebReadableStream<Uint8Array>) : Readable.from([])
}

/** Reads and drops a body of at most `limitBytes`; stops reading past it (the connection is closed then). */
async function discardBody(body: Readable, limitBytes: number): Promise<void> {
  let bytes = 0
  try {
    for await (const chunk of body) {
      bytes += (chunk as Buffer).length
      if (bytes > limitBytes) return
    }
  } catch {
    // The client went away: nothing to answer.
  }
}

/**
 * Low on disk space (storage/disk-guard.ts): an upload is refused before anything is stored. Its
 * body is read and dropped first (holding the client's upload slot), up to `limitBytes`, so the
 * upload tool reads the answer instead of a connection reset while it is still sending; past the
 * limit the connection ends.
 */
export async function admitUploadOrDrain(c: Context<AppEnv>, limitBytes: number): Promise<void> {
  try {
    c.var.deps.diskGuard?.admitUpload()
  } catch (err) {
    c.header('Connection', 'close')
    await discardBody(bodyStream(c), limitBytes)
    throw err
  }
}
