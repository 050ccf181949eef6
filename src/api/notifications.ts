import { queryOptions } from '@tanstack/react-query'
import {
  notificationSettingsSchema,
  projectNotificationsSchema,
  unsubscribeSchema,
  type NotificationKind,
  type NotificationSettings,
  type ProjectNotifications,
} from '../../contract/notifications.ts'
import { invalidate, mutationWithCacheRule } from './cache-rules.ts'
import { apiUrl, getJson, sendJson } from './http.ts'

export const notificationKeys = {
  all: ['user', 'notifications'] as const,
  settings: () => [...notificationKeys.all, 'settings'] as const,
}

/** The signed-in user's email choices, per project they can see. */
export const notificationSettingsQuery = () =>
  queryOptions({
    queryKey: notificationKeys.settings(),
    queryFn: ({ signal }) => getJson(apiUrl('/user/notifications'), notificationSettingsSchema, signal),
    // Projects come and go with memberships, and an unsubscribe link may have changed a choice
    // meanwhile: read again on each visit, show the cached page at once.
    staleTime: 0,
  })

/** Replaces what the user gets for one project (the full list of kinds). */
const updateProjectNotifications = (projectId: string, kinds: readonly NotificationKind[]) =>
  sendJson('PUT', apiUrl(`/user/notifications/projects/${encodeURIComponent(projectId)}`), { kinds }, projectNotificationsSchema)

/** The answer of an emailed link (GET, POST unsubscribe, POST subscribe): the token is the credential. */
const unsubscribeLink = (action: 'unsubscribe' | 'subscribe', token: string) =>
  sendJson('POST', apiUrl(`/notifications/${action}`, { token }), undefined, unsubscribeSchema)

/** The settings with one project's choices replaced by the server's answer. */
const withProject = (project: ProjectNotifications) => (settings: NotificationSettings | undefined) =>
  settings && {
    ...settings,
    projects: settings.projects.map((each) => (each.project_id === project.project_id ? project : each)),
  }

// Mutations: each carries what it changes in the cache (cache-rules.ts).

export const notificationMutationKeys = {
  updateProject: (projectId: string) => ['user', 'notifications', 'update', projectId] as const,
  unsubscribe: (token: string) => ['notifications', 'unsubscribe', token] as const,
  subscribe: (token: string) => ['notifications', 'subscribe', token] as const,
}

/**
 * Saves one project's kinds. Changes to the same project run one after the other (`scope`), so
 * quick clicks reach the server in the order they were made and the last one wins.
 */
export const updateProjectNotificationsMutation = (projectId: string) =>
  mutationWithCacheRule({
    mutationKey: notificationMutationKeys.updateProject(projectId),
    mutationFn: (kinds: readonly NotificationKind[]) => updateProjectNotifications(projectId, kinds),
    scope: { id: `notifications:${projectId}` },
    meta: { inlineErrors: true },
    // The answer is that project's row (setQueryData takes an updater): the rest of the page stays as read.
    cache: { afterSuccess: (project) => ({ write: [[notificationKeys.settings(), withProject(project)]] }) },
  })

/**
 * The emailed link's one click, and its undo. Signed-out pages; when someone is signed in here
 * their settings page must show the change.
 */
export const unsubscribeMutation = (token: string) =>
  mutationWithCacheRule({
    mutationKey: notificationMutationKeys.unsubscribe(token),
    mutationFn: () => unsubscribeLink('unsubscribe', token),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => invalidate(notificationKeys.all) },
  })

export const subscribeMutation = (token: string) =>
  mutationWithCacheRule({
    mutationKey: notificationMutationKeys.subscribe(token),
    mutationFn: () => unsubscribeLink('subscribe', token),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => invalidate(notificationKeys.all) },
  })
