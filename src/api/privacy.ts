import { keepPreviousData, queryOptions } from '@tanstack/react-query'
import type { Filters } from '../../contract/filters.ts'
import {
  eventDataDeletionSchema,
  eventDataRequestSchema,
  FINAL_DELETION_STATUSES,
  FINAL_RETRIEVAL_STATUSES,
  privacyPreviewSchema,
  type EventDataDeletion,
  type EventDataRequest,
} from '../../contract/privacy.ts'
import { withFilters } from './event-fields.ts'
import { apiUrl, getBlob, getJson, getPage, sendJson } from './http.ts'
import { invalidate, mutationWithCacheRule } from './cache-rules.ts'

/** Whose requests: an organization's (all its projects) or one project's. */
export type PrivacyScope = { kind: 'organization'; organizationId: string } | { kind: 'project'; projectId: string }

const scopePath = (scope: PrivacyScope) =>
  scope.kind === 'organization'
    ? `/organizations/${encodeURIComponent(scope.organizationId)}`
    : `/projects/${encodeURIComponent(scope.projectId)}`
const scopeKey = (scope: PrivacyScope) => (scope.kind === 'organization' ? `organization:${scope.organizationId}` : `project:${scope.projectId}`)

export const privacyKeys = {
  all: ['privacy'] as const,
  scope: (scope: PrivacyScope) => [...privacyKeys.all, scopeKey(scope)] as const,
  retrievals: (scope: PrivacyScope, deletionsCompleted: number) => [...privacyKeys.scope(scope), 'retrievals', deletionsCompleted] as const,
  deletions: (scope: PrivacyScope) => [...privacyKeys.scope(scope), 'deletions'] as const,
  preview: (scope: PrivacyScope, filters: Filters, deletionsCompleted: number) =>
    [...privacyKeys.scope(scope), 'preview', filters, deletionsCompleted] as const,
}

/** How many of a list's deletions have completed: reads that depend on them (counts, files) key on it. */
export const completedDeletions = (page: { items: EventDataDeletion[] } | undefined) =>
  page?.items.filter((deletion) => deletion.status === 'COMPLETED').length ?? 0

/** How often a list with a request still under way asks again; it stops once every request is final. */
export const PRIVACY_POLL_MS = 2_000

/** The newest requests shown on the privacy page. */
export const PRIVACY_LIST_SIZE = 100

const pollWhile = <T>(pending: (item: T) => boolean) => (query: { state: { data?: { items: T[] } } }) =>
  query.state.data?.items.some(pending) ? PRIVACY_POLL_MS : false

export const isFinalRetrieval = (request: EventDataRequest) => FINAL_RETRIEVAL_STATUSES.includes(request.status)
export const isFinalDeletion = (deletion: EventDataDeletion) => FINAL_DELETION_STATUSES.includes(deletion.status)

/**
 * The scope's retrievals, newest first; polled while one is PREPARING. A completed deletion
 * removes earlier files: `deletionsCompleted` in the key reads the list again after each.
 */
export const retrievalsQuery = (scope: PrivacyScope, deletionsCompleted = 0) =>
  queryOptions({
    queryKey: privacyKeys.retrievals(scope, deletionsCompleted),
    queryFn: ({ signal }) =>
      getPage(apiUrl(`${scopePath(scope)}/event_data_requests`, { per_page: PRIVACY_LIST_SIZE }), eventDataRequestSchema, signal),
    staleTime: 0,
    refetchInterval: pollWhile((request: EventDataRequest) => !isFinalRetrieval(request)),
    placeholderData: keepPreviousData,
  })

/** The scope's deletions, newest first; polled while one is counting or deleting (not while it awaits a person). */
export const deletionsQuery = (scope: PrivacyScope) =>
  queryOptions({
    queryKey: privacyKeys.deletions(scope),
    queryFn: ({ signal }) =>
      getPage(apiUrl(`${scopePath(scope)}/event_data_deletions`, { per_page: PRIVACY_LIST_SIZE }), eventDataDeletionSchema, signal),
    staleTime: 0,
    refetchInterval: pollWhile((deletion: EventDataDeletion) => !isFinalDeletion(deletion)),
  })

/**
 * How many events a selection matches now, and the newest few. `deletionsCompleted` (how many
 * of the scope's deletions have completed) is part of the key: each completed deletion counts again.
 */
export const privacyPreviewQuery = (scope: PrivacyScope, filters: Filters, deletionsCompleted = 0) =>
  queryOptions({
    queryKey: privacyKeys.preview(scope, filters, deletionsCompleted),
    queryFn: ({ signal }) => getJson(withFilters(apiUrl(`${scopePath(scope)}/event_data_preview`), filters), privacyPreviewSchema, signal),
    staleTime: 10_000,
    // Typing a user id changes the selection: keep the last count on screen meanwhile.
    placeholderData: keepPreviousData,
  })

export const createRetrieval = (scope: PrivacyScope, filters: Filters) =>
  sendJson('POST', apiUrl(`${scopePath(scope)}/event_data_requests`), { filters, report_type: 'gdpr' }, eventDataRequestSchema)

export const createDeletion = (scope: PrivacyScope, filters: Filters) =>
  sendJson('POST', apiUrl(`${scopePath(scope)}/event_data_deletions`), { filters, skip_confirmation: false }, eventDataDeletionSchema)

export const confirmDeletion = (scope: PrivacyScope, deletionId: string) =>
  sendJson('POST', apiUrl(`${scopePath(scope)}/event_data_deletions/${encodeURIComponent(deletionId)}/confirm`), undefined, eventDataDeletionSchema)

/** Saves a completed retrieval's file (JSON lines) through the browser's download. */
export async function downloadRetrieval(request: EventDataRequest): Promise<void> {
  if (!request.url) throw new Error('this request has no file yet')
  const blob = await getBlob(request.url)
  const href = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = href
  link.download = `errata-event-data-${request.id}.jsonl`
  document.body.append(link)
  link.click()
  link.remove()
  // The download has its own copy once started.
  setTimeout(() => URL.revokeObjectURL(href), 10_000)
}

// Mutations: each carries what it changes in the cache (cache-rules.ts).

export const privacyMutationKeys = {
  create: (scope: PrivacyScope) => ['privacy', 'create', scope] as const,
  confirmDeletion: (scope: PrivacyScope) => ['privacy', 'confirm-deletion', scope] as const,
}

/** A retrieval (an export) or a deletion of the events matching the filters. */
export const createPrivacyRequestMutation = (scope: PrivacyScope) =>
  mutationWithCacheRule({
    mutationKey: privacyMutationKeys.create(scope),
    mutationFn: ({ kind, filters }: { kind: 'retrieval' | 'deletion'; filters: Filters }): Promise<unknown> =>
      kind === 'retrieval' ? createRetrieval(scope, filters) : createDeletion(scope, filters),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => invalidate(privacyKeys.scope(scope)) },
  })

export const confirmDeletionMutation = (scope: PrivacyScope) =>
  mutationWithCacheRule({
    mutationKey: privacyMutationKeys.confirmDeletion(scope),
    mutationFn: (deletionId: string) => confirmDeletion(scope, deletionId),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => invalidate(privacyKeys.all) },
  })

/** Downloads a finished retrieval's file (nothing cached changes). */
export const downloadRetrievalMutation = () =>
  mutationWithCacheRule({
    mutationKey: ['privacy', 'download'] as const,
    mutationFn: (request: EventDataRequest) => downloadRetrieval(request),
    meta: { inlineErrors: true },
    cache: {},
  })
