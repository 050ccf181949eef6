// The legacy v1 API (docs/legacy-api.md): errors, projects and users as the old API named them,
// served on the same data as v2 (an account is an organization, a user a collaborator).
import { z } from 'zod/mini'
import { directionSchema, idSchema, perPageSchema, timestampSchema } from './common.ts'
import { eventSchema } from './events.ts'
import { passwordSchema } from './users.ts'

/** Default page size of the legacy lists (the spec's section 8). */
export const LEGACY_PER_PAGE = 30
/** The furthest `offset` a legacy list pages to. */
export const MAX_LEGACY_OFFSET = 1_000_000

/** The legacy project types (the spec's section 2), all of them v2 types too; the spec's service-named type has no Errata project type. */
export const LEGACY_PROJECT_TYPES = ['rails', 'django', 'php', 'ios', 'sinatra', 'node', 'unity', 'js', 'java', 'other'] as const

export const legacyErrorSchema = z.object({
  id: idSchema,
  class: z.string(),
  last_message: z.string(),
  last_context: z.nullable(z.string()),
  resolved: z.boolean(),
  occurrences: z.number(),
  users_affected: z.number(),
  /** Name → number of the error's events. */
  contexts: z.record(z.string(), z.number()),
  release_stages: z.record(z.string(), z.number()),
  app_versions: z.record(z.string(), z.number()),
  /** The assigned user's id (a v2 collaborator id); null when unassigned. */
  assigned_user_id: z.nullable(idSchema),
  first_received: timestampSchema,
  last_received: timestampSchema,
  comments_url: z.string(),
  events_url: z.string(),
  html_url: z.string(),
  url: z.string(),
  /** Only when asked for with most_recent_event=true; null when the error has no event left. */
  most_recent_event: z.optional(z.nullable(eventSchema)),
})
export type LegacyError = z.infer<typeof legacyErrorSchema>

export const legacyProjectSchema = z.object({
  id: idSchema,
  name: z.string(),
  api_key: z.string(),
  /** Open errors. */
  errors: z.number(),
  icon: z.string(),
  release_stages: z.array(z.string()),
  type: z.string(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
  errors_url: z.string(),
  events_url: z.string(),
  html_url: z.string(),
  url: z.string(),
})
export type LegacyProject = z.infer<typeof legacyProjectSchema>

export const legacyUserSchema = z.object({
  id: idSchema,
  name: z.string(),
  account_admin: z.boolean(),
  email: z.string(),
  /** No avatar service: always null, and avatar_url a neutral picture. */
  avatar_id: z.null(),
  avatar_url: z.string(),
  html_url: z.string(),
  projects_url: z.string(),
  url: z.string(),
})
export type LegacyUser = z.infer<typeof legacyUserSchema>

/** `offset` of a legacy list: how many rows the page skips, plain decimal digits. */
const offsetSchema = z._default(
  z.pipe(
    z.pipe(z.string().check(z.regex(/^\d+$/, 'must be a whole number')), z.transform(Number)),
    z.number().check(z.lte(MAX_LEGACY_OFFSET, `must be at most ${MAX_LEGACY_OFFSET}`)),
  ),
  0,
)

/** Paging of a legacy list sorted by one field (`sort` takes that field only). */
export const legacyPageQuerySchema = <S extends string>(sort: S) =>
  z.object({
    sort: z._default(z.enum([sort]), sort),
    direction: z._default(directionSchema, 'desc'),
    per_page: perPageSchema(LEGACY_PER_PAGE),
    offset: offsetSchema,
  })
export type LegacyPageQuery = z.infer<ReturnType<typeof legacyPageQuerySchema>>

const flag = z._default(z.pipe(z.enum(['true', 'false', '1', '0']), z.transform((v) => v === 'true' || v === '1')), false)
const commaList = z.optional(
  z.pipe(
    z.string(),
    z.transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ),
)

/** GET /projects/{id}/errors. `app_versions` is parsed by the server (server/legacy/app-versions.ts). */
export const legacyErrorsQuerySchema = z.extend(legacyPageQuerySchema('updated_at'), {
  release_stages: commaList,
  app_versions: z.optional(z.string()),
  severity: commaList,
  status: z.optional(z.enum(['open', 'fixed', 'snoozed', 'ignored'])),
  most_recent_event: flag,
})
export type LegacyErrorsQuery = z.infer<typeof legacyErrorsQuerySchema>

export const legacyErrorQuerySchema = z.object({ most_recent_event: flag })

export const legacyErrorUpdateSchema = z.object({ resolved: z.boolean() })

const projectName = z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(200, 'must be at most 200 characters'))
const legacyProjectType = z.enum(LEGACY_PROJECT_TYPES, { error: `must be one of ${LEGACY_PROJECT_TYPES.join(', ')}` })

export const legacyProjectCreateSchema = z.object({ name: projectName, type: z._default(legacyProjectType, 'other') })
export const legacyProjectUpdateSchema = z
  .object({ name: z.optional(projectName), type: z.optional(legacyProjectType) })
  .check(z.refine((v) => v.name !== undefined || v.type !== undefined, 'body: give name or type'))

const email = z.pipe(
  z.pipe(z.string().check(z.trim(), z.toLowerCase()), z.email('must be an email address')),
  z.string().check(z.maxLength(320, 'must be at most 320 characters')),
)
const projectIds = z.array(idSchema).check(z.maxLength(1000))

/** POST /accounts/{id}/users: `password` only to make a new account, which then needs `name`. */
export const legacyUserCreateSchema = z
  .object({
    email,
    admin: z._default(z.boolean(), false),
    project_ids: z.optional(z.nullable(projectIds)),
    password: z.optional(passwordSchema),
    name: z.optional(z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(200))),
  })
  .check(z.refine((v) => v.password === undefined || v.name !== undefined, { message: 'is required with a password', path: ['name'] }))
export type LegacyUserCreate = z.infer<typeof legacyUserCreateSchema>

export const legacyUserUpdateSchema = z
  .object({ admin: z.optional(z.boolean()), project_ids: z.optional(z.nullable(projectIds)) })
  .check(z.refine((v) => v.admin !== undefined || v.project_ids !== undefined, 'body: give admin or project_ids'))

