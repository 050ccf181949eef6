import type { Logger } from 'pino'
import type { Config } from './config.ts'
import type { Database } from './db/client.ts'
import type { LoginThrottle } from './auth/login-throttle.ts'
import type { Scope } from './auth/scope.ts'
import type { AuthUser } from './auth/tokens.ts'
import type { IngestWriter } from './ingest/pipeline/open.ts'
import type { PrivacyDeps } from './privacy/privacy-deps.ts'
import type { WebhookDeps } from './webhooks/webhook-deps.ts'

/** What the app is built from; tests build their own with a fresh database. */
export interface AppDeps {
  config: Config
  database: Database
  logger: Logger
  /** Ingestion: the accepted-event log and the pipeline's thread that indexes it (server/ingest/pipeline/open.ts). */
  ingestWriter: IngestWriter
  /** Shared by both listeners, so API_PORT is no way around the limits. */
  loginThrottle: LoginThrottle
  /** Privacy requests' clock, file store and job wake-up (server/privacy/privacy-deps.ts); defaults when absent. */
  privacy?: PrivacyDeps
  /** Webhooks' clock, address allow-list, retry schedule and job wake-up (server/webhooks/webhook-deps.ts); defaults when absent. */
  webhooks?: WebhookDeps
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
