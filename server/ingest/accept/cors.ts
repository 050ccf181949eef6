import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../../context.ts'

const DEFAULT_ALLOWED_HEADERS = 'Bugsnag-Api-Key, Bugsnag-Payload-Version, Bugsnag-Sent-At, Content-Type, Content-Encoding'

/**
 * CORS for the ingestion endpoints. Browser notifiers send custom Bugsnag-* headers, so
 * every POST is preceded by a preflight; without a 2xx preflight answer and
 * Access-Control-Allow-Origin on the POST answer (errors included), the browser drops the
 * event silently. Any origin may send: the API key, not the origin, identifies the project.
 */
export const ingestCors: MiddlewareHandler<AppEnv> = async (c, next) => {
  const origin = c.req.header('Origin')
  c.header('Access-Control-Allow-Origin', origin || '*')
  if (origin) c.header('Vary', 'Origin')
  // The server-wide same-origin default would contradict the CORS answer above.
  c.header('Cross-Origin-Resource-Policy', 'cross-origin')
  if (c.req.method === 'OPTIONS') {
    c.header('Access-Control-Allow-Methods', 'POST, OPTIONS')
    c.header('Access-Control-Allow-Headers', c.req.header('Access-Control-Request-Headers') || DEFAULT_ALLOWED_HEADERS)
    c.header('Access-Control-Max-Age', '86400')
    return c.body(null, 204)
  }
  await next()
}
