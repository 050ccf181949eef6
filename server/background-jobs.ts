// The background jobs every Errata process runs (server/main.ts; tests through test-app.ts):
// privacy requests and webhook deliveries, each family in a job runner with slots of its own, so
// deliveries waiting on slow receivers never hold a privacy request back, nor the other way round.
// Both runners claim from the one jobs table by kind, so this holds on either engine and with any
// number of processes on one PostgreSQL.
import type { Logger } from 'pino'
import type { Clock } from './clock.ts'
import type { Database } from './db/client.ts'
import { JobRunner, type JobRunnerOptions } from './jobs/job-runner.ts'
import type { PrivacyDeps } from './privacy/privacy-deps.ts'
import { privacyJobHandlers } from './privacy/privacy.jobs.ts'
import type { WebhookDeps } from './webhooks/webhook-deps.ts'
import { webhookJobHandlers } from './webhooks/webhook.jobs.ts'

export interface BackgroundJobsOptions {
  database: Database
  logger: Logger
  clock: Clock
  privacy: PrivacyDeps
  webhooks: WebhookDeps
  /** Deliveries sent at once by this process (ERRATA_WEBHOOK_CONCURRENCY). */
  webhookConcurrency: number
  /** Settings for both runners (tests: short retries). */
  runner?: Partial<Pick<JobRunnerOptions, 'pollMs' | 'leaseMs' | 'retryBaseMs' | 'retryMaxMs' | 'stopGraceMs'>>
}

/** What the server and tests do with the background jobs: JobRunner's controls, for both runners at once. */
export type BackgroundJobs = Pick<JobRunner, 'start' | 'wake' | 'drain' | 'stop'>

/** Both runners as one: started, woken, drained and stopped together. */
export function createBackgroundJobs(options: BackgroundJobsOptions): BackgroundJobs {
  const { database, logger, clock } = options
  const common = { database, logger, clock, ...options.runner }
  const runners = [
    new JobRunner({ ...common, handlers: privacyJobHandlers(database.db, options.privacy, logger) }),
    new JobRunner({ ...common, handlers: webhookJobHandlers(database.db, options.webhooks, logger), concurrency: options.webhookConcurrency }),
  ]
  return {
    start: () => runners.forEach((runner) => runner.start()),
    wake: () => runners.forEach((runner) => runner.wake()),
    // Neither family queues the other's kinds, so each drains on its own.
    drain: async () => void (await Promise.all(runners.map((runner) => runner.drain()))),
    stop: async () => void (await Promise.all(runners.map((runner) => runner.stop()))),
  }
}
