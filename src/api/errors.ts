import {
  infiniteQueryOptions,
  queryOptions,
  type InfiniteData,
  type Query,
  type QueryClient,
  type QueryKey,
} from '@tanstack/react-query'
import { z } from 'zod/mini'
import type { Direction } from '../../contract/common.ts'
import { isStatusOperation, statusAfter } from '../../contract/error-status.ts'
import {
  bulkErrorResultSchema,
  errorSchema,
  errorStatusChangeSchema,
  errorStatusCountsSchema,
  MAX_BULK_ERROR_IDS,
  remappedErrorSchema,
  snoozeBookkeeping,
  type BulkErrorResult,
  type ErrorGroup,
  type ErrorOperation,
  type ErrorSort,
} from '../../contract/errors.ts'
import { eventSchema, type ErrorEvent } from '../../contract/events.ts'
import { filterField, type Filters } from '../../contract/filters.ts'
import { apiUrl, getJson, getPage, sendEmpty, sendJson, type Page } from './http.ts'
import { withFilters } from './event-fields.ts'
import { mutationWithCacheRule, type CacheEffects } from './cache-rules.ts'
import { pivotKeys } from './pivots.ts'
import { projectKeys } from './projects.ts'
import { trendKeys } from './trends.ts'
import { EMPTY_POLL_MS, LIST_POLL_MS } from './polling.ts'

export interface ErrorListParams {
  sort: ErrorSort
  direction: Direction
  /** The filter bar's conditions, sent in the API's filters[<field>][][type|value] form. */
  filters: Filters
}

/** Rows per request: large enough that a fast scroll rarely waits, small enough for a quick first screen. */
export const ERRORS_PAGE_SIZE = 50

const projectPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}`

export const errorKeys = {
  all: ['errors'] as const,
  lists: () => [...errorKeys.all, 'list'] as const,
  list: (projectId: string, params: ErrorListParams) => [...errorKeys.lists(), projectId, params] as const,
  head: (projectId: string, params: ErrorListParams) => [...errorKeys.all, 'head', projectId, params] as const,
  projectStatusCounts: (projectId: string) => [...errorKeys.all, 'status-counts', projectId] as const,
  statusCounts: (projectId: string, filters: Filters) => [...errorKeys.projectStatusCounts(projectId), { filters }] as const,
  details: () => [...errorKeys.all, 'detail'] as const,
  detail: (projectId: string, errorId: string) => [...errorKeys.details(), projectId, errorId] as const,
  latestEvent: (projectId: string, errorId: string, filters: Filters = {}) =>
    [...errorKeys.detail(projectId, errorId), 'latest-event', { filters }] as const,
  statusChanges: (projectId: string, errorId: string) =>
    [...errorKeys.detail(projectId, errorId), 'status-changes'] as const,
  remapped: (projectId: string, errorId: string) => [...errorKeys.detail(projectId, errorId), 'remapped'] as const,
}

/** A page of the errors list, with when it was read (what its head is compared with, see errorsHeadQuery). */
export interface ErrorsPage extends Page<ErrorGroup> {
  fetchedAt: number
}

/** The errors list, page after page, following each page's `Link: rel="next"`. */
export const errorsInfiniteQuery = (projectId: string, params: ErrorListParams) =>
  infiniteQueryOptions({
    queryKey: errorKeys.list(projectId, params),
    queryFn: async ({ pageParam, signal }): Promise<ErrorsPage> => ({
      ...(await getPage(
        pageParam ??
          withFilters(
            apiUrl(`${projectPath(projectId)}/errors`, {
              sort: params.sort,
              direction: params.direction,
              per_page: ERRORS_PAGE_SIZE,
            }),
            params.filters,
          ),
        errorSchema,
        signal,
      )),
      fetchedAt: Date.now(),
    }),
    initialPageParam: null as string | null,
    getNextPageParam: (lastPage) => lastPage.nextUrl,
    staleTime: 5_000,
    // A project waiting for its first error watches for it to arrive.
    refetchInterval: (query) => {
      const first = query.state.data?.pages[0]
      return first && first.items.length === 0 && !first.nextUrl ? EMPTY_POLL_MS : false
    },
  })

/** What an open list watches for: its total and its first row. */
export interface ErrorsHead {
  total: number | null
  first: Pick<ErrorGroup, 'id' | 'last_seen' | 'events'> | null
}

/** The head of a list page: its total and first row. */
export const toErrorsHead = (page: Page<ErrorGroup> | undefined): ErrorsHead => {
  const first = page?.items[0]
  return { total: page?.totalCount ?? null, first: first ? { id: first.id, last_seen: first.last_seen, events: first.events } : null }
}

/**
 * The list's head as the server has it now: one row and X-Total-Count, asked every LIST_POLL_MS
 * while the tab is visible, so an open list learns of new errors without reading its pages again
 * (features/errors/use-list-updates.ts compares it with the list's first page).
 */
export const errorsHeadQuery = (projectId: string, params: ErrorListParams) =>
  queryOptions({
    queryKey: errorKeys.head(projectId, params),
    queryFn: async ({ signal }) =>
      toErrorsHead(
        await getPage(
          withFilters(
            apiUrl(`${projectPath(projectId)}/errors`, { sort: params.sort, direction: params.direction, per_page: 1 }),
            params.filters,
          ),
          errorSchema,
          signal,
        ),
      ),
    staleTime: LIST_POLL_MS,
    refetchInterval: LIST_POLL_MS,
    refetchIntervalInBackground: false,
  })

/**
 * Reads the list again from its first page, dropping the pages loaded after it rather than
 * fetching each of them again (they load anew as the list is scrolled).
 */
export async function refreshErrorsList(client: QueryClient, projectId: string, params: ErrorListParams): Promise<void> {
  const key = errorKeys.list(projectId, params)
  client.setQueryData<ErrorPages>(key, (data) =>
    data ? { pages: data.pages.slice(0, 1), pageParams: data.pageParams.slice(0, 1) } : data,
  )
  await client.invalidateQueries({ queryKey: key, exact: true })
}

/**
 * How many errors match the filters in each status (the status tabs' counts). The key leaves out
 * the status filter, which the server ignores too: switching tabs reads nothing again.
 */
export const errorStatusCountsQuery = (projectId: string, filters: Filters) => {
  const { 'error.status': _status, ...others } = filters
  return queryOptions({
    queryKey: errorKeys.statusCounts(projectId, others),
    queryFn: ({ signal }) =>
      getJson(withFilters(apiUrl(`${projectPath(projectId)}/error_status_counts`), others), errorStatusCountsSchema, signal),
    staleTime: 5_000,
  })
}

export const errorQuery = (projectId: string, errorId: string) =>
  queryOptions({
    queryKey: errorKeys.detail(projectId, errorId),
    queryFn: ({ signal }) =>
      getJson(apiUrl(`${projectPath(projectId)}/errors/${encodeURIComponent(errorId)}`), errorSchema, signal),
    staleTime: 15_000,
  })

/**
 * The error's newest event of those the filters match (the error page's time range and pivot
 * values): without filters the latest_event endpoint; with them the first row of the error's
 * events (newest first) under the same filters, or null when none matches.
 */
export const latestEventQuery = (projectId: string, errorId: string, filters: Filters = {}) =>
  queryOptions({
    queryKey: errorKeys.latestEvent(projectId, errorId, filters),
    queryFn: async ({ signal }): Promise<ErrorEvent | null> => {
      const errorPath = `${projectPath(projectId)}/errors/${encodeURIComponent(errorId)}`
      if (Object.keys(filters).length === 0) return getJson(apiUrl(`${errorPath}/latest_event`), eventSchema, signal)
      const page = await getPage(withFilters(apiUrl(`${errorPath}/events`, { per_page: 1 }), filters), eventSchema, signal)
      return page.items[0] ?? null
    },
    staleTime: 15_000,
  })

/** The error's status history, newest first (the server keeps the 100 newest). */
export const errorStatusChangesQuery = (projectId: string, errorId: string) =>
  queryOptions({
    queryKey: errorKeys.statusChanges(projectId, errorId),
    queryFn: ({ signal }) =>
      getJson(
        apiUrl(`${projectPath(projectId)}/errors/${encodeURIComponent(errorId)}/status_changes`),
        z.array(errorStatusChangeSchema),
        signal,
      ),
    staleTime: 15_000,
  })

/**
 * Whether a source map uploaded since the error's latest event would map it now, and the error
 * such events group as (the server maps a copy of the event on each request, so not polled).
 */
export const errorRemappedQuery = (projectId: string, errorId: string) =>
  queryOptions({
    queryKey: errorKeys.remapped(projectId, errorId),
    queryFn: ({ signal }) =>
      getJson(apiUrl(`${projectPath(projectId)}/errors/${encodeURIComponent(errorId)}/remapped`), remappedErrorSchema, signal),
    staleTime: 60_000,
    retry: false,
  })

// ---------------------------------------------------------------------------------------------
// Status workflow mutations: optimistic in every cache that shows the error, rolled back on failure.

const errorUrl = (projectId: string, errorId: string) =>
  apiUrl(`${projectPath(projectId)}/errors/${encodeURIComponent(errorId)}`)

/** PATCH one error; null for a delete (204). */
export async function patchError(projectId: string, errorId: string, operation: ErrorOperation): Promise<ErrorGroup | null> {
  if (operation.operation === 'delete') {
    await sendEmpty('PATCH', errorUrl(projectId, errorId), operation)
    return null
  }
  return sendJson('PATCH', errorUrl(projectId, errorId), operation, errorSchema)
}

/**
 * The bulk PATCH: one answer per id, in the order given. The server takes MAX_BULK_ERROR_IDS
 * ids a request, so a larger selection goes in consecutive requests of that many.
 */
export async function patchErrors(projectId: string, errorIds: readonly string[], operation: ErrorOperation) {
  const results: BulkErrorResult[] = []
  for (let start = 0; start < errorIds.length; start += MAX_BULK_ERROR_IDS) {
    const chunk = errorIds.slice(start, start + MAX_BULK_ERROR_IDS)
    results.push(
      ...(await sendJson(
        'PATCH',
        apiUrl(`${projectPath(projectId)}/errors`, { error_ids: chunk.join(',') }),
        operation,
        z.array(bulkErrorResultSchema),
      )),
    )
  }
  return results
}

/**
 * What the error will look like once the server applies `operation`, for the optimistic update:
 * the status from the contract's status rule, a snooze's rule with the bookkeeping the server adds.
 */
export function applyOperation(error: ErrorGroup, operation: ErrorOperation, now = new Date()): ErrorGroup {
  if (isStatusOperation(operation)) {
    return {
      ...error,
      status: statusAfter(operation.operation),
      reopen_rules: operation.operation === 'snooze' ? snoozeBookkeeping(operation.reopen_rules, error, now) : null,
    }
  }
  switch (operation.operation) {
    case 'assign':
      return { ...error, assigned_collaborator_id: operation.assigned_collaborator_id || null }
    case 'override_severity':
      return { ...error, severity: operation.severity, severity_override: operation.severity }
    case 'discard':
      return { ...error, discarded: true, discarded_at: error.discarded_at ?? now.toISOString() }
    case 'undiscard':
      return { ...error, discarded: false, discarded_at: null }
    case 'link_issue':
      return { ...error, linked_issues: [{ type: 'url', url: operation.issue_url }] }
    case 'unlink_issue':
      return { ...error, linked_issues: [] }
    // What it restores is the server's record (the status change); its answer is written when it comes.
    case 'revert_status':
    case 'merge':
    case 'unmerge':
    case 'delete':
      return error
  }
}

type ErrorPages = InfiniteData<ErrorsPage, string | null>
type Snapshot = [QueryKey, unknown][]

export const projectLists = (projectId: string) => [...errorKeys.lists(), projectId] as const

/** Replaces (or with null removes) errors in every cached list of the project and in their detail caches. */
function writeErrors(client: QueryClient, projectId: string, next: ReadonlyMap<string, ErrorGroup | null>): void {
  client.setQueriesData<ErrorPages>({ queryKey: projectLists(projectId) }, (data) =>
    data
      ? {
          ...data,
          pages: data.pages.map((page) => ({
            ...page,
            items: page.items.flatMap((item) => {
              if (!next.has(item.id)) return [item]
              const replacement = next.get(item.id)
              return replacement ? [replacement] : []
            }),
            totalCount:
              page.totalCount === null
                ? null
                : page.totalCount - page.items.filter((item) => next.has(item.id) && next.get(item.id) === null).length,
          })),
        }
      : data,
  )
  for (const [id, error] of next) {
    if (error) client.setQueryData(errorKeys.detail(projectId, id), error)
  }
}

/** Every cached copy of these errors, first one found wins (they are the same resource). */
function findCachedErrors(client: QueryClient, projectId: string, ids: readonly string[]): Map<string, ErrorGroup> {
  const found = new Map<string, ErrorGroup>()
  const wanted = new Set(ids)
  for (const id of ids) {
    const detail = client.getQueryData<ErrorGroup>(errorKeys.detail(projectId, id))
    if (detail) found.set(id, detail)
  }
  for (const [, data] of client.getQueriesData<ErrorPages>({ queryKey: projectLists(projectId) })) {
    for (const page of data?.pages ?? []) {
      for (const item of page.items) if (wanted.has(item.id) && !found.has(item.id)) found.set(item.id, item)
    }
  }
  return found
}

export interface OptimisticContext {
  /** Exact cache contents before the change, to put back if the request fails. */
  snapshot: Snapshot
  /** Each affected error as it was, to restore errors one by one after a partial bulk failure. */
  previous: Map<string, ErrorGroup>
}

async function applyOptimistically(
  client: QueryClient,
  projectId: string,
  ids: readonly string[],
  operation: ErrorOperation,
): Promise<OptimisticContext> {
  // A refetch landing now would overwrite the optimistic state with the old one.
  await client.cancelQueries({ queryKey: projectLists(projectId) })
  await Promise.all(ids.map((id) => client.cancelQueries({ queryKey: errorKeys.detail(projectId, id), exact: true })))
  const snapshot: Snapshot = [
    ...client.getQueriesData({ queryKey: projectLists(projectId) }),
    ...ids.map((id): [QueryKey, unknown] => [errorKeys.detail(projectId, id), client.getQueryData(errorKeys.detail(projectId, id))]),
  ]
  const previous = findCachedErrors(client, projectId, ids)
  const now = new Date()
  const next = new Map<string, ErrorGroup | null>()
  for (const [id, error] of previous) {
    next.set(id, operation.operation === 'delete' ? null : applyOperation(error, operation, now))
  }
  writeErrors(client, projectId, next)
  return { snapshot, previous }
}

function restore(client: QueryClient, snapshot: Snapshot): void {
  for (const [key, data] of snapshot) client.setQueryData(key, data)
}

export interface ErrorOperationInput {
  errorId: string
  operation: ErrorOperation
}

/** The mutation keys of error operations. */
export const errorMutationKeys = {
  operation: (projectId: string) => ['errors', 'operation', projectId] as const,
  bulkOperation: (projectId: string) => ['errors', 'bulk-operation', projectId] as const,
}

/**
 * One error's operation. Status changes show at once everywhere the error is cached and roll back
 * if the server refuses (the caller says so: the triage toast, or the delete confirmation). Delete
 * is not optimistic: it waits for the server.
 */
export const errorOperationMutation = (projectId: string) =>
  mutationWithCacheRule<ErrorGroup | null, Error, ErrorOperationInput, OptimisticContext | undefined>({
    mutationKey: errorMutationKeys.operation(projectId),
    mutationFn: ({ errorId, operation }) => patchError(projectId, errorId, operation),
    // The caller shows the failure, naming the operation; the global toast would repeat it.
    meta: { inlineErrors: true },
    onMutate: ({ errorId, operation }, { client }) =>
      operation.operation === 'delete' ? undefined : applyOptimistically(client, projectId, [errorId], operation),
    onError: (_error, _variables, context, { client }) => {
      if (context) restore(client, context.snapshot)
    },
    onSuccess: (updated, { errorId, operation }, _context, { client }) => {
      writeErrors(client, projectId, new Map([[errorId, operation.operation === 'delete' ? null : updated]]))
      if (operation.operation === 'delete') client.removeQueries({ queryKey: errorKeys.detail(projectId, errorId) })
    },
    cache: {
      afterSuccess: (_data, { errorId, operation }) => afterErrorOperation(projectId, [errorId], operation),
      afterFailure: ({ errorId, operation }) => afterErrorOperation(projectId, [errorId], operation),
    },
  })

export interface BulkOperationInput {
  errorIds: readonly string[]
  operation: ErrorOperation
}

/** How a bulk answer went: errors that changed and those that did not (with why). */
export interface BulkOutcome {
  results: BulkErrorResult[]
  failed: BulkErrorResult[]
}

/**
 * The same operation on many errors. Optimistic for all of them; afterwards each error that the
 * server did not change is put back as it was (the caller says how many failed and why).
 */
export const bulkErrorOperationMutation = (projectId: string) =>
  mutationWithCacheRule<BulkOutcome, Error, BulkOperationInput, OptimisticContext>({
    mutationKey: errorMutationKeys.bulkOperation(projectId),
    mutationFn: async ({ errorIds, operation }) => {
      const results = await patchErrors(projectId, errorIds, operation)
      return { results, failed: results.filter((r) => r.status === 'failed' || r.status === 'not_found') }
    },
    meta: { inlineErrors: true },
    onMutate: ({ errorIds, operation }, { client }) => applyOptimistically(client, projectId, errorIds, operation),
    onError: (_error, _variables, context, { client }) => {
      if (context) restore(client, context.snapshot)
    },
    onSuccess: ({ results }, _variables, context, { client }) => {
      const next = new Map<string, ErrorGroup | null>()
      for (const result of results) {
        if (result.status === 'updated' && result.error) next.set(result.id, result.error)
        else if (result.status === 'deleted') next.set(result.id, null)
        else {
          const before = context.previous.get(result.id)
          if (before) next.set(result.id, before)
        }
      }
      writeErrors(client, projectId, next)
    },
    cache: {
      afterSuccess: (_data, { errorIds, operation }) => afterErrorOperation(projectId, errorIds, operation),
      afterFailure: ({ errorIds, operation }) => afterErrorOperation(projectId, errorIds, operation),
    },
  })

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
 * After an error operation, single or bulk (also after a failure, once rolled back): the lists,
 * the status counts, the project's open count, the errors themselves and their history; the
 * charts and pivots that count events by the errors' state (the errors list's trend and
 * sparklines under its default "status is open"); after a delete, every one of them, as the
 * errors' events are gone.
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
