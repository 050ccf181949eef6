// Sending email as durable jobs (server/jobs): a message is rendered when it is queued, in the
// transaction that makes what it tells of (an invitation, a reset link), and one `mail.send` job
// sends it, retried with the mail schedule on any failure (a refusing or unreachable server).
// After the last attempt the job is recorded failed (its last_error kept 30 days) and logged.
// A send cut off by a crash is sent again (at-least-once).
import type { Logger } from 'pino'
import type { Db } from '../db/client.ts'
import { enqueueJob, type JobHandler } from '../jobs/jobs.ts'
import type { MailDeps } from './mail-deps.ts'
import type { RenderedEmail } from './render.ts'

export const MAIL_SEND_JOB = 'mail.send'

export interface MailJobPayload extends RenderedEmail {
  to: string
  /** What the message is, for logs: 'invitation', 'password-reset', later alerts and digests. */
  purpose: string
}

/**
 * Queues `email` to `to` in `db`'s transaction; the caller wakes the jobs once it commits. Null
 * when email is off (nothing queued).
 */
export async function enqueueMail(db: Db, mail: MailDeps, to: string, purpose: string, email: RenderedEmail): Promise<string | null> {
  if (!mail.transport) return null
  const payload: MailJobPayload = { to, purpose, ...email }
  return enqueueJob(db, MAIL_SEND_JOB, { ...payload }, mail.clock(), { maxAttempts: mail.maxAttempts })
}

export function mailJobHandlers(mail: MailDeps, logger: Logger): JobHandler<never>[] {
  const send: JobHandler<MailJobPayload> = {
    kind: MAIL_SEND_JOB,
    retryDelayMs: (attempt) => mail.retryDelayMs(attempt),
    async run(job) {
      // Email was turned off since it was queued: it cannot be sent.
      if (!mail.transport) throw new Error('email is off (ERRATA_SMTP_URL is not set)')
      const { to, subject, text, html, headers, purpose } = job.payload
      const info = await mail.transport.sendMail({ from: mail.from, to, subject, text, html, headers })
      logger.info({ job: job.id, purpose, messageId: info.messageId }, 'email sent')
    },
    async failed(_tx, job) {
      logger.error({ job: job.id, purpose: job.payload.purpose, error: job.error }, 'email not sent: gave up after the last attempt')
    },
  }
  return [send as unknown as JobHandler<never>]
}
