import { Hono, type ErrorHandler, type MiddlewareHandler } from 'hono'
import { compressJson } from './http/compress-json.ts'
import { bodyLimit } from 'hono/body-limit'
import { requestId } from 'hono/request-id'
import { apiErrorSchema, type ApiErrorBody } from '../contract/api-error.ts'
import { authenticate, carriesCredentials } from './auth/authenticate.ts'
import type { AppDeps, AppEnv } from './context.ts'
import { apiVersion } from './http/api-version.ts'
import { Failure, PayloadTooLargeError, ServiceBusyError, TooManyRequestsError } from './failures.ts'
import { statusOf } from './http/errors.ts'
import { boundFilteredQueries } from './http/filtered-query-gate.ts'
import { loggedUrl, shouldLogRequest } from './http/log-redaction.ts'
import { rejectNulInQuery } from './http/nul-characters.ts'
import { rejectMalformedPath } from './http/path-ids.ts'
import { securityHeaders } from './http/security-headers.ts'
import { organizationRoutes } from './organizations/organizations.routes.ts'
import { projectRoutes } from './projects/projects.routes.ts'
import { authRoutes, userRoutes } from './users/users.routes.ts'
import { errorRoutes } from './errors/errors.routes.ts'
import { eventRoutes } from './events/events.routes.ts'
import { pivotRoutes } from './pivots/pivots.routes.ts'
import { trendRoutes } from './trends/trends.routes.ts'
import { stabilityRoutes } from './stability/stability.routes.ts'
import { eventFieldRoutes } from './event-fields/event-fields.routes.ts'
import { collaboratorRoutes } from './collaborators/collaborators.routes.ts'
import { invitationRoutes, userInvitationRoutes } from './invitations/invitations.routes.ts'
import { tokenRoutes } from './tokens/tokens.routes.ts'
import { ingestRoutes } from './ingest/accept/ingest.routes.ts'
import { sourceMapUploadRoutes } from './source-maps/source-maps-upload.routes.ts'
import { isSourceMapUpload, sourceMapRoutes } from './source-maps/source-maps.routes.ts'
import { privacyRoutes } from './privacy/privacy.routes.ts'
import { webhookRoutes } from './webhooks/webhooks.routes.ts'
import { commentRoutes } from './comments/comments.routes.ts'
import { authorizeScope } from './auth/scope.ts'
import { healthRoutes } from './health/health.routes.ts'
import { buildRoutes } from './releases/build.routes.ts'
import { releaseRoutes } from './releases/releases.routes.ts'
import { rateLimitRoutes } from './rate-limits/rate-limits.routes.ts'
import { storageRoutes } from './storage/storage.routes.ts'
import { isNativeSymbolUpload, nativeRoutes } from './native/native.routes.ts'
import { symbolUploadRoutes } from './native/symbol-uploads.routes.ts'
import { minidumpRoutes } from './native/minidump.routes.ts'
import { notificationRoutes, unsubscribeRoutes } from './notifications/notifications.routes.ts'
import { SERVICE_PATHS, staticDashboard } from './web/static-dashboard.ts'
import { legacyRoutes } from './legacy/legacy.routes.ts'
import { isLegacyHandler } from './legacy/legacy-route.ts'
import { organizationTokenRoutes } from './organization-tokens/organization-tokens.routes.ts'
import { routeMethods } from './http/route-methods.ts'
import { isDatabaseUnavailable, isTransactionConflict, logDatabaseUnavailable } from './db/pg-errors.ts'

const errorBody = (messages: string[]): ApiErrorBody => apiErrorSchema.parse({ errors: messages })

/** The API's body limit; the dashboard's source map and symbol uploads stream under their own, larger limits instead. */
function jsonBodyLimit(mountPath: string, limitBytes: number): MiddlewareHandler<AppEnv> {
  const limit = bodyLimit({
    maxSize: limitBytes,
    onError: (c) => {
      // The client may still be sending, and the server stops reading: say the connection
      // ends, or a keep-alive client reuses it and fails on its next request.
      c.header('Connection', 'close')
      throw new PayloadTooLargeError(limitBytes)
    },
  })
  return (c, next) => {
    const path = c.req.path.slice(mountPath.length)
    return isSourceMapUpload(c.req.method, path) || isNativeSymbolUpload(c.req.method, path) ? next() : limit(c, next)
  }
}

/** The routes answered without credentials (their version is checked ahead of them). */
const publicRoutes = routeMethods([...authRoutes.routes, ...invitationRoutes.routes, ...unsubscribeRoutes.routes])
const legacyRouteMethods = routeMethods(legacyRoutes.routes)

/**
 * The Data Access API (v2, the legacy v1 API and the Events API); mounted at /api, and at / on
 * API_PORT. Credentials are checked before the version, so a request without valid ones gets
 * 401 whatever X-Version says (server/http/api-version.ts).
 */
function createApiRoutes(mountPath: '' | '/api', limitBytes: number): Hono<AppEnv> {
  const version = apiVersion(mountPath, { publicRoutes, legacyRoutes: legacyRouteMethods })
  const api = new Hono<AppEnv>()
    .use(async (c, next) => {
      c.set('apiMount', mountPath)
      await next()
    })
    // JSON answers of 1 KB and more go gzip'd to clients that take it (http/compress-json.ts).
    .use(compressJson())
    .use(jsonBodyLimit(mountPath, limitBytes))
    .use(rejectNulInQuery)
    .use(version.beforePublic)
    .route('/', authRoutes)
    .route('/', invitationRoutes)
    .route('/', unsubscribeRoutes)
    .use(authenticate)
    .use(version.afterAuthentication)
    .use(rejectMalformedPath)
    .use(authorizeScope)
    .use(boundFilteredQueries)
    // Ahead of v2's: the legacy handlers answer v1 requests and hand v2 ones on.
    .route('/', legacyRoutes)
    .route('/', userRoutes)
    .route('/', userInvitationRoutes)
    .route('/', organizationRoutes)
    .route('/', organizationTokenRoutes)
    .route('/', projectRoutes)
    .route('/', collaboratorRoutes)
    .route('/', tokenRoutes)
    .route('/', notificationRoutes)
    .route('/', errorRoutes)
    .route('/', eventRoutes)
    .route('/', pivotRoutes)
    .route('/', trendRoutes)
    .route('/', stabilityRoutes)
    .route('/', eventFieldRoutes)
    .route('/', releaseRoutes)
    .route('/', sourceMapRoutes)
    .route('/', nativeRoutes)
    .route('/', privacyRoutes)
    .route('/', webhookRoutes)
    .route('/', rateLimitRoutes)
    .route('/', storageRoutes)
    .route('/', commentRoutes)
  const v2Methods = routeMethods(api.routes.filter((route) => !isLegacyHandler(route.handler)))
  return api.all('*', (c) => {
    // A path that exists with other methods: 405 with Allow (RFC 9110), not "no such endpoint".
    // (v1 requests reach this only on the Events API's paths and /auth/*: api-version.ts.)
    const allowed = v2Methods(c.req.path.slice(mountPath.length) || '/')
    if (allowed.length > 0) {
      c.header('Allow', allowed.join(', '))
      return c.json(errorBody([`${c.req.method} is not allowed on ${c.req.path}; use ${allowed.join(', ')}`]), 405)
    }
    return c.json(errorBody([`no API endpoint ${c.req.method} ${c.req.path}`]), 404)
  })
}

/** The one place failures become responses: typed errors keep their status, anything else is a 500. */
function failureResponse(deps: AppDeps): ErrorHandler<AppEnv> {
  return (err, c) => {
    if (err instanceof TooManyRequestsError || err instanceof ServiceBusyError) c.header('Retry-After', String(err.retryAfterSeconds))
    if (err instanceof Failure) return c.json(errorBody(err.messages), statusOf(err))
    if (isDatabaseUnavailable(err) || isTransactionConflict(err)) {
      // Retrying will work; a conflict is logged as an error all the same, since it points at lock order.
      if (isTransactionConflict(err)) deps.logger.error({ err, reqId: c.var.requestId, ...loggedUrl(c.req.url) }, 'transaction conflict')
      else logDatabaseUnavailable(deps.logger, err)
      c.header('Retry-After', '5')
      return c.json(errorBody(['the database is unavailable or busy; retry shortly']), 503)
    }
    deps.logger.error({ err, reqId: c.var.requestId, ...loggedUrl(c.req.url) }, 'unhandled error')
    return c.json(errorBody(['internal server error; see the server log for request ' + c.var.requestId]), 500)
  }
}

/**
 * Whether a request on the main port without the /api prefix comes from an API client: it
 * carries X-Version or API credentials (`Authorization: token …`, `Bearer …` or `Basic …`, or
 * `auth_token`), which browsers never send on a navigation. Bugsnag's generated clients drop
 * the base path on some calls, and legacy scripts were written against the root (docs/api.md, "Base URL").
 */
function sentByApiClient(req: Request): boolean {
  return req.headers.has('X-Version') || carriesCredentials(req)
}

/** Serves API clients' requests without the /api prefix from the API at the root; everything else goes on. */
function apiClientsWithoutPrefix(deps: AppDeps): MiddlewareHandler<AppEnv> {
  const api = new Hono<AppEnv>()
  api.use(requestId())
  api.use(async (c, next) => {
    c.set('deps', deps)
    await next()
  })
  api.onError(failureResponse(deps))
  api.route('/', createApiRoutes('', deps.config.limits.apiBodyBytes))
  return async (c, next) => {
    if (!sentByApiClient(c.req.raw) || SERVICE_PATHS.test(c.req.path)) return next()
    return api.fetch(c.req.raw, c.env)
  }
}

function baseApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>()
  app.use(requestId())
  app.use(securityHeaders)
  app.use(async (c, next) => {
    c.set('deps', deps)
    const started = performance.now()
    await next()
    if (!shouldLogRequest(deps.config.requestLog, c.res.status)) return
    deps.logger.info(
      {
        reqId: c.var.requestId,
        method: c.req.method,
        // Never the body or headers (Authorization); secrets in the path or query redacted.
        ...loggedUrl(c.req.url),
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    )
  })
  app.onError(failureResponse(deps))
  return app
}

/** The main server: dashboard, API under /api, ingestion, uploads and health. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = baseApp(deps)
  app.route('/', healthRoutes)
  app.route('/', ingestRoutes)
  app.route('/', sourceMapUploadRoutes)
  app.route('/', symbolUploadRoutes)
  app.route('/', minidumpRoutes)
  app.route('/', buildRoutes)
  app.route('/api', createApiRoutes('/api', deps.config.limits.apiBodyBytes))
  app.use(apiClientsWithoutPrefix(deps))
  app.route('/', staticDashboard(deps.config.staticDir))
  return app
}

/** Paths the main port takes from notifiers and upload tools (ingestion, source maps, builds), never API paths. */
const MAIN_PORT_ONLY_PATH = /^\/(?:notify|sessions|sourcemap|react-native-source-map|build|minidump|minidump-symbol|breakpad-symbol|ndk-symbol)\/?$/

/**
 * Notifier requests and uploads sent to API_PORT's address, a mistake easily made in a build
 * script: 404 naming the main port, rather than the API's answer (410 asking for X-Version: 2).
 * A build report may also go to the main port's root, as bugsnag-build-reporter sends it.
 */
const sentToMainPort: MiddlewareHandler<AppEnv> = async (c, next) => {
  const path = c.req.path
  if (!MAIN_PORT_ONLY_PATH.test(path) && !(path === '/' && c.req.method === 'POST')) return next()
  const { publicUrl, port } = c.var.deps.config
  const main = new URL(c.req.url)
  main.port = String(port)
  // The body is not read: a client still sending it must not reuse the connection.
  c.header('Connection', 'close')
  throw new Failure('not found', [
    `${c.req.method} ${path}: uploads and notifier requests go to the main port (PORT ${port}), not to API_PORT; send this to ${publicUrl ?? main.origin}${path}`,
  ])
}

/** The optional API_PORT server: the Data Access API at the root, for clients that drop a base path. */
export function createApiPortApp(deps: AppDeps): Hono<AppEnv> {
  const app = baseApp(deps)
  app.use(sentToMainPort)
  app.route('/', createApiRoutes('', deps.config.limits.apiBodyBytes))
  return app
}
