import { z } from 'zod/mini'
import { idSchema, timestampSchema } from './common.ts'

/**
 * An organization API token as GET /organizations/{id}/api_tokens lists it: credentials of the
 * organization for the legacy v1 API, made by an admin; the secret itself is never shown again.
 */
export const organizationTokenSchema = z.object({
  id: idSchema,
  name: z.string(),
  created_at: timestampSchema,
  last_used_at: z.nullable(timestampSchema),
  /** The admin who made it; what the token changes is recorded as theirs. */
  created_by: z.object({ id: idSchema, name: z.string() }),
  /** False once its maker is no longer an admin of the organization: it stops working then. */
  active: z.boolean(),
})
export type OrganizationToken = z.infer<typeof organizationTokenSchema>

export const createOrganizationTokenSchema = z.object({
  name: z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(200, 'must be at most 200 characters')),
})
export type CreateOrganizationToken = z.infer<typeof createOrganizationTokenSchema>

/** The answer to POST /organizations/{id}/api_tokens: the only time the secret is shown. */
export const createdOrganizationTokenSchema = z.extend(organizationTokenSchema, { token: z.string() })
export type CreatedOrganizationToken = z.infer<typeof createdOrganizationTokenSchema>
