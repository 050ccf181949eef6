import { z } from 'zod/mini'
import { idSchema, timestampSchema } from './common.ts'

/** A personal auth token as GET /user/tokens lists it; the secret itself is never shown again. */
export const authTokenSchema = z.object({
  id: idSchema,
  description: z.string(),
  created_at: timestampSchema,
  last_used_at: z.nullable(timestampSchema),
  /** True for the token this request was made with. */
  current: z.boolean(),
})
export type AuthToken = z.infer<typeof authTokenSchema>

export const createTokenRequestSchema = z.object({
  description: z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(200, 'must be at most 200 characters')),
})
export type CreateTokenRequest = z.infer<typeof createTokenRequestSchema>

/** The answer to POST /user/tokens: the only time the secret is shown. */
export const createdTokenSchema = z.extend(authTokenSchema, { token: z.string() })
export type CreatedToken = z.infer<typeof createdTokenSchema>
