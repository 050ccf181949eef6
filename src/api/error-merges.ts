// Merging errors (docs/errors-workflow.md#merging): merge from the errors list's selection, unmerge
// from the error page. Not optimistic: the counts, trends and pivots come from the server.
import { z } from 'zod/mini'
import { bulkErrorResultSchema, type BulkErrorResult, type ErrorGroup } from '../../contract/errors.ts'
import { mutationWithCacheRule, type CacheEffects } from './cache-rules.ts'
import { errorKeys, patchError, projectLists } from './errors.ts'
import { eventKeys } from './events.ts'
import { apiUrl, sendJson } from './http.ts'
import { pivotKeys } from './pivots.ts'
import { projectKeys } from './projects.ts'
import { trendKeys } from './trends.ts'

export const errorMergeMutationKeys = {
  merge: (projectId: string) => ['errors', 'merge', projectId] as const,
  unmerge: (projectId: string) => ['errors', 'unmerge', projectId] as const,
}

export interface MergeInput {
  /** The error that stays. */
  intoId: string
  /** Those merged into it. */
  mergedIds: readonly string[]
}

/**
 * Events moved between the errors: every list, count, trend and pivot of the project, and the
 * errors themselves (their events, history and merged errors) are read again.
 */
function afterMerge(projectId: string, errorIds: readonly string[]): CacheEffects {
  return {
    invalidate: [
      { queryKey: projectLists(projectId) },
      { queryKey: errorKeys.projectStatusCounts(projectId) },
      { queryKey: projectKeys.detail(projectId) },
      { queryKey: trendKeys.inProject(projectId) },
      { queryKey: pivotKeys.project(projectId) },
      ...errorIds.flatMap((id) => [{ queryKey: errorKeys.detail(projectId, id) }, { queryKey: eventKeys.errorEventPages(projectId, id) }]),
    ],
  }
}

/** Merges errors into one (PATCH …/errors?error_ids=into,merged… with operation merge). */
export const mergeErrorsMutation = (projectId: string) =>
  mutationWithCacheRule<BulkErrorResult[], Error, MergeInput>({
    mutationKey: errorMergeMutationKeys.merge(projectId),
    mutationFn: ({ intoId, mergedIds }) =>
      sendJson(
        'PATCH',
        apiUrl(`/projects/${encodeURIComponent(projectId)}/errors`, { error_ids: [intoId, ...mergedIds].join(',') }),
        { operation: 'merge' },
        z.array(bulkErrorResultSchema),
      ),
    // The dialog shows why a merge failed.
    meta: { inlineErrors: true },
    cache: {
      afterSuccess: (_results, { intoId, mergedIds }) => afterMerge(projectId, [intoId, ...mergedIds]),
    },
  })

export interface UnmergeInput {
  errorId: string
  /** The errors merged into it now, whose pages change too. */
  mergedIds: readonly string[]
}

/** Takes every error merged into this one back out. */
export const unmergeErrorMutation = (projectId: string) =>
  mutationWithCacheRule<ErrorGroup, Error, UnmergeInput>({
    mutationKey: errorMergeMutationKeys.unmerge(projectId),
    mutationFn: async ({ errorId }) => (await patchError(projectId, errorId, { operation: 'unmerge' }))!,
    meta: { inlineErrors: true },
    cache: {
      afterSuccess: (_error, { errorId, mergedIds }) => afterMerge(projectId, [errorId, ...mergedIds]),
    },
  })
