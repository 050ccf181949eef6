// Each person's choice of what they are emailed about, per project they can see, and the
// unsubscribe links that change it without a sign-in. A project without a row has the defaults
// (DEFAULT_NOTIFICATION_KINDS); the first change writes the row.
import { sql } from 'drizzle-orm'
import {
  DEFAULT_NOTIFICATION_KINDS,
  NOTIFICATION_KINDS,
  type NotificationKind,
  type NotificationSettings,
  type ProjectNotifications,
  type Unsubscribe,
} from '../../contract/notifications.ts'
import type { AlertSettings } from '../config.ts'
import { queryRows, withTransaction, type Db } from '../db/client.ts'
import { textArrayLiteral } from '../db/text-array.ts'
import { readUnsubscribeToken, type UnsubscribeSubject } from './unsubscribe-links.ts'

/** The defaults as an SQL array, for coalesce(notification_settings.kinds, …). */
export const DEFAULT_KINDS_SQL = sql`${textArrayLiteral([...DEFAULT_NOTIFICATION_KINDS])}::text[]`

/** The kinds in their canonical order, once each. */
const ordered = (kinds: Iterable<string>): NotificationKind[] => {
  const set = new Set(kinds)
  return NOTIFICATION_KINDS.filter((k) => set.has(k))
}

interface ProjectRow {
  project_id: string
  project_name: string
  organization_id: string
  organization_name: string
  kinds: string[] | null
}

const toProject = (r: ProjectRow): ProjectNotifications => ({
  project_id: r.project_id,
  project_name: r.project_name,
  organization_id: r.organization_id,
  organization_name: r.organization_name,
  kinds: ordered(r.kinds ?? DEFAULT_NOTIFICATION_KINDS),
  // Choosing exactly the defaults is no customization: the "Reset to defaults" of the page is that choice.
  customized: r.kinds !== null && ordered(r.kinds).join() !== ordered(DEFAULT_NOTIFICATION_KINDS).join(),
})

/** The projects `userId` can see (optionally one), with their choices. */
function visibleProjects(db: Db, userId: string, projectId?: string): Promise<ProjectRow[]> {
  return queryRows<ProjectRow>(
    db,
    sql`SELECT p.id AS project_id, p.name AS project_name, o.id AS organization_id, o.name AS organization_name, ns.kinds
      FROM collaborators c
      JOIN organizations o ON o.id = c.organization_id
      JOIN projects p ON p.organization_id = c.organization_id AND (c.is_admin OR c.project_ids IS NULL OR p.id = ANY(c.project_ids))
      LEFT JOIN notification_settings ns ON ns.user_id = c.user_id AND ns.project_id = p.id
      WHERE c.user_id = ${userId} ${projectId ? sql`AND p.id = ${projectId}` : sql``}
      ORDER BY lower(o.name), o.id, lower(p.name), p.id`,
  )
}

export async function getNotificationSettings(db: Db, userId: string, emailEnabled: boolean, alerts: AlertSettings): Promise<NotificationSettings> {
  const [user] = await queryRows<{ email: string }>(db, sql`SELECT email FROM users WHERE id = ${userId}`)
  const projects = await visibleProjects(db, userId)
  return {
    email_enabled: emailEnabled,
    email: user?.email ?? '',
    alerts_per_hour: alerts.perHour,
    digest_hour_utc: alerts.digestHourUtc,
    projects: projects.map(toProject),
  }
}

/** Replaces the kinds `userId` gets for a project they can see (the caller checked that). */
export async function setProjectNotifications(db: Db, userId: string, projectId: string, kinds: readonly NotificationKind[]): Promise<ProjectNotifications> {
  await db.execute(sql`INSERT INTO notification_settings (user_id, project_id, kinds)
    VALUES (${userId}, ${projectId}, ${textArrayLiteral(ordered(kinds))}::text[])
    ON CONFLICT (user_id, project_id) DO UPDATE SET kinds = excluded.kinds, updated_at = now()`)
  const [row] = await visibleProjects(db, userId, projectId)
  return toProject(row!)
}

/**
 * What an unsubscribe link is about, and whether its holder still gets it; with `subscribe`
 * given, first stops (false) or restarts (true) it: for one project, or for the digest's link
 * every project the person can see. A link of a person since removed from the project still
 * answers (nothing is sent to them about it anyway).
 */
export async function unsubscribeLink(db: Db, token: string, subscribe?: boolean): Promise<Unsubscribe> {
  const subject = await readUnsubscribeToken(db, token)
  if (subscribe !== undefined) {
    await withTransaction(db, (tx) => setKind(tx, subject, subscribe))
  }
  const projects = (await visibleProjects(db, subject.userId)).filter((p) => subject.projectId === null || p.project_id === subject.projectId)
  const [user] = await queryRows<{ email: string }>(db, sql`SELECT email FROM users WHERE id = ${subject.userId}`)
  return {
    kind: subject.kind,
    project_name: subject.projectId === null ? null : (projects[0]?.project_name ?? null),
    email: user?.email ?? '',
    subscribed: projects.some((p) => toProject(p).kinds.includes(subject.kind)),
  }
}

/** Adds or removes one kind for the subject's projects, writing rows from the defaults where none exist. */
async function setKind(tx: Db, subject: UnsubscribeSubject, on: boolean): Promise<void> {
  const projects = (await visibleProjects(tx, subject.userId)).filter((p) => subject.projectId === null || p.project_id === subject.projectId)
  for (const p of projects) {
    const current = toProject(p).kinds
    const next = on ? ordered([...current, subject.kind]) : current.filter((k) => k !== subject.kind)
    if (next.length === current.length && next.every((k, i) => k === current[i])) continue
    await tx.execute(sql`INSERT INTO notification_settings (user_id, project_id, kinds)
      VALUES (${subject.userId}, ${p.project_id}, ${textArrayLiteral(next)}::text[])
      ON CONFLICT (user_id, project_id) DO UPDATE SET kinds = excluded.kinds, updated_at = now()`)
  }
}
