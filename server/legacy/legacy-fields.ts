// The legacy v1 API's field shapes (the spec's section 2), mapped from the v2 resources the v2
// services answer. Nothing here reads the database: the routes hand in what the services found.
import type { ErrorGroup } from '../../contract/errors.ts'
import type { ErrorEvent } from '../../contract/events.ts'
import type { LegacyError, LegacyProject, LegacyUser } from '../../contract/legacy.ts'
import type { Project } from '../../contract/projects.ts'
import type { UrlBuilder } from '../http/urls.ts'

/** An error's events counted by context, release stage and app version (server/legacy/legacy-errors.service.ts). */
export interface ErrorBreakdown {
  contexts: Record<string, number>
  release_stages: Record<string, number>
  app_versions: Record<string, number>
}

export const emptyBreakdown = (): ErrorBreakdown => ({ contexts: {}, release_stages: {}, app_versions: {} })

/** A v2 error as the legacy error: `resolved` is v2's `fixed`; counts by name from its events. */
export function toLegacyError(
  urls: UrlBuilder,
  error: ErrorGroup,
  breakdown: ErrorBreakdown,
  mostRecentEvent?: ErrorEvent | null,
): LegacyError {
  return {
    id: error.id,
    class: error.error_class,
    last_message: error.message,
    last_context: error.context,
    resolved: error.status === 'fixed',
    occurrences: error.events,
    users_affected: error.users,
    contexts: breakdown.contexts,
    release_stages: breakdown.release_stages,
    app_versions: breakdown.app_versions,
    assigned_user_id: error.assigned_collaborator_id,
    first_received: error.first_seen,
    last_received: error.last_seen,
    // Comments are v2's; the events list is the Events API, which answers v1 too.
    comments_url: urls.api(`/projects/${error.project_id}/errors/${error.id}/comments`),
    events_url: urls.api(`/errors/${error.id}/events`),
    html_url: error.html_url,
    url: urls.api(`/errors/${error.id}`),
    ...(mostRecentEvent !== undefined && { most_recent_event: mostRecentEvent }),
  }
}

/** A v2 project as the legacy project: `errors` counts its open errors. */
export function toLegacyProject(urls: UrlBuilder, project: Project): LegacyProject {
  return {
    id: project.id,
    name: project.name,
    api_key: project.api_key,
    errors: project.open_error_count,
    icon: urls.web('/favicon.svg'),
    release_stages: project.release_stages,
    type: project.type,
    created_at: project.created_at,
    updated_at: project.updated_at,
    errors_url: urls.api(`/projects/${project.id}/errors`),
    events_url: urls.api(`/projects/${project.id}/events`),
    html_url: project.html_url,
    url: urls.api(`/projects/${project.id}`),
  }
}

/** A person (a v2 collaborator, or a pending invitation) as the legacy user, with a neutral avatar. */
export function toLegacyUser(
  urls: UrlBuilder,
  person: { id: string; name: string; email: string; is_admin: boolean },
  organizationId: string | null,
): LegacyUser {
  return {
    id: person.id,
    name: person.name,
    account_admin: person.is_admin,
    email: person.email,
    avatar_id: null,
    avatar_url: urls.web('/avatar.svg'),
    html_url: urls.web(organizationId ? `/organizations/${organizationId}/collaborators` : '/organizations'),
    projects_url: urls.api(`/users/${person.id}/projects`),
    url: urls.api(`/users/${person.id}`),
  }
}
