import { z } from 'zod'
import { passwordSchema } from '../contract/users.ts'
import { parseAllowList, type AllowListEntry } from './outbound/allow-list.ts'
import { DEFAULT_MIN_FREE_DISK, parseMinFreeDisk, type MinFreeDisk } from './storage/min-free-disk.ts'

export interface AlertSettings {
  perHour: number
  digestHourUtc: number
  checkMs: number
}

const port = z.coerce.number().int().min(0).max(65535)
const bytes = z.coerce.number().int().positive()

/** Every setting comes from the environment; README.md documents each one. */
const envSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: port.default(8080),
  API_PORT: port.optional(),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().optional(),
  ERRATA_PUBLIC_URL: z.string().url().optional(),
  ERRATA_ADMIN_EMAIL: z.string().email().optional(),
  ERRATA_ADMIN_PASSWORD: z.optional(passwordSchema),
  ERRATA_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  ERRATA_MAX_NOTIFY_BYTES: bytes.default(2 * 1024 * 1024),
  ERRATA_MAX_SESSIONS_BYTES: bytes.default(512 * 1024),
  ERRATA_MAX_API_BODY_BYTES: bytes.default(256 * 1024),
  ERRATA_INGEST_BODY_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  ERRATA_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(4096),
  ERRATA_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(64),
  ERRATA_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).max(300_000).default(10_000),
  ERRATA_INGEST_BATCH_SIZE: z.coerce.number().int().min(1).max(5000).default(500),
  ERRATA_INGEST_FLUSH_MS: z.coerce.number().int().min(0).max(1000).default(1),
  ERRATA_INDEX_BATCH_SIZE: z.coerce.number().int().min(1).max(20000).default(2000),
  ERRATA_INDEX_LINGER_MS: z.coerce.number().int().min(0).max(5000).default(100),
  ERRATA_MAX_SOURCE_MAP_BYTES: bytes.default(50 * 1024 * 1024),
  ERRATA_MAX_UPLOADS_PER_ADDRESS: z.coerce.number().int().min(1).max(10_000).default(4),
  ERRATA_SOURCE_MAP_CACHE_BYTES: bytes.default(256 * 1024 * 1024),
  ERRATA_MAX_SYMBOL_FILE_BYTES: bytes.default(256 * 1024 * 1024),
  ERRATA_MAX_MINIDUMP_BYTES: bytes.default(50 * 1024 * 1024),
  ERRATA_SYMBOL_CACHE_BYTES: bytes.default(256 * 1024 * 1024),
  ERRATA_FETCH_SOURCES: z.enum(['true', 'false'], { error: 'must be true or false' }).default('true'),
  ERRATA_FETCH_ALLOW: z.string().default(''),
  ERRATA_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  ERRATA_WEBHOOK_ALLOW: z.string().default(''),
  ERRATA_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  ERRATA_WEBHOOK_MAX_RESPONSE_BYTES: bytes.default(64 * 1024),
  ERRATA_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
  ERRATA_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  ERRATA_RETENTION_INTERVAL_MS: z.coerce.number().int().min(1000).max(86_400_000).default(300_000),
  ERRATA_SOURCE_MAPS_KEPT: z.coerce.number().int().min(1).max(10_000).default(20),
  ERRATA_PRIVACY_BATCH_SIZE: z.coerce.number().int().min(1).max(5000).default(500),
  ERRATA_READY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  ERRATA_READY_MAX_BACKLOG: z.coerce.number().int().min(1).max(10_000).default(10_000),
  ERRATA_READY_STALL_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  ERRATA_MAX_FILTERED_QUERIES: z.coerce.number().int().min(1).max(1000).optional(),
  ERRATA_FILTERED_QUERY_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
  ERRATA_SMTP_URL: z
    .string()
    .url()
    .refine((value) => /^smtps?:\/\//i.test(value), 'must start with smtp:// (STARTTLS) or smtps:// (TLS from the start)')
    .optional(),
  ERRATA_SMTP_CA: z.string().optional(),
  ERRATA_MAIL_FROM: z.string().optional(),
  ERRATA_MAIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(8),
  ERRATA_ALERTS_PER_HOUR: z.coerce.number().int().min(1).max(10_000).default(10),
  ERRATA_DIGEST_HOUR: z.coerce.number().int().min(0).max(23).default(9),
  ERRATA_ALERT_CHECK_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  ERRATA_PASSWORD_RESET_MINUTES: z.coerce.number().int().min(5).max(10_080).default(60),
  ERRATA_SIGNIN_MAX_DELAY_MS: z.coerce.number().int().min(1000).max(3_600_000).default(60_000),
  ERRATA_MIN_FREE_DISK: z.string().optional(),
  ERRATA_DISK_CHECK_MS: z.coerce.number().int().min(100).max(600_000).default(5000),
  ERRATA_STATIC_DIR: z.string().default('./dist'),
  ERRATA_REQUEST_LOG: z.enum(['all', 'errors', 'off'], { error: 'must be all, errors or off' }).default('all'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
})

export interface Config {
  host: string
  port: number
  apiPort: number | undefined
  dataDir: string
  databaseUrl: string | undefined
  /** Base of the `url` / `html_url` fields when the request's own origin should not be used. */
  publicUrl: string | undefined
  admin: { email?: string; password?: string; token?: string }
  limits: {
    notifyBytes: number
    sessionsBytes: number
    apiBodyBytes: number
    /** How long a /notify or /sessions body may take to arrive before 408 (notifier bodies are small). */
    ingestBodyTimeoutMs: number
    /**
     * Open connections per listener, in all and from one client address (past the latter a new
     * connection is closed at once; past the former it replaces the longest waiting one).
     */
    connections: number
    connectionsPerAddress: number
    /** How long a request's headers may take to arrive before 408. */
    headersTimeoutMs: number
  }
  sourceMaps: {
    /** Largest file of an upload (a map, minified file or source); the whole upload may hold 4 of them. */
    maxFileBytes: number
    /** Uploads in progress at once from one client address; past it 429 (each holds a few MiB and a temporary directory). */
    uploadsPerAddress: number
    /** Parsed source maps kept in each process's memory, in (estimated) bytes. */
    cacheBytes: number
    /** Whether minified files, maps and sources may be fetched by URL (spec rule 7). */
    fetch: boolean
    /** Hosts and networks fetching may reach although loopback, link-local or private. */
    fetchAllow: AllowListEntry[]
    /** The whole fetch of one URL: connecting, redirects, headers and body. */
    fetchTimeoutMs: number
  }
  /** The accepted-event log's group commit and the indexer behind it (docs/ingestion.md). */
  ingest: {
    /** Most events stored at once (group commit): one journal append or one ingest_log insert. */
    batchSize: number
    /** How long a batch waits for more events before it is stored. */
    flushMs: number
    /** The indexer's batching rule: a pass starts once this many events wait; the most requests one transaction indexes. */
    indexBatchSize: number
    /** ...or once the oldest waiting event has waited this long. */
    indexLingerMs: number
  }
  /** Loopback, link-local and private hosts or networks webhook targets may be all the same. */
  webhookAllow: AllowListEntry[]
  /**
   * One delivery attempt's whole time (connecting, sending, the answer's headers and body) and
   * the answer's bytes read at most; deliveries sent at once per process, in slots of their own.
   */
  webhookDelivery: { timeoutMs: number; maxResponseBytes: number; concurrency: number }
  /**
   * GET /readyz: how long the database may take to answer; on the embedded database (one
   * connection), how long it may go without answering any query while others keep the probe's
   * waiting; and the ingest backlog it tolerates.
   */
  readiness: { timeoutMs: number; stallMs: number; maxBacklog: number }
  /**
   * API requests with filters (the expensive ones: a "contains" filter scans events) running at
   * once per process, and how long one waits for its turn before a 503 with Retry-After.
   */
  filteredQueries: { concurrency: number; waitMs: number }
  /** Events per privacy deletion batch (one short transaction each) and per export read. */
  privacyBatchSize: number
  /**
   * Retention (server/retention/): days events are kept unless a project says otherwise, how
   * often the sweep runs, and the uploaded source maps kept per minified URL besides those in use.
   */
  retention: { defaultDays: number; intervalMs: number; sourceMapsKept: number }
  /**
   * Email (server/mail/): the SMTP server's URL (nodemailer's connection URL: smtp:// uses
   * STARTTLS when offered, `?requireTLS=true` insists on it; smtps:// is TLS from the start), a
   * PEM file of the CA its certificate is checked against besides the system's, the From address,
   * and the attempts of one message before it is recorded as failed. Null: email is off.
   */
  mail: { smtpUrl: string; caFile: string | undefined; from: string; maxAttempts: number } | null
  /**
   * Native crashes (server/native/): the largest symbol file (a Breakpad .sym or an ELF object,
   * after any gzip is undone) and minidump accepted, and the SymCaches kept in each process's
   * memory, in bytes.
   */
  native: { maxSymbolFileBytes: number; maxMinidumpBytes: number; cacheBytes: number }
  /**
   * Email alerts (server/notifications/): alert emails per person per hour before the rest wait
   * for the digest, the hour (UTC) the daily digest goes out, and how often spikes and the
   * digest's hour are looked for.
   */
  alerts: AlertSettings
  /** How long a "forgot password" link works. */
  passwordResetMs: number
  /**
   * Sign-in throttling (server/auth/login-throttle.ts): the longest wait between sign-ins for one
   * email from browsers it has not signed in from, once they failed too often.
   */
  signInMaxDelayMs: number
  /**
   * The low disk guard (server/storage/disk-guard.ts): the free space DATA_DIR's file system must
   * keep, below which events (503) and uploads (507) are refused, and how often it is looked at.
   */
  disk: { minFree: MinFreeDisk; checkMs: number }
  staticDir: string
  /**
   * Which requests get a log line: every one (ingestion acknowledgements as a count every 10 s),
   * only those answered 4xx or 5xx, or none.
   */
  requestLog: 'all' | 'errors' | 'off'
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL']
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // A variable set to nothing (`API_PORT=`, as compose files and .env templates leave them) is
  // unset, not a value: an empty port would otherwise read as 0, a random port.
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''))
  const parsed = envSchema.safeParse(given)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`)
  }
  const e = parsed.data
  let fetchAllow: AllowListEntry[]
  try {
    fetchAllow = parseAllowList(e.ERRATA_FETCH_ALLOW)
  } catch (err) {
    throw new ConfigError(`Invalid configuration:\n  ERRATA_FETCH_ALLOW: ${(err as Error).message}`)
  }
  let webhookAllow: AllowListEntry[]
  try {
    webhookAllow = parseAllowList(e.ERRATA_WEBHOOK_ALLOW)
  } catch (err) {
    throw new ConfigError(`Invalid configuration:\n  ERRATA_WEBHOOK_ALLOW: ${(err as Error).message}`)
  }
  let minFree = DEFAULT_MIN_FREE_DISK
  try {
    if (e.ERRATA_MIN_FREE_DISK !== undefined) minFree = parseMinFreeDisk(e.ERRATA_MIN_FREE_DISK)
  } catch (err) {
    throw new ConfigError(`Invalid configuration:\n  ERRATA_MIN_FREE_DISK: ${(err as Error).message}`)
  }
  if (e.ERRATA_SMTP_URL && !e.ERRATA_MAIL_FROM) {
    throw new ConfigError('Invalid configuration:\n  ERRATA_MAIL_FROM: is required when ERRATA_SMTP_URL is set (e.g. "Errata <errata@example.com>")')
  }
  return {
    host: e.HOST,
    port: e.PORT,
    apiPort: e.API_PORT,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL || undefined,
    publicUrl: e.ERRATA_PUBLIC_URL?.replace(/\/+$/, ''),
    admin: { email: e.ERRATA_ADMIN_EMAIL, password: e.ERRATA_ADMIN_PASSWORD, token: e.ERRATA_ADMIN_TOKEN },
    limits: {
      notifyBytes: e.ERRATA_MAX_NOTIFY_BYTES,
      sessionsBytes: e.ERRATA_MAX_SESSIONS_BYTES,
      apiBodyBytes: e.ERRATA_MAX_API_BODY_BYTES,
      ingestBodyTimeoutMs: e.ERRATA_INGEST_BODY_TIMEOUT_MS,
      connections: e.ERRATA_MAX_CONNECTIONS,
      connectionsPerAddress: e.ERRATA_MAX_CONNECTIONS_PER_ADDRESS,
      headersTimeoutMs: e.ERRATA_HEADERS_TIMEOUT_MS,
    },
    sourceMaps: {
      maxFileBytes: e.ERRATA_MAX_SOURCE_MAP_BYTES,
      uploadsPerAddress: e.ERRATA_MAX_UPLOADS_PER_ADDRESS,
      cacheBytes: e.ERRATA_SOURCE_MAP_CACHE_BYTES,
      fetch: e.ERRATA_FETCH_SOURCES === 'true',
      fetchAllow,
      fetchTimeoutMs: e.ERRATA_FETCH_TIMEOUT_MS,
    },
    ingest: {
      batchSize: e.ERRATA_INGEST_BATCH_SIZE,
      flushMs: e.ERRATA_INGEST_FLUSH_MS,
      indexBatchSize: e.ERRATA_INDEX_BATCH_SIZE,
      indexLingerMs: e.ERRATA_INDEX_LINGER_MS,
    },
    webhookAllow,
    webhookDelivery: {
      timeoutMs: e.ERRATA_WEBHOOK_TIMEOUT_MS,
      maxResponseBytes: e.ERRATA_WEBHOOK_MAX_RESPONSE_BYTES,
      concurrency: e.ERRATA_WEBHOOK_CONCURRENCY,
    },
    readiness: { timeoutMs: e.ERRATA_READY_TIMEOUT_MS, stallMs: e.ERRATA_READY_STALL_MS, maxBacklog: e.ERRATA_READY_MAX_BACKLOG },
    // The embedded database runs one query at a time: two filtered queries queued in front of a
    // request or an indexing batch are the most it should wait behind. PostgreSQL runs them
    // side by side on its own cores.
    filteredQueries: { concurrency: e.ERRATA_MAX_FILTERED_QUERIES ?? (e.DATABASE_URL ? 8 : 2), waitMs: e.ERRATA_FILTERED_QUERY_WAIT_MS },
    privacyBatchSize: e.ERRATA_PRIVACY_BATCH_SIZE,
    retention: { defaultDays: e.ERRATA_RETENTION_DAYS, intervalMs: e.ERRATA_RETENTION_INTERVAL_MS, sourceMapsKept: e.ERRATA_SOURCE_MAPS_KEPT },
    mail: e.ERRATA_SMTP_URL
      ? { smtpUrl: e.ERRATA_SMTP_URL, caFile: e.ERRATA_SMTP_CA, from: e.ERRATA_MAIL_FROM!, maxAttempts: e.ERRATA_MAIL_MAX_ATTEMPTS }
      : null,
    native: { maxSymbolFileBytes: e.ERRATA_MAX_SYMBOL_FILE_BYTES, maxMinidumpBytes: e.ERRATA_MAX_MINIDUMP_BYTES, cacheBytes: e.ERRATA_SYMBOL_CACHE_BYTES },
    alerts: { perHour: e.ERRATA_ALERTS_PER_HOUR, digestHourUtc: e.ERRATA_DIGEST_HOUR, checkMs: e.ERRATA_ALERT_CHECK_MS },
    passwordResetMs: e.ERRATA_PASSWORD_RESET_MINUTES * 60_000,
    signInMaxDelayMs: e.ERRATA_SIGNIN_MAX_DELAY_MS,
    disk: { minFree, checkMs: e.ERRATA_DISK_CHECK_MS },
    staticDir: e.ERRATA_STATIC_DIR,
    requestLog: e.ERRATA_REQUEST_LOG,
    logLevel: e.LOG_LEVEL,
  }
}
