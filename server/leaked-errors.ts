import type { Logger } from 'pino'

/**
 * A backstop, not a fix: an error some request's code leaked (an 'error' event nothing listened
 * for, a rejection nothing awaited) is logged, and the process goes on serving everyone else
 * instead of stopping for it. Each one logged is a bug to fix where it leaked. Installed once
 * Errata listens, so that a failing start still stops the process.
 */
export function logLeakedErrors(logger: Logger): void {
  process.on('uncaughtException', (err) => logger.error({ err }, 'uncaught exception (a bug; serving goes on)'))
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection (a bug; serving goes on)'))
}
