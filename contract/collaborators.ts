import { z } from 'zod'
import { idSchema } from './common.ts'

export const collaboratorSchema = z.object({
  id: idSchema,
  name: z.string(),
  email: z.string(),
  is_admin: z.boolean(),
})
export type Collaborator = z.infer<typeof collaboratorSchema>
