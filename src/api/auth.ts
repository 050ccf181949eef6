import { queryOptions } from '@tanstack/react-query'
import { currentUserSchema } from '../../contract/users.ts'
import { clearToken } from '../lib/token-store.ts'
import { apiUrl, getJson, sendEmpty } from './http.ts'

export const userKeys = {
  all: ['user'] as const,
  current: () => [...userKeys.all, 'current'] as const,
}

export const currentUserQuery = () =>
  queryOptions({
    queryKey: userKeys.current(),
    queryFn: ({ signal }) => getJson(apiUrl('/user'), currentUserSchema, signal),
    staleTime: 5 * 60_000,
  })

/** Revokes the token on the server (best effort) and forgets it locally either way. */
export async function logout(): Promise<void> {
  try {
    await sendEmpty('POST', apiUrl('/auth/logout'))
  } finally {
    clearToken()
  }
}
