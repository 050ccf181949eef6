import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import type { IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { createApp } from '../app.ts'
import { createBackgroundJobs, type BackgroundJobs } from '../background-jobs.ts'
import { createLoginThrottle } from '../auth/login-throttle.ts'
import { hashPassword } from '../auth/passwords.ts'
import { createToken } from '../auth/tokens.ts'
import { loadConfig, type Config } from '../config.ts'
import type { AppDeps } from '../context.ts'
import { openPglite, type Database } from '../db/client.ts'
import { openScratchPostgres } from '../db/scratch-database.ts'
import { migratedPgliteSnapshot } from '../db/migrated-template.ts'
import { newId } from '../db/ids.ts'
import { migrate } from '../db/migrate.ts'
import { users } from '../db/schema.ts'
import { createLimitedServer, type LimitedServer } from '../http/connection-limits.ts'
import { createRequestListener } from '../ingest/accept/node-listener.ts'
import { openIngestion } from '../ingest/pipeline/open.ts'
import { systemClock, type Clock } from '../clock.ts'
import { defaultPrivacyDeps, type PrivacyDeps } from '../privacy/privacy-deps.ts'
import { defaultWebhookDeps, type WebhookDeps } from '../webhooks/webhook-deps.ts'
import { defaultMailDeps, type MailDeps } from '../mail/mail-deps.ts'

/**
 * A fresh, migrated database for one test file: in-memory PGlite, or a new database on
 * the PostgreSQL server in TEST_DATABASE_URL (CI runs the server suite both ways).
 */
export async function createTestDatabase(): Promise<Database> {
  const serverUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL
  if (!serverUrl) {
    const database = await openPglite(undefined, 'silent', await migratedPgliteSnapshot())
    await migrate(database) // nothing left to apply: it checks that
    return database
  }
  return openScratchPostgres(serverUrl, 'errata_test', 5)
}

export interface TestUser {
  id: string
  email: string
  token: string
}

export interface TestContext {
  deps: AppDeps
  app: ReturnType<typeof createApp>
  /**
   * Sends a request to the in-process app, as a user when `token` is given. Events are
   * indexed asynchronously after POST /notify answers; so that tests read what they sent,
   * this waits for the indexer before every other request, and after every ingest request.
   * Tests of the asynchrony itself use `app.request` directly.
   */
  request(path: string, init?: RequestInit & { token?: string; json?: unknown }): Promise<Response>
  createUser(name?: string, password?: string): Promise<TestUser>
  /**
   * The background jobs (privacy requests, webhook deliveries: server/background-jobs.ts), not
   * started: `jobs.drain()` runs what is due and what that queues in turn, so a test decides when
   * the asynchronous work happens.
   */
  jobs: BackgroundJobs
  close(): Promise<void>
}

export interface TestContextOptions {
  /** The privacy requests' and jobs' clock (the 7-day expiry of retrieval files). */
  clock?: Clock
  /** Overrides of the privacy dependencies (a smaller batch, a slower wait for ingestion). */
  privacy?: Partial<PrivacyDeps>
  /** Overrides of the webhook dependencies (the address allow-list, the retry schedule). */
  webhooks?: Partial<WebhookDeps>
  /** Overrides of the mail dependencies (the retry schedule); email is on when the config's `mail` is set. */
  mail?: Partial<MailDeps>
  /** A migrated database of the test's own (an upgraded fixture) rather than a fresh one; closed with the context. */
  database?: Database
}

export async function createTestContext(overrides: Partial<Config> = {}, options: TestContextOptions = {}): Promise<TestContext> {
  const database = options.database ?? (await createTestDatabase())
  // DATA_DIR of this test's own (retrieval files of the embedded database go there).
  const dataDir = mkdtempSync(join(tmpdir(), 'errata-data-'))
  const config = { ...loadConfig({ LOG_LEVEL: 'silent' }), publicUrl: 'http://errata.test', dataDir, ...overrides }
  const logger = pino({ level: 'silent' })
  const ingestWriter = await openIngestion(database, config.ingest, logger)
  const clock = options.clock ?? systemClock
  const privacy = defaultPrivacyDeps(
    { database, config, ingestWriter },
    { clock, ...options.privacy },
  )
  const webhooks = defaultWebhookDeps(config, { clock, ...options.webhooks })
  const mail = defaultMailDeps(config, { clock, retryDelayMs: () => 1, ...options.mail })
  const jobs = createBackgroundJobs({
    database,
    logger,
    clock,
    privacy,
    webhooks,
    mail,
    retention: config.retention,
    alerts: config.alerts,
    webhookConcurrency: config.webhookDelivery.concurrency,
    runner: { retryBaseMs: 1, retryMaxMs: 1 },
  })
  const deps: AppDeps = { config, database, logger, ingestWriter, loginThrottle: createLoginThrottle(), privacy, webhooks, mail }
  const app = createApp(deps)

  return {
    deps,
    app,
    request: async (path, init = {}) => {
      const { token, json, ...rest } = init
      const headers = new Headers(rest.headers)
      if (token) headers.set('Authorization', `token ${token}`)
      if (!headers.has('X-Version') && path.startsWith('/api')) headers.set('X-Version', '2')
      if (json !== undefined) headers.set('Content-Type', 'application/json')
      const body = json !== undefined ? JSON.stringify(json) : rest.body
      const ingest = path.startsWith('/notify') || path.startsWith('/sessions')
      if (!ingest) await ingestWriter.indexed()
      const response = await app.request(`http://errata.test${path}`, { ...rest, headers, body })
      if (ingest) await ingestWriter.indexed()
      return response
    },
    createUser: async (name = 'Test User', password = 'correct horse battery') => {
      const id = newId()
      const email = `${name.toLowerCase().replace(/\W+/g, '.')}.${id.slice(-6)}@example.com`
      await database.db.insert(users).values({ id, email, name, passwordHash: await hashPassword(password) })
      const { token } = await createToken(database.db, id, 'test')
      return { id, email, token }
    },
    jobs,
    close: async () => {
      await jobs.stop()
      mail.transport?.close()
      await ingestWriter.close()
      await database.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * Serves a test context over real HTTP on an ephemeral 127.0.0.1 port, with the server's own
 * request listener (ingestion answered on node:http, the rest by the app), as `npm start` does:
 * compatibility tests run real notifier clients against it. `observe` sees each request first.
 * `close` stops accepting and cuts the connections still open.
 */
export async function listen(
  ctx: Pick<TestContext, 'app' | 'deps'>,
  observe?: (request: IncomingMessage) => void,
): Promise<{ url: string; close(): Promise<void>; connections: Pick<LimitedServer, 'open'> }> {
  const listener = await createRequestListener(ctx.app, ctx.deps)
  const limited = createLimitedServer((request, response) => {
    observe?.(request)
    listener(request, response)
  }, ctx.deps.config.limits)
  const { server } = limited
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    connections: limited,
    close: async () => {
      listener.close()
      await limited.close(0)
    },
  }
}
