// Email alerts as durable jobs (server/jobs), on top of mail.send:
// - alerts.send: the alerts one change made (an index batch's new and reopened errors, an
//   assignment, a comment), queued in that change's transaction (queueAlerts). Run, it finds who
//   wants each one (notification_settings, else the defaults, among the people who can see the
//   project; never the person who acted), and for each reader queues an email, or, past
//   Config.alerts.perHour emailed in the last hour, holds the alert for the next digest. One
//   transaction, fenced: a run cut off by a crash sends nothing twice.
// - alerts.tick (keyed: one at a time across processes), queued every Config.alerts.checkMs: the
//   spiking errors of the current hour (spikes.ts), the daily digest once its hour has come
//   (digest.ts), and the pruning of old alert records.
// With email off, both do nothing: alerts are not kept for a later SMTP server.
import { sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { DEFAULT_NOTIFICATION_KINDS } from '../../contract/notifications.ts'
import type { AlertSettings } from '../config.ts'
import { queryRows, withTransaction, type Db } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { textArrayLiteral } from '../db/text-array.ts'
import { enqueueJob, type JobHandler } from '../jobs/jobs.ts'
import type { MailDeps } from '../mail/mail-deps.ts'
import { enqueueMail } from '../mail/mail.jobs.ts'
import { renderEmail } from '../mail/render.ts'
import { alertEmail, alertSummary, type AlertDetails, type AlertError, type AlertKind } from './alert-emails.ts'
import { alertErrorColumns, toAlertError, type AlertErrorRow } from './alert-errors.ts'
import { sendDigestIfDue } from './digest.ts'
import { spikingErrors } from './spikes.ts'
import { unsubscribeLinks } from './unsubscribe-links.ts'

export const ALERTS_SEND_JOB = 'alerts.send'
export const ALERTS_TICK_JOB = 'alerts.tick'

export interface Alert {
  kind: AlertKind
  projectId: string
  errorId: string
  /** Whose change it was: they are not told of it. */
  actorId?: string | null
  /** assigned: the person it was assigned to (told only while it still is). */
  assigneeId?: string
  comment?: string
  reopenedFrom?: string
  spike?: { events: number; usual: number }
}

/** Queues the alerts of a change in its transaction (nothing when there are none). */
export async function queueAlerts(db: Db, alerts: readonly Alert[], now: Date): Promise<void> {
  if (alerts.length === 0) return
  await enqueueJob(db, ALERTS_SEND_JOB, { alerts }, now)
}

/** Queues the periodic tick unless one is queued or running. */
export function enqueueAlertTick(db: Db, now: Date): Promise<string | null> {
  return enqueueJob(db, ALERTS_TICK_JOB, {}, now, { key: 'alerts' })
}

async function alertErrors(tx: Db, ids: readonly string[]): Promise<Map<string, AlertError & { assigneeId: string | null }>> {
  const rows = await queryRows<AlertErrorRow>(
    tx,
    sql`SELECT ${alertErrorColumns} FROM errors e JOIN projects p ON p.id = e.project_id
      WHERE e.id = ANY(${textArrayLiteral([...new Set(ids)])}::text[]) AND e.discarded_at IS NULL`,
  )
  return new Map(rows.map((r) => [r.id, toAlertError(r)]))
}

interface Reader {
  id: string
  email: string
}

/** Who can see the project and wants `kind` for it, among `only` when given. */
function readersOf(tx: Db, projectId: string, kind: AlertKind, only?: readonly string[]): Promise<Reader[]> {
  return queryRows<Reader>(
    tx,
    sql`SELECT u.id, u.email FROM projects p
      JOIN collaborators c ON c.organization_id = p.organization_id AND (c.is_admin OR c.project_ids IS NULL OR p.id = ANY(c.project_ids))
      JOIN users u ON u.id = c.user_id
      LEFT JOIN notification_settings ns ON ns.user_id = u.id AND ns.project_id = p.id
      WHERE p.id = ${projectId}
        AND ${kind} = ANY(coalesce(ns.kinds, ${textArrayLiteral([...DEFAULT_NOTIFICATION_KINDS])}::text[]))
        ${only ? sql`AND u.id = ANY(${textArrayLiteral([...only])}::text[])` : sql``}
      ORDER BY u.id`,
  )
}

/** The people an alert is for: by kind, less whoever acted. */
async function readersFor(tx: Db, alert: Alert, error: { assigneeId: string | null }): Promise<Reader[]> {
  let only: string[] | undefined
  if (alert.kind === 'assigned') {
    if (!alert.assigneeId || error.assigneeId !== alert.assigneeId) return []
    only = [alert.assigneeId]
  } else if (alert.kind === 'comments') {
    const commenters = await queryRows<{ author_id: string }>(tx, sql`SELECT DISTINCT author_id FROM comments WHERE error_id = ${alert.errorId} AND author_id IS NOT NULL`)
    only = [...new Set([...(error.assigneeId ? [error.assigneeId] : []), ...commenters.map((c) => c.author_id)])]
  }
  const readers = await readersOf(tx, alert.projectId, alert.kind, only)
  return readers.filter((r) => r.id !== alert.actorId)
}

/**
 * Emails each alert to its readers, or holds it for the digest past the hourly limit; in `tx`
 * (the caller's fenced transaction). Returns the emails queued.
 */
export async function deliverAlerts(tx: Db, mail: MailDeps, settings: AlertSettings, alerts: readonly Alert[]): Promise<number> {
  const now = mail.clock()
  const errors = await alertErrors(tx, alerts.map((a) => a.errorId))
  const actorIds = [...new Set(alerts.flatMap((a) => (a.actorId ? [a.actorId] : [])))]
  const actors = new Map(
    (await queryRows<{ id: string; name: string; email: string }>(tx, sql`SELECT id, name, email FROM users WHERE id = ANY(${textArrayLiteral(actorIds)}::text[])`)).map((u) => [
      u.id,
      u.name || u.email,
    ]),
  )
  const sentThisHour = new Map<string, number>()
  let queued = 0
  for (const alert of alerts) {
    const error = errors.get(alert.errorId)
    if (!error) continue
    const readers = await readersFor(tx, alert, error)
    if (readers.length === 0) continue
    // The readers' rows locked in id order: two processes' alerts for one person count one after the other.
    const ids = readers.map((r) => r.id)
    await tx.execute(sql`SELECT 1 FROM users WHERE id = ANY(${textArrayLiteral(ids)}::text[]) ORDER BY id FOR UPDATE`)
    const unknown = ids.filter((id) => !sentThisHour.has(id))
    if (unknown.length > 0) {
      const counts = await queryRows<{ user_id: string; n: number | string }>(
        tx,
        sql`SELECT user_id, count(*) AS n FROM alert_emails
          WHERE user_id = ANY(${textArrayLiteral(unknown)}::text[]) AND NOT held AND created_at > ${new Date(now.getTime() - 3_600_000).toISOString()}::timestamptz
          GROUP BY user_id`,
      )
      for (const id of unknown) sentThisHour.set(id, 0)
      for (const c of counts) sentThisHour.set(c.user_id, Number(c.n))
    }
    const details: AlertDetails = {
      ...(alert.actorId && { actorName: actors.get(alert.actorId) ?? 'Someone' }),
      ...(alert.comment !== undefined && { comment: alert.comment }),
      ...(alert.spike && { spike: alert.spike }),
      ...(alert.reopenedFrom && { reopenedFrom: alert.reopenedFrom }),
    }
    const summary = alertSummary(alert.kind, error, details)
    for (const reader of readers) {
      const held = sentThisHour.get(reader.id)! >= settings.perHour
      if (!held) {
        const links = await unsubscribeLinks(tx, mail.urls, { userId: reader.id, projectId: alert.projectId, kind: alert.kind })
        await enqueueMail(tx, mail, reader.email, `alert:${alert.kind}`, renderEmail(alertEmail(alert.kind, error, details, mail.urls, links)))
        sentThisHour.set(reader.id, sentThisHour.get(reader.id)! + 1)
        queued++
      }
      await tx.execute(sql`INSERT INTO alert_emails (id, user_id, project_id, error_id, kind, summary, held, created_at)
        VALUES (${newId(now.getTime())}, ${reader.id}, ${alert.projectId}, ${alert.errorId}, ${alert.kind}, ${summary}, ${held}, ${now.toISOString()}::timestamptz)`)
    }
  }
  return queued
}

export function alertJobHandlers(db: Db, mail: MailDeps, settings: AlertSettings, logger: Logger): JobHandler<never>[] {
  const send: JobHandler<{ alerts: Alert[] }> = {
    kind: ALERTS_SEND_JOB,
    async run(job) {
      if (!mail.transport) return
      const queued = await withTransaction(db, async (tx) => {
        await job.fence(tx)
        return deliverAlerts(tx, mail, settings, job.payload.alerts)
      })
      if (queued > 0) mail.wakeJobs()
    },
  }
  const tick: JobHandler<Record<string, never>> = {
    kind: ALERTS_TICK_JOB,
    async run(job) {
      if (!mail.transport) return
      const now = mail.clock()
      const queued = await withTransaction(db, async (tx) => {
        await job.fence(tx)
        const spikes = await spikingErrors(tx, now)
        const alerts = await deliverAlerts(tx, mail, settings, spikes.map((s) => ({ kind: 'spiking' as const, ...s })))
        const digests = await sendDigestIfDue(tx, mail, settings, now)
        if (digests > 0) logger.info({ digests }, 'daily digest queued')
        // Records no digest waits for, past the hour the limit looks at (two days: room for a late digest).
        await tx.execute(sql`DELETE FROM alert_emails
          WHERE created_at < ${new Date(now.getTime() - 2 * 86_400_000).toISOString()}::timestamptz AND (NOT held OR digested_at IS NOT NULL)`)
        return alerts + digests
      })
      if (queued > 0) mail.wakeJobs()
    },
  }
  return [send as unknown as JobHandler<never>, tick as unknown as JobHandler<never>]
}
