import { z } from 'zod'
import { directionSchema, DEFAULT_ERRORS_PER_PAGE, idSchema, perPageSchema, timestampSchema } from './common.ts'

export const ERROR_STATUSES = ['open', 'fixed', 'snoozed', 'ignored'] as const
export const errorStatusSchema = z.enum(ERROR_STATUSES)
export type ErrorStatus = z.infer<typeof errorStatusSchema>

export const SEVERITIES = ['error', 'warning', 'info'] as const
export const severitySchema = z.enum(SEVERITIES)
export type Severity = z.infer<typeof severitySchema>

export const GROUPING_REASONS = ['grouping_hash', 'in_project_frame', 'top_frame', 'error_class_and_message'] as const
export const groupingReasonSchema = z.enum(GROUPING_REASONS)
export type GroupingReason = z.infer<typeof groupingReasonSchema>

export const errorSchema = z.object({
  id: idSchema,
  project_id: idSchema,
  error_class: z.string(),
  message: z.string(),
  context: z.string().nullable(),
  severity: severitySchema,
  unhandled: z.boolean(),
  status: errorStatusSchema,
  assigned_collaborator_id: idSchema.nullable(),
  reopen_rules: z.record(z.string(), z.unknown()).nullable(),
  first_seen: timestampSchema,
  last_seen: timestampSchema,
  events: z.number().int(),
  users: z.number().int(),
  release_stages: z.array(z.string()),
  app_versions: z.array(z.string()),
  /** Which rule formed the group; docs/grouping.md explains each. */
  grouping_reason: groupingReasonSchema,
  url: z.string(),
  html_url: z.string(),
})
/** Named ErrorGroup so it never shadows the built-in Error. */
export type ErrorGroup = z.infer<typeof errorSchema>

export const ERROR_SORTS = ['last_seen', 'first_seen', 'events', 'users'] as const
export const errorSortSchema = z.enum(ERROR_SORTS)
export type ErrorSort = z.infer<typeof errorSortSchema>

export const listErrorsQuerySchema = z.object({
  sort: errorSortSchema.default('last_seen'),
  direction: directionSchema.default('desc'),
  per_page: perPageSchema(DEFAULT_ERRORS_PER_PAGE),
  /** Opaque keyset cursor from the previous page's Link rel="next". */
  cursor: z.string().optional(),
})
export type ListErrorsQuery = z.infer<typeof listErrorsQuerySchema>
