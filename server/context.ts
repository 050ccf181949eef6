// The ground floor: the shapes of what the app is built from and what a request carries. It
// imports plain types only (config, the database adapter), never a subsystem; the subsystems
// implement these interfaces and import them from here, so no import cycle runs through this file
// (dependency-cruiser.config.mjs checks it).
import type { Logger } from 'pino'
import type { Config } from './config.ts'
import type { Database } from './db/client.ts'
import type { AcceptedRequest } from './ingest/payload/accepted-request.ts'

/** Ingestion as the app holds it: the accepted-event log and the pipeline that indexes it (server/ingest/pipeline/open.ts). */
export interface IngestWriter {
  /** Stores one accepted request in the accepted-event log; resolves only once it is durable. */
  write(request: AcceptedRequest): Promise<void>
  /**
   * Resolves once every request stored so far has been indexed (visible in the API), with when
   * the last event was (epoch ms; null if none has been). On PostgreSQL: as far as this process
   * can; the requests of a project whose write lock another process or request holds at that
   * moment are left to it (or to this process's next pass).
   */
  indexed(): Promise<number | null>
  /** Requests not yet indexed and requests set aside, each counted up to `cap` (health). */
  backlog(cap: number): Promise<{ pending: number; failed: number }>
  /** The directory the log's files live in (the journal), for the disk-space check; null for ingest_log. */
  readonly logDir: string | null
  /** Stores what is queued, indexes what it can within the indexer's drain limit, then stops. */
  close(): Promise<void>
}

/** One sign-in under way (server/auth/login-throttle.ts): counted as failed unless it says otherwise. */
export interface LoginAttempt {
  /** The password was right: the pair or browser starts afresh; the email and address just do not count this one. */
  succeeded(): void
  /** It ended without checking a password (the database was down): counts for nothing. */
  uncounted(): void
}

/** Slows password guessing on POST /auth/login (server/auth/login-throttle.ts). */
export interface LoginThrottle {
  /**
   * Throws TooManyRequestsError while this attempt must wait; otherwise counts it. `knownBrowser`
   * is the id of a browser this email signed in from before (server/auth/known-browser.ts), or null.
   */
  begin(email: string, address: string, knownBrowser: string | null): LoginAttempt
}

/** The user a request's credentials belong to (server/auth/tokens.ts). */
export interface AuthUser {
  id: string
  email: string
  name: string
  /** The auth token the request carried; null when it signed in with HTTP Basic (email and password). */
  tokenId: string | null
}

/**
 * Who a request's credentials name (server/auth/authenticate.ts): a user (any of the three forms),
 * or an organization, through one of its organization API tokens. An organization acts in that
 * organization only, with an admin's rights, and only on the legacy v1 API; `actorId` (the admin
 * who made the token) is recorded as the author of what it changes.
 */
export type Principal =
  | { kind: 'user'; user: AuthUser }
  | { kind: 'organization'; organizationId: string; tokenId: string; actorId: string }

/** The caller's access to the organization or project the request's path names (server/auth/scope.ts). */
export interface Scope {
  /** Who asked (filters such as error.assigned_to=me read it). */
  userId: string
  organizationId: string
  /** Null for organization routes. */
  projectId: string | null
  isAdmin: boolean
}

/**
 * What the app is built from; tests build their own with a fresh database. A subsystem whose
 * dependencies only it reads adds its own optional member with `declare module '../context.ts'`
 * (privacy, webhooks), as Hono's ContextVariableMap is extended, so this file need not import it.
 */
export interface AppDeps {
  config: Config
  database: Database
  logger: Logger
  /** Ingestion: the accepted-event log and the pipeline's thread that indexes it (server/ingest/pipeline/open.ts). */
  ingestWriter: IngestWriter
  /** Shared by both listeners, so API_PORT is no way around the limits. */
  loginThrottle: LoginThrottle
}

export interface AppEnv {
  Variables: {
    deps: AppDeps
    /** Who the credentials name; routes other than the legacy API's see users only (server/http/api-version.ts). */
    principal: Principal
    /** The user of a user principal; unset for an organization token, which reaches only the legacy routes. */
    user: AuthUser
    /** The API version the request selected (server/http/api-version.ts). */
    apiVersion: '1' | '2'
    requestId: string
    /** Where the Data Access API is mounted for this request: '/api' on PORT, '' at the root of API_PORT. */
    apiMount: '' | '/api'
    /** The caller's access to the organization or project the path names (server/auth/scope.ts); unset for other paths. */
    scope: Scope | undefined
  }
}

/**
 * What an app keeps once per AppDeps (both listeners, PORT and API_PORT, share one): made at first
 * use by `make`, then the same for every request of that app.
 */
export function perApp<T>(make: (deps: AppDeps) => T): (deps: AppDeps) => T {
  const made = new WeakMap<AppDeps, T>()
  return (deps) => {
    if (!made.has(deps)) made.set(deps, make(deps))
    return made.get(deps)!
  }
}
