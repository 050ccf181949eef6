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

/** Whether a database failure is worth retrying unchanged. */
export function isTransientPgError(err: unknown): boolean {
  const code = pgErrorCode(err)
  return TRANSIENT_CLASSES.some((c) => code?.startsWith(c))
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND'])
// node-postgres's own messages for a connection that broke or never came.
const LOST_CONNECTION = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/

/**
 * Whether a failure means the database cannot be reached or is busy right now (a restart, a
 * network fault, a deadlock): answered 503, to be retried, rather than 500, which means a bug.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (isTransientPgError(err)) return true
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true
    const message = (e as { message?: unknown }).message
    if (typeof message === 'string' && LOST_CONNECTION.test(message)) return true
  }
  return false
}
