import type { Readable } from 'node:stream'
import { createGzip, gzipSync } from 'node:zlib'
import busboy from 'busboy'
import { Failure, ValidationError } from '../failures.ts'

/** A file of an upload, gzip'd as it arrived (the only copy held). */
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
   * Checks a scalar field as soon as it arrives (the API key, before any file is kept): an
   * error refuses the upload, whose remaining files are then read and dropped.
   */
  checkField?: (name: string, value: string) => Promise<void>
  /** Largest file (or text value); past it the upload is refused with 413 while it streams. */
  maxFileBytes: number
  /** Largest upload, all files together. */
  maxTotalBytes: number
  /** Most parts (fields and files). */
  maxParts: number
}

/** Longest value of a scalar field (apiKey, appVersion, minifiedUrl, …). */
export const MAX_SCALAR_CHARS = 4096
// After a refusal the rest of the body is read and dropped, up to this much, so that the client
// reads the answer instead of a reset connection (the upload tools retry on a network error).
const DRAIN_BYTES = 64 * 1024 * 1024
const PREVIEW_CHARS = 200

export class PayloadTooLargeUploadError extends Failure {
  constructor(message: string) {
    super('too large', [message])
  }
}

/**
 * Reads a multipart/form-data upload as it streams (busboy): text fields named in
 * `scalarFields` as strings, everything else gzip'd part by part. Sizes are enforced while
 * reading: a file past `maxFileBytes`, or an upload past `maxTotalBytes`, stops being kept and
 * the upload is refused with 413 once the rest of the body has been read (up to 64 MiB more; past
 * that the answer goes at once). A body that is not valid multipart answers 400.
 */
export function readMultipartUpload(
  source: Readable,
  contentType: string,
  options: MultipartOptions,
): Promise<ReceivedUpload> {
  const { scalarFields, checkField, ...limits } = options
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: { fieldSize: limits.maxFileBytes + 1, fieldNameSize: 8192, parts: limits.maxParts },
        defParamCharset: 'utf8',
      })
    } catch (err) {
      reject(new Failure('unsupported media type', [`Content-Type: expected multipart/form-data with a boundary (${(err as Error).message})`]))
      return
    }
    const fields = new Map<string, string>()
    const files: ReceivedFile[] = []
    const pending: Promise<void>[] = []
    let total = 0
    let refusal: Error | null = null
    let read = 0
    let readAtRefusal = 0
    let settled = false

    const finish = (err: Error | null) => {
      if (settled) return
      settled = true
      source.off('data', countRead)
      if (err) {
        source.unpipe(parser)
        // Keep reading what is left and drop it, so the client's writes do not fail.
        source.resume()
        reject(err)
      } else resolve({ fields, files })
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
    const tooLarge = (what: string) =>
      refuse(new PayloadTooLargeUploadError(`${what} is larger than the limit of ${limits.maxFileBytes} bytes a file (ERRATA_MAX_SOURCE_MAP_BYTES)`))
    const totalTooLarge = () => refuse(new PayloadTooLargeUploadError(`the upload is larger than the limit of ${limits.maxTotalBytes} bytes for all its files`))

    parser.on('field', (name, value, info) => {
      if (refusal) return
      if (scalarFields.has(name)) {
        if (value.length > MAX_SCALAR_CHARS) refuse(new ValidationError(`${name}: is longer than ${MAX_SCALAR_CHARS} characters`))
        else {
          fields.set(name, value)
          if (checkField) pending.push(checkField(name, value).catch(refuse))
        }
        return
      }
      const size = Buffer.byteLength(value)
      if (info.valueTruncated || size > limits.maxFileBytes) return tooLarge(name)
      total += size
      if (total > limits.maxTotalBytes) return totalTooLarge()
      files.push({ field: name, gzipped: gzipSync(value), size, asText: true, preview: value.slice(0, PREVIEW_CHARS) })
    })

    parser.on('file', (name, stream) => {
      if (refusal) {
        stream.resume()
        return
      }
      if (scalarFields.has(name)) {
        // A scalar sent as a file part (a form library's choice): read it as text.
        const chunks: Buffer[] = []
        let size = 0
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size <= MAX_SCALAR_CHARS) chunks.push(chunk)
        })
        pending.push(
          new Promise((done) =>
            stream.on('end', () => {
              if (size > MAX_SCALAR_CHARS) refuse(new ValidationError(`${name}: is longer than ${MAX_SCALAR_CHARS} characters`))
              else {
                const value = Buffer.concat(chunks).toString('utf8')
                fields.set(name, value)
                if (checkField) return checkField(name, value).catch(refuse).then(done)
              }
              done()
            }),
          ),
        )
        return
      }
      const gzip = createGzip()
      const compressed: Buffer[] = []
      let size = 0
      let dropped = false
      gzip.on('data', (chunk: Buffer) => compressed.push(chunk))
      const drop = () => {
        dropped = true
        stream.unpipe(gzip)
        gzip.destroy()
        compressed.length = 0
        stream.resume()
      }
      stream.on('data', (chunk: Buffer) => {
        if (dropped) return
        size += chunk.length
        total += chunk.length
        if (refusal) return drop()
        if (size > limits.maxFileBytes) {
          tooLarge(name)
          return drop()
        }
        if (total > limits.maxTotalBytes) {
          totalTooLarge()
          return drop()
        }
      })
      stream.pipe(gzip)
      pending.push(
        new Promise((done) => {
          const end = () => {
            if (!dropped) files.push({ field: name, gzipped: Buffer.concat(compressed), size, asText: false, preview: '' })
            done()
          }
          gzip.on('end', end)
          gzip.on('close', () => (dropped ? done() : undefined))
          gzip.on('error', () => {
            dropped = true
            done()
          })
        }),
      )
    })

    parser.on('partsLimit', () => refuse(new PayloadTooLargeUploadError(`the upload has more than ${limits.maxParts} parts`)))
    parser.on('error', (err: Error) => finish(refusal ?? new ValidationError(`body: is not valid multipart/form-data (${err.message})`)))
    parser.on('close', () => {
      void Promise.all(pending).then(() => finish(refusal))
    })
    source.on('data', countRead)
    source.on('error', () => finish(new ValidationError('the client closed the connection before the upload was complete')))
    source.on('aborted', () => finish(new ValidationError('the client closed the connection before the upload was complete')))
    source.pipe(parser)
  })
}
