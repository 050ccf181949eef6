import { queryOptions } from '@tanstack/react-query'
import { passwordResetAvailabilitySchema, type PasswordResetConfirm } from '../../contract/users.ts'
import { apiUrl, getJson, sendEmpty } from './http.ts'

export const passwordResetKeys = { availability: () => ['password-reset', 'availability'] as const }

/** Whether this server sends email (so "forgot password" can email a link). */
export const passwordResetAvailabilityQuery = () =>
  queryOptions({
    queryKey: passwordResetKeys.availability(),
    queryFn: ({ signal }) => getJson(apiUrl('/auth/password-reset'), passwordResetAvailabilitySchema, signal),
    staleTime: Infinity,
  })

/** Asks for a reset link (202 whether or not an account has the email). */
export const requestPasswordReset = (email: string) => sendEmpty('POST', apiUrl('/auth/password-reset'), { email })

/** Sets the password through an emailed link's token (204). */
export const confirmPasswordReset = (input: PasswordResetConfirm) => sendEmpty('POST', apiUrl('/auth/password-reset/confirm'), input)
