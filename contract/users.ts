import { z } from 'zod'
import { idSchema, timestampSchema } from './common.ts'

export const currentUserSchema = z.object({
  id: idSchema,
  name: z.string(),
  email: z.string(),
  created_at: timestampSchema,
})
export type CurrentUser = z.infer<typeof currentUserSchema>

export const loginRequestSchema = z.object({
  email: z.string().trim().min(1, 'is required'),
  password: z.string().min(1, 'is required'),
})
export type LoginRequest = z.infer<typeof loginRequestSchema>

export const loginResponseSchema = z.object({ token: z.string(), user: currentUserSchema })
export type LoginResponse = z.infer<typeof loginResponseSchema>
