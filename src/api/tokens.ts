import { mutationOptions, queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { authTokenSchema, createdTokenSchema, type CreateTokenRequest } from '../../contract/tokens.ts'
import { apiUrl, getJson, sendEmpty, sendJson } from './http.ts'
import { cachePolicy, invalidate } from './mutation-policy.ts'

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

// Mutations: their cache consequences live in mutation-policy.ts, by mutationKey.

export const tokenMutationKeys = {
  create: () => ['tokens', 'create'] as const,
  revoke: () => ['tokens', 'revoke'] as const,
}

export const createTokenMutation = () =>
  mutationOptions({ mutationKey: tokenMutationKeys.create(), mutationFn: createToken, meta: { inlineErrors: true } })

/** Revokes a token; `current` says it is this browser's own (the session ends with it). */
export const revokeTokenMutation = () =>
  mutationOptions({
    mutationKey: tokenMutationKeys.revoke(),
    mutationFn: (token: { id: string; current: boolean }) => revokeToken(token.id),
    meta: { inlineErrors: true },
  })

cachePolicy('tokens/create', { effects: () => invalidate(tokenKeys.list()) })
// Revoking this browser's own token ends the session: there is nothing left to read.
cachePolicy<{ current: boolean }>('tokens/revoke', { effects: ({ variables }) => (variables.current ? {} : invalidate(tokenKeys.list())) })
