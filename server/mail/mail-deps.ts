// What sending email needs: the SMTP transport made from Config.mail (null: email is off), the
// From address, the retry schedule and the job wake-up. The operator chooses the SMTP server, so
// the outbound address guard (server/outbound/) does not apply to it, unlike webhook targets.
import { readFileSync } from 'node:fs'
import { rootCertificates } from 'node:tls'
import nodemailer, { type Transporter } from 'nodemailer'
import { systemClock, type Clock } from '../clock.ts'
import type { Config } from '../config.ts'
import { perApp, type AppDeps } from '../context.ts'
import { payloadUrls } from '../webhooks/webhook-deps.ts'
import type { PayloadUrls } from '../webhooks/payload.ts'

export interface MailDeps {
  /** Null when ERRATA_SMTP_URL is unset: nothing is queued and the pages say email is off. */
  transport: Transporter | null
  from: string
  clock: Clock
  /** Starts queued jobs at once (the job runner's wake); a no-op where no runner runs. */
  wakeJobs(): void
  maxAttempts: number
  retryDelayMs(attempt: number): number
  /** Dashboard links in messages: ERRATA_PUBLIC_URL, else the main listener's own address. */
  urls: PayloadUrls
}

/** The wait before attempt n + 1: 30 s doubling up to 30 minutes, ±20 % (8 attempts: about an hour). */
export function mailRetryDelayMs(attempt: number): number {
  const base = Math.min(30_000 * 2 ** (attempt - 1), 1_800_000)
  return Math.round(base * (0.8 + Math.random() * 0.4))
}

/**
 * nodemailer's transport for ERRATA_SMTP_URL: its connection URL (query options such as
 * `requireTLS=true` or `tls.servername=…` pass through), with ERRATA_SMTP_CA trusted besides the
 * system's CAs (a server with a certificate of the operator's own CA).
 */
export function createMailTransport(mail: NonNullable<Config['mail']>): Transporter {
  const ca = mail.caFile ? [...rootCertificates, readFileSync(mail.caFile, 'utf8')] : undefined
  return nodemailer.createTransport({ url: mail.smtpUrl, ...(ca ? { tls: { ca } } : {}) })
}

export function defaultMailDeps(config: Pick<Config, 'mail' | 'publicUrl' | 'host' | 'port'>, overrides: Partial<MailDeps> = {}): MailDeps {
  return {
    transport: config.mail ? createMailTransport(config.mail) : null,
    from: config.mail?.from ?? '',
    clock: systemClock,
    wakeJobs: () => {},
    maxAttempts: config.mail?.maxAttempts ?? 8,
    retryDelayMs: mailRetryDelayMs,
    urls: payloadUrls(config),
    ...overrides,
  }
}

declare module '../context.ts' {
  interface AppDeps {
    /** Email's transport, retry schedule and job wake-up; defaults from the config when absent (mailDeps). */
    mail?: MailDeps
  }
}

const defaults = perApp((deps) => defaultMailDeps(deps.config))

/** The app's mail dependencies: those given (server/main.ts, tests), else defaults made once. */
export const mailDeps = (deps: AppDeps): MailDeps => deps.mail ?? defaults(deps)
