import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query'
import { showToast } from '../lib/toast.ts'
import { ApiError } from './http.ts'
import { applyCacheEffects } from './cache-rules.ts'

const messageOf = (error: Error): string => (error instanceof ApiError ? error.messages.join('\n') : error.message)

/** 4xx answers will not change on a retry; network blips and 5xx might. */
export function shouldRetry(failureCount: number, error: Error): boolean {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false
  return failureCount < 2
}

/**
 * The one error and invalidation policy. Errors: pages show their own (route error components,
 * inline retries), so a toast appears only when a background refetch of data already on screen
 * fails, or a mutation fails that no form is displaying. Invalidation: the rule each mutation
 * carries in meta.cache (cache-rules.ts); features never invalidate queries themselves.
 */
export function createQueryClient(): QueryClient {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        // A 404 for data on screen becomes the page's "not found" (router.tsx), not a toast.
        if (query.state.data !== undefined && !(error instanceof ApiError && error.status === 404)) {
          showToast({ title: 'Could not refresh data', description: messageOf(error) })
        }
      },
    }),
    mutationCache: new MutationCache({
      // Awaited before the mutation's own onSuccess: what it changed is fresh when the caller moves on.
      onSuccess: (data, variables, _context, mutation) => applyCacheEffects(client, mutation.meta?.cache?.afterSuccess?.(data, variables)),
      onError: (error, _variables, _context, mutation) => {
        if (mutation.meta?.inlineErrors) return
        showToast({ title: 'Something went wrong', description: messageOf(error) })
      },
      // After the mutation's own onSuccess (the caller has moved on), or its onError (it has rolled
      // its optimistic change back).
      onSettled: (data, error, variables, _context, mutation) => {
        const rule = mutation.meta?.cache
        return applyCacheEffects(client, error ? rule?.afterFailure?.(variables) : rule?.afterCallerSuccess?.(data, variables))
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        retry: shouldRetry,
        retryDelay: (attempt) => Math.min(500 * 2 ** attempt, 4000),
      },
    },
  })
  return client
}
