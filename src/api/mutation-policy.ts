// What each mutation changes in the cache, by its mutationKey: the one place that reads data again
// after a write. Each src/api module declares the rules of its mutations here (cachePolicy, beside
// their factories, so a page loads the rules of the mutations it can run and no others);
// query-client.ts runs them from its MutationCache, after a success (before the caller's own
// onSuccess, so a dialog that closes shows fresh data) and, for the optimistic error operations,
// after a failure too (their rollback may be older than the server's state).
import type { InvalidateQueryFilters, Mutation, QueryClient, QueryKey } from '@tanstack/react-query'

/** A mutation's consequences: queries to drop (read about something gone), to replace, to read again. */
export interface CacheEffects {
  remove?: QueryKey[]
  write?: [QueryKey, unknown][]
  invalidate?: InvalidateQueryFilters[]
}

export interface SettledMutation<TVariables, TData> {
  /** The mutation key past its first two parts (resource, action): the ids it was made for. */
  scope: readonly unknown[]
  variables: TVariables
  /** Undefined after a failure. */
  data: TData | undefined
  failed: boolean
}

interface Rule {
  effects: (mutation: SettledMutation<never, never>) => CacheEffects
  /** Also after a failure: optimistic mutations whose rollback may be stale. */
  afterFailure?: boolean
}

const RULES = new Map<string, Rule>()

/**
 * Declares what the mutations keyed [resource, action, …] change in the cache. `name` is
 * "resource/action"; one rule per name.
 */
export function cachePolicy<TVariables = unknown, TData = unknown>(
  name: string,
  rule: { effects: (mutation: SettledMutation<TVariables, TData>) => CacheEffects; afterFailure?: boolean },
): void {
  RULES.set(name, rule as Rule)
}

export const invalidate = (...keys: QueryKey[]): CacheEffects => ({ invalidate: keys.map((queryKey) => ({ queryKey })) })

/**
 * The rule of a mutation that changes nothing cached, or whose caller handles the cache around its
 * own navigation: declared all the same, so that every mutation key has a rule and a new mutation
 * without one is caught (src/api/mutation-keys.test.ts).
 */
export const noCacheEffects = { effects: (): CacheEffects => ({}) }

/** The rule's name: a mutation key's resource and action, e.g. "errors/operation". */
const ruleName = (key: readonly unknown[]) => `${String(key[0])}/${String(key[1])}`

/** Whether a mutation key has a rule (every mutation that changes cached data must). */
export const hasCachePolicy = (key: readonly unknown[]) => RULES.has(ruleName(key))

/** Applies the rule of a settled mutation, if it has one; resolves when what it invalidated was read again. */
export async function applyCachePolicy(
  client: QueryClient,
  mutation: Mutation<unknown, unknown, unknown, unknown>,
  outcome: { data: unknown; failed: boolean },
): Promise<void> {
  const key = mutation.options.mutationKey
  const rule = key ? RULES.get(ruleName(key)) : undefined
  if (!key || !rule || (outcome.failed && !rule.afterFailure)) return
  const effects = rule.effects({ scope: key.slice(2), variables: mutation.state.variables as never, data: outcome.data as never, failed: outcome.failed })
  for (const queryKey of effects.remove ?? []) client.removeQueries({ queryKey })
  for (const [queryKey, data] of effects.write ?? []) client.setQueryData(queryKey, data)
  await Promise.all((effects.invalidate ?? []).map((filters) => client.invalidateQueries(filters)))
}
