import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../context.ts'
import { Failure, ValidationError } from '../failures.ts'

/**
 * The Events API paths, which answer whatever X-Version says (the spec serves the
 * Events API under both versions). Everything else needs X-Version: 2 until the
 * legacy v1 API lands.
 */
const EVENTS_API_PATH =
  /^\/(?:projects\/[^/]+\/(?:errors\/[^/]+\/)?events(?:\/[^/]+)?|errors\/[^/]+\/events|events\/[^/]+)\/?$/

/** Reads X-Version: `2` is v2; absent or `1` is the legacy API; anything else is a 400. Echoes the header. */
export function apiVersion(mountPath: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header('X-Version')?.trim()
    if (header !== undefined && header !== '' && header !== '1' && header !== '2') {
      throw new ValidationError(`X-Version: must be 2 (or 1 for the legacy API), got "${header}"`)
    }
    const version = header === '2' ? '2' : '1'
    c.header('X-Version', version)
    const path = c.req.path.slice(mountPath.length) || '/'
    if (version === '1' && !EVENTS_API_PATH.test(path) && !path.startsWith('/auth/')) {
      throw new Failure('gone', [
        'The legacy v1 API is not available on this server yet. Send the header "X-Version: 2" to use the Data Access API v2.',
      ])
    }
    await next()
  }
}
