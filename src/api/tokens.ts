import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { authTokenSchema, createdTokenSchema, type CreateTokenRequest } from '../../contract/tokens.ts'
import { apiUrl, getJson, sendEmpty, sendJson } from './http.ts'
import { invalidate, mutationWithCacheRule } from './cache-rules.ts'

export const tokenKeys = {
  all: ['user', 'tokens'] as const,
  list: () => [...tokenKeys.all, 'list'] as const,
}

export const tokensQuery = () =>
  queryOptions({
    queryKey: tokenKeys.list(),
    queryFn: ({ signal }) => getJson(apiUrl('/user/tokens'), z.array(authTokenSchema), signal),
    // "Last used" moves with every request made elsewhere: refresh on each visit.
    staleTime: 0,
  })

/** The answer carries the secret; it is never shown again. */
export const createToken = (input: CreateTokenRequest) => sendJson('POST', apiUrl('/user/tokens'), input, createdTokenSchema)

export const revokeToken = (tokenId: string) => sendEmpty('DELETE', apiUrl(`/user/tokens/${encodeURIComponent(tokenId)}`))

// Mutations: each carries what it changes in the cache (cache-rules.ts).

export const tokenMutationKeys = {
  create: () => ['tokens', 'create'] as const,
  revoke: () => ['tokens', 'revoke'] as const,
}

export const createTokenMutation = () =>
  mutationWithCacheRule({
    mutationKey: tokenMutationKeys.create(),
    mutationFn: (description: string) => createToken({ description }),
    meta: { inlineErrors: true },
    cache: { afterSuccess: () => invalidate(tokenKeys.list()) },
  })

/** Revokes a token; `current` says it is this browser's own (the session ends with it). */
export const revokeTokenMutation = () =>
  mutationWithCacheRule({
    mutationKey: tokenMutationKeys.revoke(),
    mutationFn: (token: { id: string; current: boolean }) => revokeToken(token.id),
    meta: { inlineErrors: true },
    // Revoking this browser's own token ends the session: there is nothing left to read.
    cache: { afterSuccess: (_data, { current }) => (current ? {} : invalidate(tokenKeys.list())) },
  })
