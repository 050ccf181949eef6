import { z } from 'zod/mini'
import { idSchema, timestampSchema } from './common.ts'

export const currentUserSchema = z.object({
  id: idSchema,
  name: z.string(),
  email: z.string(),
  created_at: timestampSchema,
})
export type CurrentUser = z.infer<typeof currentUserSchema>

/** The one password rule: every way an account gets a password (first admin, invitation, direct add) keeps it. */
export const MIN_PASSWORD_LENGTH = 10
export const MAX_PASSWORD_LENGTH = 1000
/** The rule as forms state it beside a password field. */
export const PASSWORD_RULE = `At least ${MIN_PASSWORD_LENGTH} characters.`
export const passwordSchema = z
  .string()
  .check(
    z.minLength(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`),
    z.maxLength(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`),
  )

// Signing in checks only that a password was given: an account keeps working whatever rule held when its password was set.
export const loginRequestSchema = z.object({
  email: z.string().check(z.trim(), z.minLength(1, 'is required')),
  password: z.string().check(z.minLength(1, 'is required')),
})
export type LoginRequest = z.infer<typeof loginRequestSchema>

export const loginResponseSchema = z.object({ token: z.string(), user: currentUserSchema })
export type LoginResponse = z.infer<typeof loginResponseSchema>

/** POST /auth/password-reset: answered 202 whether or not an account has the email. */
export const passwordResetRequestSchema = z.object({
  email: z.string().check(z.trim(), z.minLength(1, 'is required'), z.maxLength(320, 'must be at most 320 characters')),
})
export type PasswordResetRequest = z.infer<typeof passwordResetRequestSchema>

/** POST /auth/password-reset/confirm: the emailed link's token and the new password (the password rule applies). */
export const passwordResetConfirmSchema = z.object({
  token: z.string().check(z.minLength(1, 'is required'), z.maxLength(200, 'is not a valid link')),
  password: passwordSchema,
})
export type PasswordResetConfirm = z.infer<typeof passwordResetConfirmSchema>

/** GET /auth/password-reset: whether this server sends email, so the sign-in page offers the right way back in. */
export const passwordResetAvailabilitySchema = z.object({ email_enabled: z.boolean() })
export type PasswordResetAvailability = z.infer<typeof passwordResetAvailabilitySchema>
