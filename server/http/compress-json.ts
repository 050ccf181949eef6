import { promisify } from 'node:util'
import { gzip as gzipCallback } from 'node:zlib'
import type { MiddlewareHandler } from 'hono'

const gzip = promisify(gzipCallback)

/** Below this, compressing costs more (CPU, a header) than the bytes it saves. */
export const COMPRESS_MIN_BYTES = 1024

/** Does the client take gzip (`Accept-Encoding`, a q=0 refusing it)? */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false
  return acceptEncoding.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';')
    if (coding !== 'gzip' && coding !== '*') return false
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    return q === undefined || Number(q.slice(2)) > 0
  })
}

/**
 * gzip for JSON answers of COMPRESS_MIN_BYTES and more, to clients that take it: lists of
 * errors and events shrink 5–10×. hono/compress would compress every JSON answer, however
 * small, since c.json() sets no Content-Length to compare with its threshold; a JSON answer is
 * in memory already, so its size is known here. Streams (downloads) and answers that already
 * carry a Content-Encoding are left as they are.
 */
export function compressJson(): MiddlewareHandler {
  return async (c, next) => {
    await next()
    const res = c.res
    if (c.req.method === 'HEAD' || !res.body || res.headers.has('Content-Encoding')) return
    if (!res.headers.get('Content-Type')?.startsWith('application/json')) return
    if (!acceptsGzip(c.req.header('Accept-Encoding'))) return
    const body = Buffer.from(await res.arrayBuffer())
    // Hono's c.res setter copies the previous answer's headers onto the new one: headers are
    // changed on the new answer once set.
    if (body.length < COMPRESS_MIN_BYTES) {
      c.res = new Response(body, res)
      c.res.headers.append('Vary', 'Accept-Encoding')
      return
    }
    c.res = new Response(await gzip(body, { level: 5 }), res)
    c.res.headers.set('Content-Encoding', 'gzip')
    c.res.headers.delete('Content-Length')
    c.res.headers.append('Vary', 'Accept-Encoding')
  }
}
