// The daily digest: once a day (digest_days, so once across processes), from
// Config.alerts.digestHourUtc on, an email to each person who wants it for a project they can
// see, or who has alerts held back by the hourly limit: per project, the errors first seen in
// the last day and the open ones seen in it (the most frequent first), then the held alerts.
// Nobody gets an empty digest.
import { sql } from 'drizzle-orm'
import { DEFAULT_NOTIFICATION_KINDS } from '../../contract/notifications.ts'
import type { AlertSettings } from '../config.ts'
import { queryRows, type Db } from '../db/client.ts'
import { textArrayLiteral } from '../db/text-array.ts'
import type { MailDeps } from '../mail/mail-deps.ts'
import { enqueueMail } from '../mail/mail.jobs.ts'
import { renderEmail } from '../mail/render.ts'
import { digestEmail, errorPath, type DigestProject } from './alert-emails.ts'
import { alertErrorColumns, toAlertError, type AlertErrorRow } from './alert-errors.ts'
import { unsubscribeLinks } from './unsubscribe-links.ts'

const DAY_MS = 86_400_000
/** Errors listed per project and section, and held alerts listed. */
const LISTED = 5
const HELD_LISTED = 20

/** Queues today's digests when their hour has come and nobody sent them; returns how many. */
export async function sendDigestIfDue(tx: Db, mail: MailDeps, settings: AlertSettings, now: Date): Promise<number> {
  if (now.getUTCHours() < settings.digestHourUtc) return 0
  const day = now.toISOString().slice(0, 10)
  const [claimed] = await queryRows<{ day: string }>(
    tx,
    sql`INSERT INTO digest_days (day, sent_at) VALUES (${day}::date, ${now.toISOString()}::timestamptz) ON CONFLICT (day) DO NOTHING RETURNING day`,
  )
  if (!claimed) return 0
  const since = new Date(now.getTime() - DAY_MS).toISOString()
  const readers = await queryRows<{ id: string; email: string; project_ids: string[]; project_names: string[] }>(
    tx,
    sql`WITH wanted AS (
        SELECT u.id, u.email, p.id AS project_id, p.name AS project_name FROM users u
        JOIN collaborators c ON c.user_id = u.id
        JOIN projects p ON p.organization_id = c.organization_id AND (c.is_admin OR c.project_ids IS NULL OR p.id = ANY(c.project_ids))
        LEFT JOIN notification_settings ns ON ns.user_id = u.id AND ns.project_id = p.id
        WHERE 'digest' = ANY(coalesce(ns.kinds, ${textArrayLiteral([...DEFAULT_NOTIFICATION_KINDS])}::text[]))
      )
      SELECT u.id, u.email,
        coalesce(array_agg(w.project_id ORDER BY lower(w.project_name), w.project_id) FILTER (WHERE w.project_id IS NOT NULL), '{}') AS project_ids,
        coalesce(array_agg(w.project_name ORDER BY lower(w.project_name), w.project_id) FILTER (WHERE w.project_id IS NOT NULL), '{}') AS project_names
      FROM users u LEFT JOIN wanted w ON w.id = u.id
      WHERE w.id IS NOT NULL OR EXISTS (SELECT 1 FROM alert_emails a WHERE a.user_id = u.id AND a.held AND a.digested_at IS NULL)
      GROUP BY u.id, u.email ORDER BY u.id`,
  )
  // One project's part is the same for everyone who wants it.
  const parts = new Map<string, DigestProject>()
  const partOf = async (projectId: string, projectName: string): Promise<DigestProject> => {
    let part = parts.get(projectId)
    if (!part) {
      const list = async (where: ReturnType<typeof sql>) =>
        (
          await queryRows<AlertErrorRow>(
            tx,
            sql`SELECT ${alertErrorColumns} FROM errors e JOIN projects p ON p.id = e.project_id
              WHERE e.project_id = ${projectId} AND e.status = 'open' AND e.discarded_at IS NULL AND ${where}
              ORDER BY e.events_count DESC, e.id LIMIT ${LISTED}`,
          )
        ).map(toAlertError)
      const [counts] = await queryRows<{ new_count: number | string; open_count: number | string }>(
        tx,
        sql`SELECT count(*) FILTER (WHERE first_seen >= ${since}::timestamptz) AS new_count, count(*) AS open_count
          FROM errors WHERE project_id = ${projectId} AND status = 'open' AND discarded_at IS NULL`,
      )
      part = {
        projectName,
        newErrors: await list(sql`e.first_seen >= ${since}::timestamptz`),
        newCount: Number(counts?.new_count ?? 0),
        openErrors: await list(sql`e.last_seen >= ${since}::timestamptz AND e.first_seen < ${since}::timestamptz`),
        openCount: Number(counts?.open_count ?? 0),
      }
      parts.set(projectId, part)
    }
    return part
  }
  let queued = 0
  for (const reader of readers) {
    const projects: DigestProject[] = []
    for (const [i, projectId] of reader.project_ids.entries()) {
      const part = await partOf(projectId, reader.project_names[i]!)
      if (part.newCount > 0 || part.openErrors.length > 0) projects.push(part)
    }
    const held = await queryRows<{ summary: string; project_id: string; error_id: string | null; created_at: string | Date }>(
      tx,
      sql`UPDATE alert_emails SET digested_at = ${now.toISOString()}::timestamptz
        WHERE user_id = ${reader.id} AND held AND digested_at IS NULL
        RETURNING summary, project_id, error_id, created_at`,
    )
    if (projects.length === 0 && held.length === 0) continue
    held.sort((a, b) => new Date(a.created_at).getTime() - new Date(b.created_at).getTime())
    const listed = held.slice(0, HELD_LISTED).map((h) => ({ summary: h.summary, url: h.error_id ? mail.urls.web(errorPath({ id: h.error_id, projectId: h.project_id })) : null }))
    const links = await unsubscribeLinks(tx, mail.urls, { userId: reader.id, projectId: null, kind: 'digest' })
    await enqueueMail(tx, mail, reader.email, 'digest', renderEmail(digestEmail(projects, listed, held.length, settings.perHour, mail.urls, links)))
    queued++
  }
  return queued
}
