import type { IncomingMessage } from 'node:http'
import { promisify } from 'node:util'
import { gunzip, inflate } from 'node:zlib'
import { Failure, PayloadTooLargeError, ValidationError } from '../../failures.ts'

const gunzipAsync = promisify(gunzip)
const inflateAsync = promisify(inflate)

/**
 * Reads a request body, refusing it with 413 as soon as more than `limitBytes` have
 * arrived: notifiers send chunked bodies with no Content-Length, so the limit has to be
 * enforced while reading, not up front. Gzip (and deflate) bodies are decompressed with
 * the same limit on the output, so a small compressed body cannot expand without bound.
 */
export async function readLimitedBody(request: Request, limitBytes: number): Promise<Buffer> {
  const declared = Number(request.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > limitBytes) throw new PayloadTooLargeError(limitBytes)
  return decodeBody(await readWebStream(request, limitBytes), request.headers.get('content-encoding'), limitBytes)
}

/**
 * readLimitedBody for a Node request (the accept path's own listener): no web stream per request.
 * A body not complete within `timeoutMs` is refused with 408: notifier bodies are small, and a
 * client sending slowly would otherwise hold its connection and buffer for minutes.
 */
export async function readNodeBody(incoming: IncomingMessage, limitBytes: number, timeoutMs = Infinity): Promise<Buffer> {
  const declared = Number(incoming.headers['content-length'])
  if (Number.isFinite(declared) && declared > limitBytes) throw new PayloadTooLargeError(limitBytes)
  return decodeBody(await readIncoming(incoming, limitBytes, timeoutMs), incoming.headers['content-encoding'] ?? null, limitBytes)
}

/** 408: the body did not arrive in time. The answer closes the connection (the rest is never read). */
export class BodyTimeoutError extends Failure {
  constructor(timeoutMs: number) {
    super('timeout', [`the request body did not arrive within ${timeoutMs} ms`])
  }
}

/** A body as sent with `Content-Encoding`, decompressed within the same limit. */
async function decodeBody(body: Buffer, contentEncoding: string | null, limitBytes: number): Promise<Buffer> {
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase()
  if (encoding === 'identity' || encoding === '') return body
  if (encoding !== 'gzip' && encoding !== 'x-gzip' && encoding !== 'deflate') {
    throw new Failure('unsupported media type', [`Content-Encoding: ${encoding} is not supported (use gzip, deflate or none)`])
  }
  try {
    const options = { maxOutputLength: limitBytes }
    return encoding === 'deflate' ? await inflateAsync(body, options) : await gunzipAsync(body, options)
  } catch (err) {
    if (err instanceof RangeError || (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new PayloadTooLargeError(limitBytes)
    }
    throw new ValidationError(`request body is not valid ${encoding} data`)
  }
}

/** Parses a body as JSON, answering 400 when it is empty or not JSON. */
export function parseJsonBody(body: Buffer): unknown {
  // Some HTTP clients on Windows prefix a UTF-8 byte order mark, which JSON.parse refuses.
  const text = body.toString('utf8').replace(/^\uFEFF/, '')
  if (text.trim() === '') throw new ValidationError('body: is empty (send the Bugsnag JSON payload)')
  try {
    return JSON.parse(text)
  } catch {
    throw new ValidationError('request body is not valid JSON')
  }
}

const clientClosedEarly = () => new ValidationError('the client closed the connection before the body was complete')

function readIncoming(incoming: IncomingMessage, limitBytes: number, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let received = 0
    const timer = Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          cleanup()
          incoming.pause()
          reject(new BodyTimeoutError(timeoutMs))
        }, timeoutMs)
      : undefined
    const cleanup = () => {
      clearTimeout(timer)
      incoming.off('data', onData)
      incoming.off('end', onEnd)
      incoming.off('error', onError)
      incoming.off('close', onClose)
    }
    const onData = (chunk: Buffer) => {
      received += chunk.length
      if (received > limitBytes) {
        cleanup()
        // Stop buffering; the answer carries Connection: close so the rest is never read.
        incoming.pause()
        reject(new PayloadTooLargeError(limitBytes))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
    }
    const onError = (err: NodeJS.ErrnoException) => {
      cleanup()
      // Node reports a client that went away mid-body as "aborted" (ECONNRESET): the client's
      // doing, not a database connection failing, which that code would otherwise be taken for.
      reject(err.code === 'ECONNRESET' || err.message === 'aborted' ? clientClosedEarly() : err)
    }
    const onClose = () => {
      if (incoming.readableEnded) return onEnd()
      cleanup()
      reject(clientClosedEarly())
    }
    incoming.on('data', onData)
    incoming.on('end', onEnd)
    incoming.on('error', onError)
    incoming.on('close', onClose)
  })
}

async function readWebStream(request: Request, limitBytes: number): Promise<Buffer> {
  const chunks: Uint8Array[] = []
  let received = 0
  if (!request.body) return Buffer.alloc(0)
  const reader = request.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    received += value.byteLength
    if (received > limitBytes) {
      // Stop reading: the rest of the body is never buffered.
      await reader.cancel().catch(() => {})
      throw new PayloadTooLargeError(limitBytes)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}
