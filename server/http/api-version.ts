import type { Context, MiddlewareHandler } from 'hono'
import type { AppEnv } from '../context.ts'
import { Failure, ForbiddenError, ValidationError } from '../failures.ts'
import type { RouteMethods } from './route-methods.ts'

/**
 * The Events API paths, which answer whatever X-Version says (the spec serves the Events API
 * under both versions), as /auth/* does.
 */
const EVENTS_API_PATH =
  /^\/(?:projects\/[^/]+\/(?:errors\/[^/]+\/)?events(?:\/[^/]+)?|errors\/[^/]+\/events|events\/[^/]+)\/?$/

const ORGANIZATION_TOKEN_LEGACY_ONLY =
  'organization API tokens work with the legacy v1 API only (no X-Version header, or X-Version: 1); the v2 API takes a personal auth token'

export interface ApiVersionRoutes {
  /** Routes answered without credentials (sign-in, invitations, unsubscribe links): their version is checked before them. */
  publicRoutes: RouteMethods
  /** The legacy v1 API's routes (server/legacy/). */
  legacyRoutes: RouteMethods
}

/**
 * X-Version: `2` is v2; absent or `1` the legacy v1 API; anything else 400. Echoed in every answer.
 *
 * Credentials come first: `afterAuthentication` runs once the caller is known, so a request
 * without valid credentials gets 401 whatever its version says. Routes answered without
 * credentials get the same check from `beforePublic`, ahead of them.
 *
 * Under v1, the legacy routes answer, and so do the Events API and /auth/* (served by the v2
 * code, to users); a path v1 has with other methods is a 405, any other a 410 naming v2.
 * Organization tokens reach the legacy routes only (403 elsewhere).
 */
export function apiVersion(mountPath: string, routes: ApiVersionRoutes): { beforePublic: MiddlewareHandler<AppEnv>; afterAuthentication: MiddlewareHandler<AppEnv> } {
  const check = (c: Context<AppEnv>): Response | null => {
    const header = c.req.header('X-Version')?.trim()
    if (header !== undefined && header !== '' && header !== '1' && header !== '2') {
      throw new ValidationError(`X-Version: must be 2 (or 1 for the legacy API), got "${header}"`)
    }
    const version = header === '2' ? '2' : '1'
    c.set('apiVersion', version)
    c.header('X-Version', version)
    const principal = c.get('principal')
    const byOrganization = principal?.kind === 'organization'
    if (version === '2') {
      if (byOrganization) throw new ForbiddenError(ORGANIZATION_TOKEN_LEGACY_ONLY)
      return null
    }
    const path = c.req.path.slice(mountPath.length) || '/'
    const legacy = routes.legacyRoutes(path)
    if (legacy.includes(c.req.method)) return null
    if (EVENTS_API_PATH.test(path) || path.startsWith('/auth/')) {
      if (byOrganization) throw new ForbiddenError(ORGANIZATION_TOKEN_LEGACY_ONLY)
      return null
    }
    if (legacy.length > 0) {
      // The v2 route of the same path must not answer a v1 request.
      c.header('Allow', legacy.join(', '))
      return c.json({ errors: [`${c.req.method} is not allowed on ${c.req.path} in the legacy v1 API; use ${legacy.join(', ')}`] }, 405)
    }
    throw new Failure('gone', [
      `${c.req.method} ${path} is not part of the legacy v1 API (no X-Version header, or X-Version: 1). Send the header "X-Version: 2" to use the Data Access API v2.`,
    ])
  }
  return {
    beforePublic: async (c, next) => {
      if (!routes.publicRoutes(c.req.path.slice(mountPath.length) || '/').includes(c.req.method)) return next()
      const answer = check(c)
      if (answer) return answer
      await next()
    },
    afterAuthentication: async (c, next) => {
      const answer = check(c)
      if (answer) return answer
      await next()
    },
  }
}
