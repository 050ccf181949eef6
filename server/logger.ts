import pino, { type Logger } from 'pino'

/** Structured JSON logs on stdout, one line per record. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'errata' }, timestamp: pino.stdTimeFunctions.isoTime })
}
