import { z } from 'zod/mini'
import { idSchema, timestampSchema } from './common.ts'

export const organizationSchema = z.object({
  id: idSchema,
  name: z.string(),
  slug: z.string(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
})
export type Organization = z.infer<typeof organizationSchema>

const organizationName = z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(200, 'must be at most 200 characters'))

export const createOrganizationSchema = z.object({ name: organizationName })
export type CreateOrganization = z.infer<typeof createOrganizationSchema>

export const updateOrganizationSchema = z.object({ name: organizationName })
export type UpdateOrganization = z.infer<typeof updateOrganizationSchema>
