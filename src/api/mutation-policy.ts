// What each mutation changes in the cache, by its mutationKey: the one place that reads data again
// after a write. query-client.ts runs it from its MutationCache, after a success (before the
// caller's own onSuccess, so a dialog that closes shows fresh data) and, for the optimistic error
// operations, after a failure too (their rollback may be older than the server's state).
import type { InvalidateQueryFilters, Mutation, Query, QueryClient, QueryKey } from '@tanstack/react-query'
import { filterField, type Filters } from '../../contract/filters.ts'
import type { ErrorOperation } from '../../contract/errors.ts'
import type { Organization } from '../../contract/organizations.ts'
import type { Project } from '../../contract/projects.ts'
import { collaboratorKeys, invitationKeys } from './collaborators.ts'
import { errorKeys, projectLists, type BulkOperationInput, type ErrorOperationInput } from './errors.ts'
import { eventKeys } from './events.ts'
import { organizationKeys } from './organizations.ts'
import { pivotKeys } from './pivots.ts'
import { privacyKeys, type PrivacyScope } from './privacy.ts'
import { projectKeys } from './projects.ts'
import { rateLimitKeys } from './rate-limits.ts'
import { sourceMapKeys } from './source-maps.ts'
import { tokenKeys } from './tokens.ts'
import { trendKeys } from './trends.ts'
import { commentKeys, webhookKeys } from './webhooks.ts'

/** A mutation's consequences: queries to drop (read about something gone), to replace, to read again. */
export interface CacheEffects {
  remove?: QueryKey[]
  write?: [QueryKey, unknown][]
  invalidate?: InvalidateQueryFilters[]
}

interface Settled {
  /** The mutation key past its first two parts (resource, action): the ids it was made for. */
  scope: readonly unknown[]
  variables: unknown
  data: unknown
  failed: boolean
}

interface Rule {
  effects: (mutation: Settled) => CacheEffects
  /** Also after a failure: optimistic mutations whose rollback may be stale. */
  afterFailure?: boolean
}

const invalidate = (...keys: QueryKey[]): CacheEffects => ({ invalidate: keys.map((queryKey) => ({ queryKey })) })

/**
 * Whether a trend's, sparklines' or pivot's counts depend on the errors' own state: filters on
 * status, assignee or severity, which triage moves errors in and out of. Their keys end with
 * their params.
 */
function countsByErrorState(query: Query): boolean {
  const params = query.queryKey.at(-1) as { filters?: Filters } | undefined
  return Object.keys(params?.filters ?? {}).some((fieldId) => filterField(fieldId)?.scope === 'error')
}

/**
 * After an error operation, single or bulk: the lists, the status counts, the project's open
 * count, the errors themselves and their history; the charts and pivots that count events by the
 * errors' state (the errors list's trend and sparklines under its default "status is open"); after
 * a delete, every one of them, as the errors' events are gone.
 */
function afterErrorOperation(projectId: string, errorIds: readonly string[], operation: ErrorOperation): CacheEffects {
  const counts = operation.operation === 'delete' ? {} : { predicate: countsByErrorState }
  const ids = operation.operation === 'delete' ? [] : errorIds
  return {
    invalidate: [
      { queryKey: projectLists(projectId) },
      { queryKey: errorKeys.projectStatusCounts(projectId) },
      { queryKey: projectKeys.detail(projectId) },
      { queryKey: trendKeys.inProject(projectId), ...counts },
      { queryKey: pivotKeys.project(projectId), ...counts },
      ...ids.flatMap((id) => [
        { queryKey: errorKeys.detail(projectId, id), exact: true },
        { queryKey: errorKeys.statusChanges(projectId, id) },
      ]),
    ],
  }
}

const RULES: Record<string, Rule> = {
  'errors/operation': {
    afterFailure: true,
    effects: ({ scope: [projectId], variables }) => {
      const { errorId, operation } = variables as ErrorOperationInput
      return afterErrorOperation(projectId as string, [errorId], operation)
    },
  },
  'errors/bulk-operation': {
    afterFailure: true,
    effects: ({ scope: [projectId], variables }) => {
      const { errorIds, operation } = variables as BulkOperationInput
      return afterErrorOperation(projectId as string, errorIds, operation)
    },
  },
  'events/delete': {
    effects: ({ scope: [projectId, errorId], variables }) => {
      const { eventId } = variables as { eventId: string }
      const p = projectId as string
      const e = errorId as string
      return {
        // Asked again, the deleted event's neighbours would be a 400 (after_event names no event
        // of the list) while the page moves on: dropped before anything is read again.
        remove: [
          eventKeys.detail(p, eventId),
          [...eventKeys.all, 'neighbours', p, e, eventId],
          [...eventKeys.all, 'position', p, e, eventId],
        ],
        ...invalidate(
          eventKeys.lists(),
          [...eventKeys.all, 'neighbours', p, e],
          [...eventKeys.all, 'position', p, e],
          errorKeys.detail(p, e),
          projectLists(p),
          projectKeys.detail(p),
          trendKeys.inProject(p),
          pivotKeys.project(p),
        ),
      }
    },
  },
  'projects/create': {
    effects: ({ scope: [organizationId], data }) => ({
      write: [[projectKeys.detail((data as Project).id), data]],
      ...invalidate(projectKeys.list(organizationId as string)),
    }),
  },
  'projects/update': {
    effects: ({ data }) => {
      const project = data as Project
      return { write: [[projectKeys.detail(project.id), project]], ...invalidate(projectKeys.list(project.organization_id)) }
    },
  },
  'organizations/create': {
    effects: ({ data }) => ({
      write: [[organizationKeys.detail((data as Organization).id), data]],
      ...invalidate(organizationKeys.list()),
    }),
  },
  'organizations/update': {
    effects: ({ data }) => ({
      write: [[organizationKeys.detail((data as Organization).id), data]],
      ...invalidate(organizationKeys.list()),
    }),
  },
  'rate-limit/update': {
    effects: ({ scope: [projectId], data }) => ({ write: [[rateLimitKeys.project(projectId as string), data]] }),
  },
  'tokens/create': { effects: () => invalidate(tokenKeys.list()) },
  // Revoking this browser's own token ends the session: there is nothing left to read.
  'tokens/revoke': { effects: ({ variables }) => ((variables as { current: boolean }).current ? {} : invalidate(tokenKeys.list())) },
  'comments/create': { effects: ({ scope: [projectId, errorId] }) => invalidate(commentKeys.list(projectId as string, errorId as string)) },
  'comments/delete': { effects: ({ scope: [projectId, errorId] }) => invalidate(commentKeys.list(projectId as string, errorId as string)) },
  'collaborators/invite': {
    // collaborators_count of each project changes with them.
    effects: ({ scope: [organizationId] }) => invalidate(collaboratorKeys.list(organizationId as string), projectKeys.list(organizationId as string)),
  },
  'collaborators/update': {
    effects: ({ scope: [organizationId] }) => invalidate(collaboratorKeys.list(organizationId as string), projectKeys.list(organizationId as string)),
  },
  'collaborators/remove': {
    effects: ({ scope: [organizationId], variables }) =>
      (variables as { leaving: boolean }).leaving
        ? // The signed-in user left: the organization is no longer theirs to see.
          { remove: [collaboratorKeys.list(organizationId as string)], ...invalidate(organizationKeys.all) }
        : invalidate(collaboratorKeys.list(organizationId as string), projectKeys.list(organizationId as string)),
  },
  'invitations/answer': { effects: () => invalidate(invitationKeys.mine(), organizationKeys.all) },
  'webhooks/save': { effects: ({ scope: [projectId] }) => invalidate(webhookKeys.list(projectId as string)) },
  'webhooks/delete': { effects: ({ scope: [projectId] }) => invalidate(webhookKeys.list(projectId as string)) },
  'webhooks/deliver': { effects: ({ scope: [webhookId] }) => invalidate(webhookKeys.deliveries(webhookId as string)) },
  'privacy/create': { effects: ({ scope: [scope] }) => invalidate(privacyKeys.scope(scope as PrivacyScope)) },
  'privacy/confirm-deletion': { effects: () => invalidate(privacyKeys.all) },
  'source-maps/upload': { effects: ({ scope: [projectId] }) => invalidate(sourceMapKeys.project(projectId as string)) },
  'source-maps/delete': { effects: ({ scope: [projectId] }) => invalidate(sourceMapKeys.project(projectId as string)) },
}

/** The rule's name: a mutation key's resource and action, e.g. "errors/operation". */
const ruleName = (key: readonly unknown[] | undefined) => (key ? `${String(key[0])}/${String(key[1])}` : '')

/** Whether a mutation key has a rule (every mutation that changes cached data must). */
export const hasCachePolicy = (key: readonly unknown[]) => Object.hasOwn(RULES, ruleName(key))

/** Applies the rule of a settled mutation, if it has one; resolves when what it invalidated was read again. */
export async function applyCachePolicy(
  client: QueryClient,
  mutation: Mutation<unknown, unknown, unknown, unknown>,
  outcome: { data: unknown; failed: boolean },
): Promise<void> {
  const key = mutation.options.mutationKey
  const rule = key ? RULES[ruleName(key)] : undefined
  if (!key || !rule || (outcome.failed && !rule.afterFailure)) return
  const effects = rule.effects({ scope: key.slice(2), variables: mutation.state.variables, ...outcome })
  for (const queryKey of effects.remove ?? []) client.removeQueries({ queryKey })
  for (const [queryKey, data] of effects.write ?? []) client.setQueryData(queryKey, data)
  await Promise.all((effects.invalidate ?? []).map((filters) => client.invalidateQueries(filters)))
}
