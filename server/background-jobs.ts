// The background jobs every Errata process runs (server/main.ts; tests through test-app.ts):
// privacy requests, webhook deliveries, email (with its alerts) and the retention sweep, each family in a job runner with
// slots of its own, so deliveries waiting on slow receivers never hold a privacy request back, nor
// a long sweep either. The runners claim from the one jobs table by kind, so this holds on either
// engine and with any number of processes on one PostgreSQL.
import type { Logger } from 'pino'
import type { Clock } from './clock.ts'
import type { Database } from './db/client.ts'
import { JobRunner, type JobRunnerOptions } from './jobs/job-runner.ts'
import type { MailDeps } from './mail/mail-deps.ts'
import { mailJobHandlers } from './mail/mail.jobs.ts'
import { alertJobHandlers, enqueueAlertTick } from './notifications/alerts.jobs.ts'
import type { AlertSettings } from './config.ts'
import type { PrivacyDeps } from './privacy/privacy-deps.ts'
import { privacyJobHandlers } from './privacy/privacy.jobs.ts'
import { enqueueRetentionSweep, retentionJobHandlers, type RetentionSettings } from './retention/retention.jobs.ts'
import type { WebhookDeps } from './webhooks/webhook-deps.ts'
import { webhookJobHandlers } from './webhooks/webhook.jobs.ts'

export interface BackgroundJobsOptions {
  database: Database
  logger: Logger
  clock: Clock
  privacy: PrivacyDeps
  webhooks: WebhookDeps
  mail: MailDeps
  /** Config.alerts: the alerts' tick queued at start and every `checkMs` after (tests queue theirs: enqueueAlertTick). */
  alerts: AlertSettings
  /** Config.retention: the sweep queued at start and every `intervalMs` after (the job's key keeps it to one at a time). */
  retention: RetentionSettings
  /** Deliveries sent at once by this process (ERRATA_WEBHOOK_CONCURRENCY). */
  webhookConcurrency: number
  /** Settings for both runners (tests: short retries). */
  runner?: Partial<Pick<JobRunnerOptions, 'pollMs' | 'leaseMs' | 'retryBaseMs' | 'retryMaxMs' | 'stopGraceMs'>>
}

/** What the server and tests do with the background jobs: JobRunner's controls, for both runners at once. */
export type BackgroundJobs = Pick<JobRunner, 'start' | 'wake' | 'drain' | 'stop'>

/**
 * The runners as one: started, woken, drained and stopped together. Started, it also queues a
 * retention sweep at once and every `retention.intervalMs`, and with email on the alerts' tick
 * every `alerts.checkMs` (tests queue theirs: enqueueRetentionSweep, enqueueAlertTick).
 */
export function createBackgroundJobs(options: BackgroundJobsOptions): BackgroundJobs {
  const { database, logger, clock } = options
  const common = { database, logger, clock, ...options.runner }
  const retention = new JobRunner({
    ...common,
    handlers: retentionJobHandlers(database.db, options.privacy, options.retention, logger),
    concurrency: 1,
  })
  const runners = [
    new JobRunner({ ...common, handlers: privacyJobHandlers(database.db, options.privacy, logger) }),
    new JobRunner({ ...common, handlers: webhookJobHandlers(database.db, options.webhooks, logger), concurrency: options.webhookConcurrency }),
    new JobRunner({ ...common, handlers: [...mailJobHandlers(options.mail, logger), ...alertJobHandlers(database.db, options.mail, options.alerts, logger)], concurrency: 2 }),
    retention,
  ]
  let schedules: NodeJS.Timeout[] = []
  // Periodic work: queued at start and every interval; the job's key keeps it to one at a time.
  const periodic = (what: string, enqueue: () => Promise<unknown>, intervalMs: number) => {
    const queue = () =>
      void enqueue()
        .then(() => runners.forEach((runner) => runner.wake()))
        .catch((err: unknown) => logger.warn({ err }, `queueing ${what} failed`))
    queue()
    const timer = setInterval(queue, intervalMs)
    timer.unref()
    schedules.push(timer)
  }
  return {
    start: () => {
      runners.forEach((runner) => runner.start())
      if (schedules.length > 0) return
      periodic('the retention sweep', () => enqueueRetentionSweep(database.db, clock()), options.retention.intervalMs)
      // Email off: no tick (nothing to look for).
      if (options.mail.transport) periodic('the alerts check', () => enqueueAlertTick(database.db, clock()), options.alerts.checkMs)
    },
    wake: () => runners.forEach((runner) => runner.wake()),
    // No family queues another's kinds, so each drains on its own.
    drain: async () => void (await Promise.all(runners.map((runner) => runner.drain()))),
    stop: async () => {
      schedules.forEach((timer) => clearInterval(timer))
      schedules = []
      await Promise.all(runners.map((runner) => runner.stop()))
    },
  }
}
