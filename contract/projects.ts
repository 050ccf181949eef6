import { z } from 'zod/mini'
import { idSchema, timestampSchema } from './common.ts'

/** Project types of the spec (section 2), plus common notifier platforms. */
export const PROJECT_TYPES = [
  'node', 'js', 'browser', 'react', 'vue', 'angular', 'react_native', 'expo', 'electron',
  'android', 'ios', 'macos', 'unity', 'java', 'rails', 'django', 'php', 'sinatra', 'go', 'python',
  'ruby', 'dotnet', 'cocoa', 'other',
] as const
export const projectTypeSchema = z.enum(PROJECT_TYPES)
export type ProjectType = z.infer<typeof projectTypeSchema>

export const projectSchema = z.object({
  id: idSchema,
  organization_id: idSchema,
  name: z.string(),
  slug: z.string(),
  type: z.string(),
  api_key: z.string(),
  collaborators_count: z.number().check(z.int()),
  open_error_count: z.number().check(z.int()),
  release_stages: z.array(z.string()),
  /** Days this project's events are kept, when it overrides the server's default; null otherwise. */
  event_retention_days: z.nullable(z.number().check(z.int())),
  /** Days its events are kept: the override, else the server's default (ERRATA_RETENTION_DAYS). */
  effective_event_retention_days: z.number().check(z.int()),
  /** The server's default (ERRATA_RETENTION_DAYS), what null puts back. */
  default_event_retention_days: z.number().check(z.int()),
  created_at: timestampSchema,
  updated_at: timestampSchema,
  html_url: z.string(),
})
export type Project = z.infer<typeof projectSchema>

const projectName = z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(200, 'must be at most 200 characters'))

export const createProjectSchema = z.object({ name: projectName, type: z._default(projectTypeSchema, 'other') })
export type CreateProject = z.infer<typeof createProjectSchema>

export const MAX_RETENTION_DAYS = 3650

const retentionDays = z.nullable(
  z
    .number({ error: `must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or null for the server's default` })
    .check(
      z.int(`must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or null for the server's default`),
      z.gte(1, `must be at least 1 day, or null for the server's default`),
      z.lte(MAX_RETENTION_DAYS, `must be at most ${MAX_RETENTION_DAYS} days`),
    ),
)

export const updateProjectSchema = z
  .partial(z.object({ name: projectName, type: projectTypeSchema, event_retention_days: retentionDays }))
  .check(
    z.refine(
      (value) => value.name !== undefined || value.type !== undefined || value.event_retention_days !== undefined,
      'body: give at least one of name, type, event_retention_days',
    ),
  )
export type UpdateProject = z.infer<typeof updateProjectSchema>
