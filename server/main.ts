import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { RequestListener } from 'node:http'
import { getRequestListener } from '@hono/node-server'
import { createApiPortApp, createApp } from './app.ts'
import { bootstrapFirstAdmin, type BootstrapResult } from './auth/bootstrap.ts'
import { createLoginThrottle, DEFAULT_LOGIN_LIMITS } from './auth/login-throttle.ts'
import { createBackgroundJobs } from './background-jobs.ts'
import { listenForBackups } from './backup/backup-socket.ts'
import { framedNotice } from './cli/framed-notice.ts'
import { ConfigError, loadConfig } from './config.ts'
import type { AppDeps } from './context.ts'
import { openDatabase } from './db/client.ts'
import { DataDirInUseError } from './db/data-dir-lock.ts'
import { journalDir } from './db/data-dir-layout.ts'
import { DataDirOwnerError } from './db/data-dir-permissions.ts'
import { startMaintenance } from './db/maintenance.ts'
import { DevelopmentBuildDatabaseError, migrate } from './db/migrate.ts'
import { createLimitedServer, type ConnectionLimits, type LimitedServer } from './http/connection-limits.ts'
import { createRequestListener } from './ingest/accept/node-listener.ts'
import { openIngestion } from './ingest/pipeline/open.ts'
import { logLeakedErrors } from './leaked-errors.ts'
import type { Logger } from 'pino'
import { createLogger } from './logger.ts'
import { defaultPrivacyDeps } from './privacy/privacy-deps.ts'
import { sweepRetrievalFiles } from './privacy/privacy.jobs.ts'
import { startDiskGuard } from './storage/disk-guard.ts'
import { defaultWebhookDeps } from './webhooks/webhook-deps.ts'
import { defaultMailDeps } from './mail/mail-deps.ts'

async function buildDashboardIfNeeded(staticDir: string, log: (msg: string) => void): Promise<void> {
  if (existsSync(join(staticDir, 'index.html'))) return
  log('building the dashboard (first start)…')
  const started = performance.now()
  const { build } = await import('vite')
  // A first start builds for up to a minute or so on a slow machine: say how far it got, every few
  // seconds, on the terminal of the person who started it.
  let modules = 0
  let lastReport = performance.now()
  const progress = {
    name: 'errata:build-progress',
    transform() {
      modules += 1
      if (performance.now() - lastReport < 3000) return null
      lastReport = performance.now()
      process.stdout.write(`Building the dashboard (first start): ${modules} modules…\n`)
      return null
    },
  }
  process.stdout.write('Building the dashboard (first start; later starts skip this)…\n')
  await build({ logLevel: 'warn', build: { outDir: staticDir }, plugins: [progress] })
  const seconds = Math.round((performance.now() - started) / 100) / 10
  process.stdout.write(`Dashboard built in ${seconds} s (${modules} modules).\n`)
  log(`dashboard built in ${seconds} s`)
}

/** The first admin's sign-in, printed once in clear for the person starting Errata for the first time. */
function firstAdminNotice(admin: BootstrapResult): string {
  const generated = admin.generatedPassword !== undefined || admin.generatedToken !== undefined
  return framedNotice([
    generated ? 'First admin created. Shown only once: store these now.' : 'First admin created.',
    '',
    `email:       ${admin.email}`,
    `password:    ${admin.generatedPassword ?? 'as set in ERRATA_ADMIN_PASSWORD'}`,
    `auth token:  ${admin.generatedToken ?? 'as set in ERRATA_ADMIN_TOKEN'}`,
    '',
    'A lost password: npm run errata -- reset-password EMAIL (docs/operations.md)',
  ])
}

/** A port Errata cannot listen on, with what to do about it. */
class ListenError extends Error {}

/** host:port as a client would write it; a wildcard address is reached as localhost. */
export function defaultRequestHost(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host
  return port === 0 ? name : `${name}:${port}`
}

/** Listens on host:port with `listener` (answering requests that carry no Host header as that address). */
async function listen(
  listener: (hostname: string) => RequestListener | Promise<RequestListener>,
  host: string,
  port: number,
  setting: string,
  limits: ConnectionLimits,
): Promise<LimitedServer> {
  // The request URL's host when a client sends no Host header (HTTP/1.0): this address with its
  // port, so Link and url fields still point here.
  const handler = await listener(defaultRequestHost(host, port))
  return new Promise<LimitedServer>((resolve, reject) => {
    const refused = (err: NodeJS.ErrnoException) => {
      const why =
        err.code === 'EADDRINUSE'
          ? `${host}:${port} is already in use (is Errata already running?); set ${setting} to another port`
          : err.code === 'EACCES'
            ? `no permission to listen on ${host}:${port}; set ${setting} to a port above 1023`
            : `cannot listen on ${host}:${port} (${err.message})`
      reject(new ListenError(why))
    }
    const limited = createLimitedServer(handler, limits)
    const { server } = limited
    server.once('error', refused)
    server.listen(port, host, () => {
      // Only failing to listen is handled here; later server errors keep Node's default.
      server.off('error', refused)
      resolve(limited)
    })
  })
}

// How long a stopping server waits for clients to let go of their connections before cutting them.
const CLOSE_GRACE_MS = 10_000

/** Stops a listener; says so when clients still held connections at the cut-off (they were cut). */
async function closeServer(server: LimitedServer, logger: Logger): Promise<void> {
  const { cut } = await server.close(CLOSE_GRACE_MS)
  if (cut > 0) logger.warn({ connections: cut }, `stopping: ${cut} connections still open after ${CLOSE_GRACE_MS / 1000} s were cut`)
}

async function main(): Promise<void> {
  // Before anything opens a file: whatever Errata creates (the embedded database's files, the
  // ingest journal, retrieval files, the built dashboard) is its user's only (docs/operations.md).
  process.umask(0o077)
  const config = loadConfig()
  const logger = createLogger(config.logLevel)
  if (process.argv.includes('--build-if-needed')) {
    await buildDashboardIfNeeded(config.staticDir, (msg) => logger.info(msg))
  }

  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logLevel: config.logLevel })
  const applied = await migrate(database)
  logger.info({ engine: database.engine, applied }, 'database ready')
  const stopMaintenance = startMaintenance(database, logger)

  const admin = await bootstrapFirstAdmin(database, config.admin)

  const ingestWriter = await openIngestion(database, config.ingest, logger, { journalDir: journalDir(config.dataDir), logLevel: config.logLevel })
  const diskGuard = await startDiskGuard({ dir: config.dataDir, minFree: config.disk.minFree, checkMs: config.disk.checkMs, logger })
  // Background jobs (privacy requests, webhook deliveries, email): claimed from the database by every process.
  const wake = { jobs: (): void => {} }
  const privacy = defaultPrivacyDeps({ database, config, ingestWriter }, { wakeJobs: () => wake.jobs() })
  const webhooks = defaultWebhookDeps(config, { wakeJobs: () => wake.jobs() })
  const mail = defaultMailDeps(config, { wakeJobs: () => wake.jobs() })
  const jobRunner = createBackgroundJobs({
    database,
    logger,
    clock: privacy.clock,
    privacy,
    webhooks,
    mail,
    retention: config.retention,
    alerts: config.alerts,
    webhookConcurrency: config.webhookDelivery.concurrency,
  })
  wake.jobs = () => jobRunner.wake()
  const deps: AppDeps = { config, database, logger, ingestWriter, loginThrottle: createLoginThrottle({ ...DEFAULT_LOGIN_LIMITS, maxDelayMs: config.signInMaxDelayMs }), privacy, webhooks, mail, diskGuard }
  const servers: LimitedServer[] = []
  let ingestListener: { close(): void } | undefined
  try {
    servers.push(
      await listen(
        async (hostname) => (ingestListener = await createRequestListener(createApp(deps), deps, hostname)),
        config.host,
        config.port,
        'PORT',
        config.limits,
      ),
    )
    if (config.apiPort !== undefined) {
      const apiApp = createApiPortApp(deps)
      servers.push(await listen((hostname) => getRequestListener(apiApp.fetch, { hostname }), config.host, config.apiPort, 'API_PORT', config.limits))
    }
  } catch (err) {
    // Nothing was accepted yet: close what is open so the data directory is left clean.
    await Promise.all(servers.map((server) => closeServer(server, logger)))
    ingestListener?.close()
    stopMaintenance()
    diskGuard.close()
    await ingestWriter.close()
    await database.close()
    throw err
  }
  await sweepRetrievalFiles(privacy, logger)
  // `npm run errata -- backup` while this process holds the embedded database.
  const operatorSocket = await listenForBackups(database, config.dataDir, logger)
  jobRunner.start()
  const origin = `http://${config.host}:${config.port}`
  logger.info({ url: origin }, 'Errata is listening')
  logLeakedErrors(logger)
  // The first admin's credentials come last, framed, in the same write: the line an operator
  // waits for is followed by what they must store.
  process.stdout.write(`Errata is running at ${config.publicUrl ?? origin}\n${admin ? `\n${firstAdminNotice(admin)}\n` : ''}`)
  if (config.apiPort !== undefined) {
    logger.info({ url: `http://${config.host}:${config.apiPort}` }, 'Data Access API port listening')
  }

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'shutting down: finishing in-flight requests')
    // Running jobs are asked to stop now (a webhook delivery's request is aborted, other jobs stop
    // at their next batch) and handed back to the queue within 10 s, whatever they are doing, for
    // another process or the next start; meanwhile the listeners let their clients go.
    const jobsStopped = jobRunner.stop()
    await operatorSocket?.close()
    await Promise.all(servers.map((server) => closeServer(server, logger)))
    ingestListener?.close()
    stopMaintenance()
    diskGuard.close()
    await jobsStopped
    await ingestWriter.close()
    await database.close()
    logger.info('stopped')
    process.exit(0)
  }
  process.on('SIGINT', () => void shutdown('SIGINT'))
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DataDirInUseError || err instanceof DataDirOwnerError || err instanceof ListenError || err instanceof DevelopmentBuildDatabaseError) {
    process.stderr.write(`Errata failed to start: ${err.message}\n`)
  } else {
    process.stderr.write(`Errata failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  }
  process.exit(1)
})
