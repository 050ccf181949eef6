import { z } from 'zod/mini'
import { idSchema } from './common.ts'

/**
 * What a user can be emailed about, per project (docs/notifications.md):
 * - new_error: an error is seen for the first time;
 * - reopened: a fixed or snoozed error comes back;
 * - spiking: an error gets at least 50 events in an hour and 5 times its hourly average over the
 *   day before (the medium sensitivity of the projectSpiking webhook trigger);
 * - assigned: someone else assigns an error to me;
 * - comments: someone comments on an error I am assigned to or have commented on;
 * - digest: a daily email of the project's new and still-open errors.
 */
export const NOTIFICATION_KINDS = ['new_error', 'reopened', 'spiking', 'assigned', 'comments', 'digest'] as const
export const notificationKindSchema = z.enum(NOTIFICATION_KINDS)
export type NotificationKind = z.infer<typeof notificationKindSchema>

/** What every member gets for a project until they choose otherwise. */
export const DEFAULT_NOTIFICATION_KINDS: readonly NotificationKind[] = ['new_error', 'reopened', 'assigned']

/** One project the user can see, with what they get about it. */
export const projectNotificationsSchema = z.object({
  project_id: idSchema,
  project_name: z.string(),
  organization_id: idSchema,
  organization_name: z.string(),
  /** In NOTIFICATION_KINDS order. */
  kinds: z.array(notificationKindSchema),
  /** False while the project still has the defaults (never changed). */
  customized: z.boolean(),
})
export type ProjectNotifications = z.infer<typeof projectNotificationsSchema>

/** GET /user/notifications: the caller's choices for every project they can see. */
export const notificationSettingsSchema = z.object({
  /** False when the server has no SMTP server (ERRATA_SMTP_URL): choices are kept, nothing is sent. */
  email_enabled: z.boolean(),
  /** Where the emails go: the account's address. */
  email: z.string(),
  /** Alert emails sent to one person per hour; beyond it, alerts wait for the next digest. */
  alerts_per_hour: z.number(),
  /** The hour (0–23, UTC) the daily digest is sent at. */
  digest_hour_utc: z.number(),
  projects: z.array(projectNotificationsSchema),
})
export type NotificationSettings = z.infer<typeof notificationSettingsSchema>

/** PUT /user/notifications/projects/{project_id}: the kinds wanted for that project (all of them: the list replaces). */
export const updateProjectNotificationsSchema = z.object({
  kinds: z.array(notificationKindSchema).check(z.maxLength(NOTIFICATION_KINDS.length, `must list at most ${NOTIFICATION_KINDS.length} kinds`)),
})
export type UpdateProjectNotifications = z.infer<typeof updateProjectNotificationsSchema>

/**
 * The answer of GET and POST /notifications/unsubscribe?token=… and POST
 * /notifications/subscribe?token=… (no sign-in: the emailed link is the credential): what the
 * link is about, and whether its holder still gets it. POST unsubscribe stops it (also as RFC
 * 8058's one-click `List-Unsubscribe=One-Click` POST); POST subscribe undoes that.
 */
export const unsubscribeSchema = z.object({
  kind: notificationKindSchema,
  /** Null for the digest link, which covers every project. */
  project_name: z.nullable(z.string()),
  email: z.string(),
  subscribed: z.boolean(),
})
export type Unsubscribe = z.infer<typeof unsubscribeSchema>

/** How the dashboard and the emails name each kind. */
export const NOTIFICATION_KIND_LABELS: Record<NotificationKind, { label: string; description: string }> = {
  new_error: { label: 'New errors', description: 'An error is seen for the first time.' },
  reopened: { label: 'Reopened errors', description: 'An error marked fixed or snoozed happens again.' },
  spiking: { label: 'Spiking errors', description: 'An error gets at least 50 events in an hour, 5 times its usual rate.' },
  assigned: { label: 'Assigned to me', description: 'Someone assigns an error to you.' },
  comments: { label: 'Comments', description: 'Someone comments on an error you are assigned to or have commented on.' },
  digest: { label: 'Daily digest', description: 'Once a day: new errors and errors still open.' },
}
