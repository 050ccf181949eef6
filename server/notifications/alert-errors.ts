// The errors alerts and digests describe, read with the one column list and mapping both use:
// queries select `alertErrorColumns` from `errors e JOIN projects p ON p.id = e.project_id`.
import { sql } from 'drizzle-orm'
import type { AlertError } from './alert-emails.ts'

export const alertErrorColumns = sql`e.id, e.project_id, p.name AS project_name, e.error_class, e.message, e.context, e.release_stages,
  e.events_count, e.users_count, e.assigned_collaborator_id`

export interface AlertErrorRow {
  id: string
  project_id: string
  project_name: string
  error_class: string
  message: string
  context: string | null
  release_stages: string[]
  events_count: number | string
  users_count: number | string
  assigned_collaborator_id: string | null
}

export const toAlertError = (r: AlertErrorRow): AlertError & { assigneeId: string | null } => ({
  id: r.id,
  projectId: r.project_id,
  projectName: r.project_name,
  errorClass: r.error_class,
  message: r.message,
  context: r.context,
  releaseStages: r.release_stages,
  events: Number(r.events_count),
  users: Number(r.users_count),
  assigneeId: r.assigned_collaborator_id,
})
