// Privacy requests (spec sections 2–4): event data retrievals for access requests (GDPR, and
// CCPA under the same report type) and event data deletions. docs/privacy.md explains the
// states, including those the spec leaves open (skip_confirmation, failure).
import { z } from 'zod/mini'
import { idSchema, perPageSchema, timestampSchema } from './common.ts'
import { filtersSchema } from './filters.ts'

export const REPORT_TYPES = ['gdpr'] as const
export type ReportType = (typeof REPORT_TYPES)[number]

export const RETRIEVAL_STATUSES = ['PREPARING', 'COMPLETED', 'FAILED'] as const
export type RetrievalStatus = (typeof RETRIEVAL_STATUSES)[number]

export const DELETION_STATUSES = ['PREPARING', 'AWAITING_CONFIRMATION', 'ACCEPTED', 'COMPLETED', 'FAILED'] as const
export type DeletionStatus = (typeof DELETION_STATUSES)[number]

/** States after which nothing changes on its own: the dashboard stops polling there. */
export const FINAL_RETRIEVAL_STATUSES: readonly RetrievalStatus[] = ['COMPLETED', 'FAILED']
export const FINAL_DELETION_STATUSES: readonly DeletionStatus[] = ['AWAITING_CONFIRMATION', 'COMPLETED', 'FAILED']

/** How long a retrieval's output file can be downloaded after it is complete (spec section 8). */
export const RETRIEVAL_FILE_DAYS = 7

/** Who made or confirmed a request, as they were named then (kept if the account goes). */
export const privacyActorSchema = z.object({
  /** null once the account was deleted. */
  id: z.nullable(idSchema),
  email: z.string(),
  name: z.string(),
})
export type PrivacyActor = z.infer<typeof privacyActorSchema>

/** The background work behind a request: attempts so far and why the last one failed. */
const jobFields = {
  attempts: z.number().check(z.int()),
  last_error: z.nullable(z.string()),
  /** Why it stopped for good (status FAILED). */
  failure: z.nullable(z.string()),
}

/** An event data request (retrieval). The spec's fields first, then Errata's. */
export const eventDataRequestSchema = z.object({
  id: idSchema,
  status: z.enum(RETRIEVAL_STATUSES),
  /** Events in the file; null until known. */
  total: z.nullable(z.number().check(z.int())),
  filters: filtersSchema,
  report_type: z.enum(REPORT_TYPES),
  created_at: timestampSchema,
  completed_at: z.nullable(timestampSchema),
  /** completed_at + 7 days: the file is removed then, and the download answers 410. */
  expires_at: z.nullable(timestampSchema),
  /** The download (GET with the same Authorization); present while the file can be downloaded: completed, not expired or removed. */
  url: z.optional(z.string()),
  organization_id: idSchema,
  /** null: every project of the organization. */
  project_id: z.nullable(idSchema),
  /** The request selects every event of its scope (no filters). */
  all_events: z.boolean(),
  created_by: privacyActorSchema,
  /** Size of the (gzip'd) file; null until completed. */
  file_bytes: z.nullable(z.number().check(z.int())),
  /** Why the file is gone: it expired, or a later deletion in its scope removed it. */
  file_removed: z.nullable(z.enum(['expired', 'deleted'])),
  ...jobFields,
})
export type EventDataRequest = z.infer<typeof eventDataRequestSchema>

/** An event data deletion. The spec's fields first, then Errata's. */
export const eventDataDeletionSchema = z.object({
  id: idSchema,
  status: z.enum(DELETION_STATUSES),
  /** Matching events when counted; null until known. */
  total: z.nullable(z.number().check(z.int())),
  filters: filtersSchema,
  created_at: timestampSchema,
  /** Set when counted (AWAITING_CONFIRMATION) and when completed; null otherwise. */
  completed_at: z.nullable(timestampSchema),
  organization_id: idSchema,
  project_id: z.nullable(idSchema),
  all_events: z.boolean(),
  skip_confirmation: z.boolean(),
  /** Events deleted so far (more than total when the user sent more events after the count). */
  deleted_events: z.number().check(z.int()),
  created_by: privacyActorSchema,
  confirmed_by: z.nullable(privacyActorSchema),
  confirmed_at: z.nullable(timestampSchema),
  ...jobFields,
})
export type EventDataDeletion = z.infer<typeof eventDataDeletionSchema>

/** true / false in a query string. */
const queryBoolean = () =>
  z.pipe(
    z.enum(['true', 'false'], { error: 'must be true or false' }),
    z.transform((v) => v === 'true'),
  )

/**
 * POST …/event_data_requests: filters and report_type in the query string (as the spec shows,
 * no body), or as a JSON body. `all_events=true` selects everything, in place of filters.
 */
export const createRetrievalQuerySchema = z.object({
  report_type: z.optional(z.enum(REPORT_TYPES, { error: 'must be gdpr (it also serves CCPA requests)' })),
  all_events: z.optional(queryBoolean()),
})
export const createRetrievalBodySchema = z.strictObject({
  filters: z.optional(filtersSchema),
  report_type: z.optional(z.enum(REPORT_TYPES, { error: 'must be gdpr (it also serves CCPA requests)' })),
  all_events: z.optional(z.boolean()),
})

/** POST …/event_data_deletions, in the query string or as a JSON body. */
export const createDeletionQuerySchema = z.object({
  skip_confirmation: z.optional(queryBoolean()),
  all_events: z.optional(queryBoolean()),
})
export const createDeletionBodySchema = z.strictObject({
  filters: z.optional(filtersSchema),
  skip_confirmation: z.optional(z.boolean()),
  all_events: z.optional(z.boolean()),
})

export const listPrivacyQuerySchema = z.object({
  per_page: perPageSchema(30),
  cursor: z.optional(z.string()),
})

/** An event as the privacy page's preview shows it: enough to recognise it. */
export const privacyPreviewEventSchema = z.object({
  id: idSchema,
  project_id: idSchema,
  error_id: idSchema,
  received_at: timestampSchema,
  error_class: z.string(),
  message: z.string(),
  context: z.nullable(z.string()),
  user: z.object({ id: z.nullable(z.string()), email: z.nullable(z.string()), name: z.nullable(z.string()) }),
})

/** People the preview lists by name, most events first. */
export const PRIVACY_PEOPLE_SHOWN = 20
/** People counted per project at most: past it the count is a lower bound ("at least"). */
export const PRIVACY_PEOPLE_COUNTED = 1000

/**
 * One person a selection matches: events with one user id, or (without one) one email, or
 * (without either) one name; with an email and a name they used.
 */
export const privacyPersonSchema = z.object({
  user: z.object({ id: z.nullable(z.string()), email: z.nullable(z.string()), name: z.nullable(z.string()) }),
  events: z.number().check(z.int()),
})
export type PrivacyPerson = z.infer<typeof privacyPersonSchema>

/** GET …/event_data_preview: how many events a selection matches now, the newest few, and whose they are. */
export const privacyPreviewSchema = z.object({
  total: z.number().check(z.int()),
  events: z.array(privacyPreviewEventSchema),
  people: z.object({
    /** Different people matched; when `capped`, at least this many (more than PRIVACY_PEOPLE_COUNTED). */
    total: z.number().check(z.int()),
    /** More people than were counted (PRIVACY_PEOPLE_COUNTED in a project). */
    capped: z.boolean(),
    /** The first PRIVACY_PEOPLE_SHOWN, most events first. */
    items: z.array(privacyPersonSchema),
    /** Matching events with no user id, email or name. */
    events_without_user: z.number().check(z.int()),
  }),
})
export type PrivacyPreview = z.infer<typeof privacyPreviewSchema>

/** One line of a retrieval's output file (JSON lines): the event with its user, device and metadata. */
export const retrievalLineSchema = z.looseObject({
  event_id: idSchema,
  project_id: idSchema,
  project_name: z.string(),
  error_id: idSchema,
  received_at: timestampSchema,
  user: z.record(z.string(), z.unknown()),
  device: z.record(z.string(), z.unknown()),
  meta_data: z.record(z.string(), z.unknown()),
})
