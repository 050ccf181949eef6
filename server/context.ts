// The ground floor: the shapes of what the app is built from and what a request carries. It
// imports plain types only (config, the database adapter), never a subsystem; the subsystems
// implement these interfaces and import them from here, so no import cycle runs through this file
// (dependency-cruiser.config.mjs checks it).
import type { Logger } from 'pino'
import type { Config } from './config.ts'
import type { Database } from './db/client.ts'

/** One accepted POST /notify, as the accepted-event log keeps it (server/ingest/log/record.ts makes it). */
export interface AcceptedRequest {
  projectId: string
  receivedAt: Date
  /** One id per event of the payload, made when it was accepted, so a replay makes the same events. */
  eventIds: string[]
  /** The POST's User-Agent: browser notifiers' events read their browser and OS from it. */
  userAgent: string | null
  /** The payload's JSON text as received (decompressed, validated), UTF-8. */
  body: Buffer
}

/** The accepted-event log's writer (server/ingest/log/group-commit.ts). */
export interface IngestWriter {
  /** Stores one accepted request in the accepted-event log; resolves only once it is durable. */
  write(request: AcceptedRequest): Promise<void>
  /** Resolves once every event committed so far has been indexed, with when the last of them was (epoch ms; null if none has been). */
  indexed(): Promise<number | null>
  /** Commits everything queued, indexes what it can, then refuses new writes. */
  close(): Promise<void>
}

/** The ingestion pipeline beside the database (server/ingest/pipeline/open.ts), as the app reads it. */
export interface IngestPipeline {
  /** The journal accepted requests are appended to; absent when they go to ingest_log (PostgreSQL's `database` log). */
  readonly journal?: {
    /** Its directory (DATA_DIR/ingest-journal). */
    readonly dir: string
    /** Its row in ingest_journals. */
    readonly id: string
    /** Events not yet indexed, counted up to `cap`. */
    pending(cap: number): Promise<number>
  }
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

/** The user a request's token belongs to (server/auth/tokens.ts). */
export interface AuthUser {
  id: string
  email: string
  name: string
  tokenId: string
}

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
  /** The ingestion pipeline's thread beside `database` (its journal on PGlite). */
  pipeline: IngestPipeline
  ingestWriter: IngestWriter
  /** Shared by both listeners, so API_PORT is no way around the limits. */
  loginThrottle: LoginThrottle
}

export interface AppEnv {
  Variables: {
    deps: AppDeps
    user: AuthUser
    requestId: string
    /** Where the Data Access API is mounted for this request: '/api' on PORT, '' at the root of API_PORT. */
    apiMount: '' | '/api'
    /** The caller's access to the organization or project the path names (server/auth/scope.ts); unset for other paths. */
    scope: Scope | undefined
  }
}
