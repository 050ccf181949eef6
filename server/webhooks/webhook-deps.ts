import { systemClock, type Clock } from '../clock.ts'
import type { Config } from '../config.ts'
import { perApp, type AppDeps } from '../context.ts'
import type { AllowListEntry } from '../outbound/allow-list.ts'
import type { PayloadUrls } from './payload.ts'

/** Attempts of one delivery before it is given up (docs/webhooks.md, "Retries"). */
export const DELIVERY_MAX_ATTEMPTS = 12

/** The wait before retry n + 1: 30 s doubling up to an hour, ±20 %. About 5.5 hours in all. */
export function deliveryRetryDelayMs(attempt: number): number {
  const base = Math.min(30_000 * 2 ** (attempt - 1), 3_600_000)
  return Math.round(base * (0.8 + Math.random() * 0.4))
}

/** A webhook whose deliveries have all failed for this long is disabled (docs/webhooks.md). */
export const FAILING_DISABLE_DAYS = 3

/** What webhooks need beyond the app's own dependencies; tests pass their own (a clock, short retries). */
export interface WebhookDeps {
  clock: Clock
  /** Starts queued jobs at once (the job runner's wake); a no-op where no runner runs. */
  wakeJobs(): void
  /** ERRATA_WEBHOOK_ALLOW. */
  allow: readonly AllowListEntry[]
  /** One attempt's whole time: connecting, sending, the answer's headers and body. */
  timeoutMs: number
  /** Bytes of an answer read at most. */
  maxResponseBytes: number
  retryDelayMs(attempt: number): number
  maxAttempts: number
  /** Addresses of `url` members: ERRATA_PUBLIC_URL, else the main listener's own address. */
  urls: PayloadUrls
}

/** The base of dashboard links in payloads: ERRATA_PUBLIC_URL, else where the main listener is reached. */
export function payloadUrls(config: Pick<Config, 'publicUrl' | 'host' | 'port'>): PayloadUrls {
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host
  const base = config.publicUrl ?? `http://${host}:${config.port}`
  return { web: (path) => `${base}${path}` }
}

export function defaultWebhookDeps(
  config: Pick<Config, 'publicUrl' | 'host' | 'port' | 'webhookAllow' | 'webhookDelivery'>,
  overrides: Partial<WebhookDeps> = {},
): WebhookDeps {
  return {
    clock: systemClock,
    wakeJobs: () => {},
    allow: config.webhookAllow,
    timeoutMs: config.webhookDelivery.timeoutMs,
    maxResponseBytes: config.webhookDelivery.maxResponseBytes,
    retryDelayMs: deliveryRetryDelayMs,
    maxAttempts: DELIVERY_MAX_ATTEMPTS,
    urls: payloadUrls(config),
    ...overrides,
  }
}

declare module '../context.ts' {
  interface AppDeps {
    /** Webhooks' clock, address allow-list, retry schedule and job wake-up; defaults when absent (webhookDeps). */
    webhooks?: WebhookDeps
  }
}

const defaults = perApp((deps) => defaultWebhookDeps(deps.config))

/** The app's webhook dependencies: those given (server/main.ts, tests), else defaults made once. */
export const webhookDeps = (deps: AppDeps): WebhookDeps => deps.webhooks ?? defaults(deps)
