import { z } from 'zod/mini'
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

// Snooze rules: what a snooze operation takes, and what an error stores while snoozed.

/** Snooze rules, as Bugsnag's API takes them (webhook kinds: occurrences, occurrence_per_hour, occurs_after). */
const count = (max: number) =>
  z
    .number({ error: 'must be a whole number' })
    .check(z.int('must be a whole number'), z.gte(1, 'must be at least 1'), z.lte(max, `must be at most ${max}`))

export const REOPEN_IFS = ['n_additional_occurrences', 'n_additional_users', 'n_occurrences_in_m_hours', 'occurs_after'] as const

export const reopenRulesSchema = z.discriminatedUnion(
  'reopen_if',
  [
    z.object({
      reopen_if: z.literal('n_additional_occurrences'),
      additional_occurrences: count(1_000_000_000),
    }),
    z.object({
      reopen_if: z.literal('n_additional_users'),
      additional_users: count(1_000_000_000),
    }),
    z.object({
      reopen_if: z.literal('n_occurrences_in_m_hours'),
      occurrences: count(1_000_000_000),
      hours: count(8_760),
    }),
    z.object({
      reopen_if: z.literal('occurs_after'),
      seconds: count(315_360_000),
    }),
  ],
  {
    error: (issue) =>
      issue.code === 'invalid_union'
        ? `must be one of ${REOPEN_IFS.join(', ')}`
        : issue.input === undefined
          ? 'required for snooze: {"reopen_if": …} with its numbers'
          : 'must be an object {"reopen_if": …} with its numbers',
  },
)
export type ReopenRules = z.infer<typeof reopenRulesSchema>

/**
 * The reopen_rules an error stores (and every response shows) while snoozed: the rule as given
 * plus the bookkeeping the server adds when it snoozes, which ingestion reads to decide when the
 * rule is met: when (snoozed_at), the counter it counts from (events_at_snooze, users_at_snooze)
 * or the time it ends (reopen_after). Written by the server alone (one UPDATE, database clock);
 * the dashboard's optimistic snooze writes the same shape with snoozeBookkeeping below.
 */
const snoozedAt = { snoozed_at: timestampSchema }
export const storedReopenRulesSchema = z.discriminatedUnion('reopen_if', [
  z.object({
    reopen_if: z.literal('n_additional_occurrences'),
    additional_occurrences: z.number().check(z.int()),
    ...snoozedAt,
    /** The error's event count at the snooze (raised by events received late, see docs/errors-workflow.md). */
    events_at_snooze: z.number().check(z.int()),
  }),
  z.object({
    reopen_if: z.literal('n_additional_users'),
    additional_users: z.number().check(z.int()),
    ...snoozedAt,
    users_at_snooze: z.number().check(z.int()),
  }),
  z.object({
    reopen_if: z.literal('n_occurrences_in_m_hours'),
    occurrences: z.number().check(z.int()),
    hours: z.number().check(z.int()),
    ...snoozedAt,
  }),
  z.object({ reopen_if: z.literal('occurs_after'), seconds: z.number().check(z.int()), ...snoozedAt, reopen_after: timestampSchema }),
])
export type StoredReopenRules = z.infer<typeof storedReopenRulesSchema>

/**
 * The rule a snooze stores for an error with these counters at `now`: the shape of
 * storedReopenRulesSchema. The server computes the same inside its UPDATE (per row, database
 * clock); this is the dashboard's copy of the result for an optimistic update.
 */
export function snoozeBookkeeping(
  rules: ReopenRules,
  counters: { events: number; users: number },
  now: Date,
): StoredReopenRules {
  const snoozed_at = now.toISOString()
  switch (rules.reopen_if) {
    case 'n_additional_occurrences':
      return { ...rules, snoozed_at, events_at_snooze: counters.events }
    case 'n_additional_users':
      return { ...rules, snoozed_at, users_at_snooze: counters.users }
    case 'n_occurrences_in_m_hours':
      return { ...rules, snoozed_at }
    case 'occurs_after':
      return { ...rules, snoozed_at, reopen_after: new Date(now.getTime() + rules.seconds * 1000).toISOString() }
  }
}

/** An error merged into another, as that error lists it: its events now count there. */
export const mergedErrorSchema = z.object({
  id: idSchema,
  error_class: z.string(),
  message: z.string(),
  /** Its events, counted on the error it is merged into (later ones included). */
  events: z.number().check(z.int()),
  merged_at: timestampSchema,
})
export type MergedError = z.infer<typeof mergedErrorSchema>

export const errorSchema = z.object({
  id: idSchema,
  project_id: idSchema,
  error_class: z.string(),
  message: z.string(),
  context: z.nullable(z.string()),
  /** The effective severity: severity_override when set, else the newest event's. */
  severity: severitySchema,
  /** Set by the override_severity operation; null when the events decide. */
  severity_override: z.nullable(severitySchema),
  unhandled: z.boolean(),
  status: errorStatusSchema,
  assigned_collaborator_id: z.nullable(idSchema),
  /** Set while snoozed: the rule and its bookkeeping; null in every other status. */
  reopen_rules: z.nullable(storedReopenRulesSchema),
  first_seen: timestampSchema,
  last_seen: timestampSchema,
  events: z.number().check(z.int()),
  users: z.number().check(z.int()),
  /**
   * Lists only, when the filters select events (event.since, event.before or an event field):
   * how many of the error's events match them all. `events` stays the all-time count.
   */
  matching_events: z.optional(z.number().check(z.int())),
  release_stages: z.array(z.string()),
  app_versions: z.array(z.string()),
  /** Which rule formed the group; docs/grouping.md explains each. */
  grouping_reason: groupingReasonSchema,
  /** The release of its first event; null when that event named no app version. */
  first_release: z.nullable(z.object({ release_stage: z.string(), app_version: z.string() })),
  /** Discarded: new events are counted in discarded_events and not stored (the discard operation). */
  discarded: z.boolean(),
  discarded_at: z.nullable(timestampSchema),
  discarded_events: z.number().check(z.int()),
  /** Issues in a tracker linked with link_issue (at most one today). */
  linked_issues: z.array(z.object({ type: z.literal('url'), url: z.string() })),
  /**
   * Set while this error is merged into another (the merge operation): it is then in no list, and
   * its events count on that error. Null otherwise.
   */
  merged_into_id: z.nullable(idSchema),
  /** GET of one error only: the errors merged into it, newest merge first. */
  merged_errors: z.optional(z.array(mergedErrorSchema)),
  url: z.string(),
  html_url: z.string(),
})
/** Named ErrorGroup so it never shadows the built-in Error. */
export type ErrorGroup = z.infer<typeof errorSchema>

export const ERROR_SORTS = ['last_seen', 'first_seen', 'events', 'users'] as const
export const errorSortSchema = z.enum(ERROR_SORTS)
export type ErrorSort = z.infer<typeof errorSortSchema>

export const listErrorsQuerySchema = z.object({
  sort: z._default(errorSortSchema, 'last_seen'),
  direction: z._default(directionSchema, 'desc'),
  per_page: perPageSchema(DEFAULT_ERRORS_PER_PAGE),
  /** Opaque keyset cursor from the previous page's Link rel="next". */
  cursor: z.optional(z.string()),
})
export type ListErrorsQuery = z.infer<typeof listErrorsQuerySchema>

/**
 * GET /projects/{id}/error_status_counts: how many errors match the filters in each status
 * (a filter on error.status is left out, so every tab of the errors list gets its count).
 */
export const errorStatusCountsSchema = z.object({
  counts: z.object({
    open: z.number().check(z.int()),
    fixed: z.number().check(z.int()),
    snoozed: z.number().check(z.int()),
    ignored: z.number().check(z.int()),
  }),
  total: z.number().check(z.int()),
})
export type ErrorStatusCounts = z.infer<typeof errorStatusCountsSchema>

// ---------------------------------------------------------------------------------------------
// Status workflow: PATCH /projects/{id}/errors/{error_id} and the bulk PATCH /projects/{id}/errors?error_ids=…

export const ERROR_OPERATIONS = [
  'fix',
  'open',
  'ignore',
  'snooze',
  'assign',
  'override_severity',
  'discard',
  'undiscard',
  'link_issue',
  'unlink_issue',
  'revert_status',
  'merge',
  'unmerge',
  'delete',
] as const

/** The longest issue URL link_issue stores. */
export const MAX_ISSUE_URL_LENGTH = 2048

/** The fields only one operation takes: sent with another operation they are a mistake, not extra data. */
const OPERATION_FIELDS = {
  reopen_rules: 'snooze',
  assigned_collaborator_id: 'assign',
  severity: 'override_severity',
  issue_url: 'link_issue',
  verify_issue_url: 'link_issue',
} as const satisfies Record<string, (typeof ERROR_OPERATIONS)[number]>

const errorOperationVariants = z.discriminatedUnion(
  'operation',
  [
    z.object({ operation: z.literal('fix') }),
    z.object({ operation: z.literal('open') }),
    z.object({ operation: z.literal('ignore') }),
    z.object({ operation: z.literal('snooze'), reopen_rules: reopenRulesSchema }),
    z.object({
      operation: z.literal('assign'),
      /** null or "" unassigns. */
      assigned_collaborator_id: z.nullable(
        z
          .string({ error: "must be a collaborator's user id, or null to unassign" })
          .check(z.maxLength(64, 'must be at most 64 characters')),
      ),
    }),
    z.object({ operation: z.literal('override_severity'), severity: severitySchema }),
    z.object({ operation: z.literal('discard') }),
    z.object({ operation: z.literal('undiscard') }),
    z.object({
      operation: z.literal('link_issue'),
      issue_url: z.string({ error: 'required for link_issue: the http(s) URL of the issue' }).check(
        z.maxLength(MAX_ISSUE_URL_LENGTH, `must be at most ${MAX_ISSUE_URL_LENGTH} characters`),
        z.refine((value) => /^https?:\/\/[^\s/?#]+[^\s]*$/i.test(value) && URL.canParse(value), 'must be an absolute http or https URL'),
      ),
      /**
       * Bugsnag checks the URL against a configured issue tracker; Errata has no tracker
       * integrations, so the only check is the URL's form (never a request to it).
       */
      verify_issue_url: z.optional(z.boolean({ error: 'must be true or false' })),
    }),
    z.object({ operation: z.literal('unlink_issue') }),
    /**
     * Undo: takes back the error's newest status change when the caller made it with an
     * operation, restoring the status and reopen_rules (a snooze's rule and bookkeeping) it had.
     */
    z.object({ operation: z.literal('revert_status') }),
    /**
     * Bulk only: merges the second and later of error_ids into the first (docs/errors-workflow.md#merging).
     */
    z.object({ operation: z.literal('merge') }),
    /** One error only: takes every error merged into it back out, as they were. */
    z.object({ operation: z.literal('unmerge') }),
    z.object({ operation: z.literal('delete') }),
  ],
  {
    error: (issue) =>
      issue.code === 'invalid_union'
        ? `must be one of ${ERROR_OPERATIONS.join(', ')}`
        : 'request body: expected a JSON object with an "operation"',
  },
)

/**
 * The body of an error PATCH. A field another operation takes is refused (400 naming it):
 * `{"operation": "fix", "severity": "info"}` would otherwise answer 200 with the severity
 * unchanged. Other unknown fields are ignored, as Bugsnag's API does.
 */
export const errorOperationSchema = z.pipe(
  z.transform((body, ctx) => {
    if (body && typeof body === 'object' && !Array.isArray(body) && 'operation' in body) {
      const operation = (body as { operation: unknown }).operation
      if ((ERROR_OPERATIONS as readonly unknown[]).includes(operation)) {
        for (const [field, takenBy] of Object.entries(OPERATION_FIELDS)) {
          if (field in body && operation !== takenBy) {
            ctx.issues.push({
              code: 'custom',
              path: [field],
              message: `is only taken by operation ${takenBy}, not ${String(operation)}`,
              input: body,
            })
          }
        }
      }
    }
    return body
  }),
  errorOperationVariants,
)
export type ErrorOperation = z.infer<typeof errorOperationSchema>

/** Most errors one bulk PATCH may name. */
export const MAX_BULK_ERROR_IDS = 100

/** An error id as `?error_ids=` names it. */
const errorIdInList = z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'is not an error id'))

/** `?error_ids=a,b,c`: the ids in order, spaces and empty items dropped. */
const commaSeparatedIds = (required: string) =>
  z.pipe(
    z.string({ error: required }),
    z.transform((value) =>
      value
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean),
    ),
  )

/** `?error_ids=a,b,c` of the bulk PATCH: comma-separated, order kept, duplicates dropped. */
export const bulkErrorsQuerySchema = z.object({
  error_ids: z.pipe(
    z.pipe(
      commaSeparatedIds('required: comma-separated error ids, e.g. ?error_ids=a,b'),
      z.transform((ids) => [...new Set(ids)]),
    ),
    z
      .array(errorIdInList)
      .check(
        z.minLength(1, 'must name at least one error id'),
        z.maxLength(MAX_BULK_ERROR_IDS, `at most ${MAX_BULK_ERROR_IDS} error ids per request`),
      ),
  ),
})

/**
 * `?error_ids=` of a merge: the error that stays first, then those merged into it; at least two,
 * each once (a duplicate is a mistake here, not dropped as for the other operations).
 */
export const mergeErrorIdsSchema = z.object({
  error_ids: z.pipe(
    commaSeparatedIds('required: comma-separated error ids, the one that stays first, e.g. ?error_ids=a,b'),
    z
      .array(errorIdInList)
      .check(
        z.minLength(2, 'a merge takes at least two error ids: the one that stays first, then those merged into it'),
        z.maxLength(MAX_BULK_ERROR_IDS, `at most ${MAX_BULK_ERROR_IDS} error ids per request`),
        z.refine((ids) => new Set(ids).size === ids.length, 'names an error more than once'),
      ),
  ),
})

/** One error's outcome in a bulk PATCH: the updated error, or why it was not changed. */
export const bulkErrorResultSchema = z.object({
  id: idSchema,
  /** merged: merged into the first error of a merge; `error` shows it with merged_into_id. */
  status: z.enum(['updated', 'merged', 'deleted', 'not_found', 'failed']),
  error: z.nullable(errorSchema),
  errors: z.array(z.string()),
})
export type BulkErrorResult = z.infer<typeof bulkErrorResultSchema>

/** Status changes answered by GET /projects/{id}/errors/{error_id}/status_changes: the newest this many. */
export const MAX_STATUS_CHANGES = 100

/** A recorded status change (GET /projects/{id}/errors/{error_id}/status_changes), newest first. */
export const errorStatusChangeSchema = z.object({
  id: idSchema,
  error_id: idSchema,
  /** Null for merge and unmerge, which change no status. */
  from_status: z.nullable(errorStatusSchema),
  to_status: z.nullable(errorStatusSchema),
  /**
   * operation: someone changed it; event: an event reopened a fixed error; snooze_rule: a snooze
   * rule was met; merge / unmerge: an error was merged into another or taken back out (see `merge`).
   */
  reason: z.enum(['operation', 'event', 'snooze_rule', 'merge', 'unmerge']),
  /** Merge and unmerge only: the error merged into, and the one merged (one of them is this error). */
  merge: z.optional(
    z.object({
      into: z.object({ id: idSchema, error_class: z.string(), message: z.string() }),
      merged: z.object({ id: idSchema, error_class: z.string(), message: z.string() }),
    }),
  ),
  /** Who changed it; null for automatic changes. */
  actor: z.nullable(z.object({ id: idSchema, name: z.string(), email: z.string() })),
  /** The rule the change set (to_status snoozed); null otherwise. */
  reopen_rules: z.nullable(storedReopenRulesSchema),
  created_at: timestampSchema,
})
export type ErrorStatusChange = z.infer<typeof errorStatusChangeSchema>

/**
 * GET /projects/{id}/errors/{id}/remapped: whether a source map uploaded since the error's latest
 * event arrived unmapped now maps its frames, and the error such an event groups as today (null
 * when none has that group yet). Nothing stored is re-mapped (docs/source-maps.md).
 */
export const remappedErrorSchema = z.object({
  map_available: z.boolean(),
  mapped_error: z.optional(
    z.nullable(z.object({ id: idSchema, error_class: z.string(), message: z.string(), events: z.number().check(z.int()) })),
  ),
})
export type RemappedError = z.infer<typeof remappedErrorSchema>
