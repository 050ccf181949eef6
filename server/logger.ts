import pino, { type Logger } from 'pino'
import { pgErrorCode } from './db/pg-errors.ts'

/**
 * Structured JSON logs on stdout, one line per record. Every thread logs through this (`thread`
 * names the database's and the pipeline's), so all lines share one format and ISO timestamps.
 */
export function createLogger(level: string, thread?: 'database' | 'pipeline'): Logger {
  return pino({
    level,
    base: thread ? { service: 'errata', thread } : { service: 'errata' },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: serializeError },
    // Nothing logs request headers or bodies today; should a record ever carry them, the
    // credentials in them go no further.
    redact: { paths: ['headers.authorization', 'headers.cookie', '*.headers.authorization', '*.headers.cookie', 'body', '*.body'], censor: '[redacted]' },
  })
}

/**
 * pino's error serializer, minus the bound parameters of failed queries anywhere in the cause
 * chain, plus the SQLSTATE. drizzle puts the parameters in the message ("Failed query: …
 * params: …") and in `params`: for ingestion and indexing that is whole event payloads, with
 * users' emails, which have no place in a log (and a database outage would write one per
 * request). The SQL text and the driver's message remain.
 */
export function serializeError(err: unknown): ReturnType<typeof pino.stdSerializers.err> & { code?: string } {
  const serialized = pino.stdSerializers.err(withoutQueryParams(err) as Error)
  const code = pgErrorCode(err)
  return code ? { ...serialized, code } : serialized
}

function withoutQueryParams(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error) || depth > 10) return err
  const cause = withoutQueryParams(err.cause, depth + 1)
  if (!('params' in err) || !('query' in err)) {
    if (cause === err.cause) return err
    const copy = Object.assign(Object.create(Object.getPrototypeOf(err) as object) as Error, err, { cause })
    copy.message = err.message
    copy.stack = err.stack
    return copy
  }
  const clean = Object.assign(new Error(`Failed query: ${String(err.query)}`), { cause })
  clean.name = err.name
  // The stack opens with the message, parameters included: keep only its frames.
  const frames = (err.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line))
  clean.stack = [`${clean.name}: ${clean.message}`, ...frames].join('\n')
  return clean
}
