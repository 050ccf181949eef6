import type { Logger } from 'pino'

/**
 * The SQLSTATE of a database failure, wherever the driver put it: node-postgres and PGlite
 * set `code` on the error, and drizzle wraps it as `cause`.
 */
export function pgErrorCode(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code
  }
  return undefined
}

/** The driver's own message for a failure drizzle wrapped ("Failed query: …" otherwise). */
export function pgErrorMessage(err: unknown): string {
  if (err instanceof Error) return err.cause instanceof Error ? err.cause.message : err.message
  return String(err)
}

// Connection loss, resource exhaustion, shutdown, serialization failures and deadlocks:
// worth retrying as they are. Anything else is a problem with the statement or its data.
const TRANSIENT_CLASSES = ['08', '40', '53', '57', '58']

/**
 * Whether a database failure is worth retrying unchanged. A connection that broke carries no
 * SQLSTATE at all (node-postgres: "Connection terminated unexpectedly", ECONNRESET): the indexer
 * must retry its events then, not set them aside as if they could never be indexed.
 */
export function isTransientPgError(err: unknown): boolean {
  const code = pgErrorCode(err)
  return TRANSIENT_CLASSES.some((c) => code?.startsWith(c)) || isDatabaseUnavailable(err)
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND'])
// node-postgres's own messages for a connection that broke or never came.
const LOST_CONNECTION = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/
// Connection failures (class 08 but 08P01, a protocol violation: our bug), the server shutting
// down or starting (57P01–57P03) and too many connections (53300).
const UNREACHABLE_CODE = /^(08(?!P01)...|57P0[123]|53300)$/

/**
 * Whether the database cannot be reached right now (a restart, a failover, a network fault):
 * answered 503, to be retried, rather than 500, which means a bug. Not deadlocks or other
 * failures of a statement, which say something about the code.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (UNREACHABLE_CODE.test(pgErrorCode(err) ?? '')) return true
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true
    const message = (e as { message?: unknown }).message
    if (typeof message === 'string' && LOST_CONNECTION.test(message)) return true
  }
  return false
}

/** A deadlock or serialization failure (class 40): worth retrying, but a sign of a lock-order bug. */
export function isTransactionConflict(err: unknown): boolean {
  return pgErrorCode(err)?.startsWith('40') ?? false
}

let unavailableLoggedAt = -Infinity
let unavailableSince = 0

/**
 * Logs that the database is unavailable at most once per 10 s per process, with how many failures
 * there were since: an outage under load would otherwise write a line for every request.
 */
export function logDatabaseUnavailable(logger: Logger, err: unknown): void {
  unavailableSince += 1
  if (Date.now() - unavailableLoggedAt < 10_000) return
  logger.warn({ err, failures: unavailableSince }, 'the database is unavailable; answering 503 until it is back')
  unavailableLoggedAt = Date.now()
  unavailableSince = 0
}
