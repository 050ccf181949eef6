import { queryOptions } from '@tanstack/react-query'
import { passwordResetAvailabilitySchema, type PasswordResetConfirm } from '../../contract/users.ts'
import { mutationWithCacheRule } from './cache-rules.ts'
import { apiUrl, getJson, sendEmpty } from './http.ts'

export const passwordResetKeys = { availability: () => ['password-reset', 'availability'] as const }

export const passwordResetMutationKeys = {
  request: () => ['password-reset', 'request'] as const,
  confirm: () => ['password-reset', 'confirm'] as const,
}

/** Whether this server sends email (so "forgot password" can email a link). */
export const passwordResetAvailabilityQuery = () =>
  queryOptions({
    queryKey: passwordResetKeys.availability(),
    queryFn: ({ signal }) => getJson(apiUrl('/auth/password-reset'), passwordResetAvailabilitySchema, signal),
    staleTime: Infinity,
  })

/** Asks for a reset link (202 whether or not an account has the email). */
const requestPasswordReset = (email: string) => sendEmpty('POST', apiUrl('/auth/password-reset'), { email })

/** Sets the password through an emailed link's token (204). */
const confirmPasswordReset = (input: PasswordResetConfirm) => sendEmpty('POST', apiUrl('/auth/password-reset/confirm'), input)

// Mutations (cache-rules.ts): neither changes anything a signed-out page has cached.

export const requestPasswordResetMutation = () =>
  mutationWithCacheRule({
    mutationKey: passwordResetMutationKeys.request(),
    mutationFn: requestPasswordReset,
    meta: { inlineErrors: true },
    cache: {},
  })

export const confirmPasswordResetMutation = () =>
  mutationWithCacheRule({
    mutationKey: passwordResetMutationKeys.confirm(),
    mutationFn: confirmPasswordReset,
    meta: { inlineErrors: true },
    cache: {},
  })
