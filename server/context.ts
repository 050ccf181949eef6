import type { Logger } from 'pino'
import type { Config } from './config.ts'
import type { Database } from './db/client.ts'
import type { AuthUser } from './auth/tokens.ts'
import type { IngestWriter } from './ingest/ingest-writer.ts'

/** What the app is built from; tests build their own with a fresh database. */
export interface AppDeps {
  config: Config
  database: Database
  logger: Logger
  ingestWriter: IngestWriter
}

export interface AppEnv {
  Variables: {
    deps: AppDeps
    user: AuthUser
    requestId: string
    /** Where the Data Access API is mounted for this request: '/api' on PORT, '' at the root of API_PORT. */
    apiMount: '' | '/api'
  }
}
