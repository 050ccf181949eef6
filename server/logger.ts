import pino, { type Logger } from 'pino'

/** Structured JSON logs on stdout, one line per record. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'errata' },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: serializeError },
  })
}

/**
 * pino's error serializer, minus the bound parameters of a failed query. drizzle puts them in
 * the message ("Failed query: … params: …") and in `params`: for ingestion and indexing that
 * is whole event payloads, with users' emails, which have no place in a log (and a database
 * outage would write one per request). The SQL text, the driver's message and code remain.
 */
export function serializeError(err: unknown): ReturnType<typeof pino.stdSerializers.err> {
  if (!(err instanceof Error) || !('params' in err) || !('query' in err)) return pino.stdSerializers.err(err as Error)
  const withoutParams = Object.assign(new Error(`Failed query: ${String(err.query)}`), { cause: err.cause })
  withoutParams.name = err.name
  // The stack opens with the message, parameters included: keep only its frames.
  const frames = (err.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line))
  withoutParams.stack = [`${withoutParams.name}: ${withoutParams.message}`, ...frames].join('\n')
  return pino.stdSerializers.err(withoutParams)
}
