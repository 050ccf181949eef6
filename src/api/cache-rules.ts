// What a mutation changes in the cache: the one place that reads data again after a write. Each
// mutation factory in src/api carries its rule in `meta.cache` (mutationWithCacheRule, typed by
// the mutation's own data and variables); query-client.ts applies it from its MutationCache.
import type { InvalidateQueryFilters, QueryClient, QueryKey, UseMutationOptions, WithRequired } from '@tanstack/react-query'

/** A mutation's consequences: queries to drop (read about something gone), to replace, to read again. */
export interface CacheEffects {
  /** Empties the cache first: someone else signed in, nothing read before is theirs. */
  clear?: boolean
  remove?: QueryKey[]
  /** The new data, or an updater of what is cached (as setQueryData takes it). */
  write?: [QueryKey, unknown][]
  invalidate?: InvalidateQueryFilters[]
}

export interface CacheRule<TData = unknown, TVariables = unknown> {
  /** After a success, awaited before the caller's own onSuccess (a dialog that closes shows fresh data). */
  afterSuccess?(data: TData, variables: TVariables): CacheEffects
  /**
   * After the caller's own onSuccess: what the page it leaves still shows (dropped before, that
   * page would read it again and find a 404).
   */
  afterCallerSuccess?(data: TData, variables: TVariables): CacheEffects
  /** After a failure, once the mutation's own onError has rolled back (that rollback may be stale). */
  afterFailure?(variables: TVariables): CacheEffects
}

declare module '@tanstack/react-query' {
  interface Register {
    defaultError: Error
    mutationMeta: {
      /** The form shows this mutation's errors itself; no toast. */
      inlineErrors?: boolean
      /**
       * What the mutation changes in the cache; every factory has one, `{}` when nothing cached
       * changes (src/api/mutation-keys.test.ts). Declared with methods, so a rule typed by its
       * mutation (mutationWithCacheRule) fits here.
       */
      cache?: CacheRule
    }
  }
}

/**
 * A mutation's options (as mutationOptions takes them) with its cache rule, `cache`, typed by the
 * mutation's own data and variables; the rule goes into its meta.
 */
export function mutationWithCacheRule<TData = unknown, TError = Error, TVariables = void, TContext = unknown>({
  cache,
  ...options
}: WithRequired<UseMutationOptions<TData, TError, TVariables, TContext>, 'mutationKey'> & {
  cache: CacheRule<TData, TVariables>
}): WithRequired<UseMutationOptions<TData, TError, TVariables, TContext>, 'mutationKey'> {
  return { ...options, meta: { ...options.meta, cache } }
}

export const invalidate = (...keys: QueryKey[]): CacheEffects => ({ invalidate: keys.map((queryKey) => ({ queryKey })) })

/** Applies effects; resolves when what they invalidated was read again. */
export async function applyCacheEffects(client: QueryClient, effects: CacheEffects | undefined): Promise<void> {
  if (!effects) return
  if (effects.clear) client.clear()
  for (const queryKey of effects.remove ?? []) client.removeQueries({ queryKey })
  for (const [queryKey, data] of effects.write ?? []) client.setQueryData(queryKey, data)
  await Promise.all((effects.invalidate ?? []).map((filters) => client.invalidateQueries(filters)))
}
