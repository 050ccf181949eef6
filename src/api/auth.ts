import { queryOptions } from '@tanstack/react-query'
import { currentUserSchema, loginResponseSchema, type LoginRequest, type LoginResponse } from '../../contract/users.ts'
import { clearToken, writeToken } from '../lib/token-store.ts'
import { apiUrl, getJson, sendEmpty, sendJson } from './http.ts'

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

/** Signs in and keeps the token for every later request. */
export async function login(input: LoginRequest): Promise<LoginResponse> {
  const response = await sendJson('POST', apiUrl('/auth/login'), input, loginResponseSchema)
  writeToken(response.token)
  return response
}

/** Revokes the token on the server (best effort) and forgets it locally either way. */
export async function logout(): Promise<void> {
  try {
    await sendEmpty('POST', apiUrl('/auth/logout'))
  } finally {
    clearToken()
  }
}
