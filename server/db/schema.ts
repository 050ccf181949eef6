// Typed view of the tables created by server/db/migrations. The SQL files are the
// source of truth; keep this file in step with them (a test checks the columns match).
import { sql } from 'drizzle-orm'
import {
  bigint,
  boolean,
  customType,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core'

const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
})
const count = (name: string) => bigint(name, { mode: 'number' })

export const users = pgTable('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull(),
  name: text('name').notNull(),
  passwordHash: text('password_hash'),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  updatedAt: tstz('updated_at').notNull().default(sql`now()`),
})

export const authTokens = pgTable('auth_tokens', {
  id: text('id').primaryKey(),
  userId: text('user_id').notNull(),
  tokenHash: text('token_hash').notNull(),
  description: text('description').notNull().default(''),
  /** 'sign_in' (dashboard sign-in, expires when idle) or 'personal'. */
  kind: text('kind').$type<'personal' | 'sign_in'>().notNull().default('personal'),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  lastUsedAt: tstz('last_used_at'),
  revokedAt: tstz('revoked_at'),
})

/** Organization API tokens (0011-organization-tokens.sql): an organization's credentials for the legacy API. */
export const organizationTokens = pgTable('organization_tokens', {
  id: text('id').primaryKey(),
  organizationId: text('organization_id').notNull(),
  tokenHash: text('token_hash').notNull(),
  name: text('name').notNull(),
  createdBy: text('created_by').notNull(),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  lastUsedAt: tstz('last_used_at'),
  revokedAt: tstz('revoked_at'),
})

/** "Forgot password" links (server/auth/password-reset.ts): the token's hash, single use, expiring. */
export const passwordResets = pgTable('password_resets', {
  id: text('id').primaryKey(),
  userId: text('user_id').notNull(),
  tokenHash: text('token_hash').notNull(),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  expiresAt: tstz('expires_at').notNull(),
  usedAt: tstz('used_at'),
})

/** What each person is emailed about per project (server/notifications/); no row: the defaults. */
export const notificationSettings = pgTable(
  'notification_settings',
  {
    userId: text('user_id').notNull(),
    projectId: text('project_id').notNull(),
    kinds: text('kinds').array().notNull(),
    updatedAt: tstz('updated_at').notNull().default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.userId, t.projectId] })],
)

export const organizations = pgTable('organizations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  slug: text('slug').notNull(),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  updatedAt: tstz('updated_at').notNull().default(sql`now()`),
})

export const collaborators = pgTable(
  'collaborators',
  {
    organizationId: text('organization_id').notNull(),
    userId: text('user_id').notNull(),
    isAdmin: boolean('is_admin').notNull().default(false),
    createdAt: tstz('created_at').notNull().default(sql`now()`),
    /** null: every project of the organization. */
    projectIds: text('project_ids').array(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.userId] })],
)

export const projects = pgTable('projects', {
  id: text('id').primaryKey(),
  organizationId: text('organization_id').notNull(),
  name: text('name').notNull(),
  slug: text('slug').notNull(),
  type: text('type').notNull(),
  apiKey: text('api_key').notNull(),
  releaseStages: text('release_stages').array().notNull().default(sql`'{}'`),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  updatedAt: tstz('updated_at').notNull().default(sql`now()`),
  /** Rate limiting (docs/ingestion.md): the event quotas, NULL when not limited. */
  eventsPerMinute: integer('events_per_minute'),
  eventsPerDay: integer('events_per_day'),
  /** Retention (docs/operations.md): days events are kept; NULL for the server's default. */
  eventRetentionDays: integer('event_retention_days'),
  /** How many times unused code snippets were removed (0006-snippet-last-used.sql). */
  codeSnippetRemovals: count('code_snippet_removals').notNull().default(0),
})

export const errors = pgTable('errors', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull(),
  groupingHash: text('grouping_hash').notNull(),
  groupingReason: text('grouping_reason').notNull(),
  errorClass: text('error_class').notNull(),
  message: text('message').notNull(),
  context: text('context'),
  severity: text('severity').notNull(),
  unhandled: boolean('unhandled').notNull().default(false),
  status: text('status').notNull().default('open'),
  assignedCollaboratorId: text('assigned_collaborator_id'),
  reopenRules: jsonb('reopen_rules'),
  firstSeen: tstz('first_seen').notNull(),
  lastSeen: tstz('last_seen').notNull(),
  eventsCount: count('events_count').notNull().default(0),
  usersCount: count('users_count').notNull().default(0),
  releaseStages: text('release_stages').array().notNull().default(sql`'{}'`),
  appVersions: text('app_versions').array().notNull().default(sql`'{}'`),
  lastEventId: text('last_event_id'),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  updatedAt: tstz('updated_at').notNull().default(sql`now()`),
  severityOverride: text('severity_override'),
  firstReleaseStage: text('first_release_stage'),
  firstAppVersion: text('first_app_version'),
  discardedAt: tstz('discarded_at'),
  discardedEvents: count('discarded_events').notNull().default(0),
  linkedIssueUrl: text('linked_issue_url'),
  /** Set while merged into another error (docs/errors-workflow.md#merging): then left out of every list. */
  mergedIntoId: text('merged_into_id'),
})

export const errorUsers = pgTable(
  'error_users',
  { errorId: text('error_id').notNull(), userKey: text('user_key').notNull() },
  (t) => [primaryKey({ columns: [t.errorId, t.userKey] })],
)

export const events = pgTable('events', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull(),
  errorId: text('error_id').notNull(),
  receivedAt: tstz('received_at').notNull(),
  severity: text('severity').notNull(),
  unhandled: boolean('unhandled').notNull().default(false),
  errorClass: text('error_class').notNull(),
  message: text('message').notNull(),
  context: text('context'),
  releaseStage: text('release_stage'),
  appVersion: text('app_version'),
  osName: text('os_name'),
  osVersion: text('os_version'),
  browserName: text('browser_name'),
  deviceModel: text('device_model'),
  userId: text('user_id'),
  userEmail: text('user_email'),
  userName: text('user_name'),
  requestUrl: text('request_url'),
  /** Order of indexing: the rollups are folded from the events above a watermark (rollups/fold.ts). */
  seq: bigint('seq', { mode: 'number' }).notNull().default(sql`nextval('events_seq')`),
  /** The error of the event's own group while that group is merged into error_id; null otherwise. */
  mergedFromId: text('merged_from_id'),
})

export const rollupWatermarks = pgTable('rollup_watermarks', {
  projectId: text('project_id').primaryKey(),
  seq: bigint('seq', { mode: 'number' }).notNull(),
})

export const eventPayloads = pgTable('event_payloads', {
  eventId: text('event_id').primaryKey(),
  payload: bytea('payload').notNull(),
})

export const ingestLog = pgTable('ingest_log', {
  seq: bigint('seq', { mode: 'number' }).primaryKey(),
  kind: text('kind').notNull().default('notify'),
  projectId: text('project_id').notNull(),
  receivedAt: tstz('received_at').notNull(),
  eventIds: text('event_ids').array().notNull(),
  userAgent: text('user_agent'),
  body: text('body').notNull(),
  failedAt: tstz('failed_at'),
  failure: text('failure'),
})

/** Batches being processed (server/ingest/process/attempts.ts). */
export const ingestAttempts = pgTable('ingest_attempts', {
  requestKey: text('request_key').primaryKey(),
  batchSize: integer('batch_size').notNull(),
  owner: bigint('owner', { mode: 'number' }).notNull(),
  crashes: integer('crashes').notNull().default(0),
  startedAt: tstz('started_at').notNull().defaultNow(),
})

export const ingestJournals = pgTable('ingest_journals', {
  journalId: text('journal_id').primaryKey(),
  segment: bigint('segment', { mode: 'number' }).notNull(),
  byteOffset: bigint('byte_offset', { mode: 'number' }).notNull(),
})

export const sessionCounts = pgTable(
  'session_counts',
  {
    projectId: text('project_id').notNull(),
    minute: tstz('minute').notNull(),
    releaseStage: text('release_stage').notNull().default(''),
    appVersion: text('app_version').notNull().default(''),
    sessions: count('sessions').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.minute, t.releaseStage, t.appVersion] })],
)

export const crashedSessions = pgTable(
  'crashed_sessions',
  {
    projectId: text('project_id').notNull(),
    sessionId: text('session_id').notNull(),
    startedMinute: tstz('started_minute').notNull(),
    releaseStage: text('release_stage').notNull(),
    appVersion: text('app_version').notNull().default(''),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.sessionId] })],
)

export const errorStatusChanges = pgTable('error_status_changes', {
  id: text('id').primaryKey(),
  errorId: text('error_id').notNull(),
  actorId: text('actor_id'),
  fromStatus: text('from_status').notNull(),
  toStatus: text('to_status').notNull(),
  reason: text('reason').notNull(),
  reopenRules: jsonb('reopen_rules'),
  /** The error's reopen_rules before the change (what revert_status puts back); null before migration 0014. */
  fromReopenRules: jsonb('from_reopen_rules'),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  releaseStage: text('release_stage'),
  appVersion: text('app_version'),
})

/** Merges and unmerges, one row per merged error, for both errors' histories. */
export const errorMerges = pgTable('error_merges', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull(),
  kind: text('kind').notNull(),
  errorId: text('error_id').notNull(),
  mergedErrorId: text('merged_error_id').notNull(),
  actorId: text('actor_id'),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
})

export const invitations = pgTable('invitations', {
  id: text('id').primaryKey(),
  organizationId: text('organization_id').notNull(),
  email: text('email').notNull(),
  isAdmin: boolean('is_admin').notNull().default(false),
  projectIds: text('project_ids').array(),
  tokenHash: text('token_hash').notNull(),
  invitedBy: text('invited_by'),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  expiresAt: tstz('expires_at').notNull(),
})

export const errorHourlyCounts = pgTable(
  'error_hourly_counts',
  {
    projectId: text('project_id').notNull(),
    errorId: text('error_id').notNull(),
    hour: tstz('hour').notNull(),
    events: count('events').notNull(),
  },
  (t) => [primaryKey({ columns: [t.errorId, t.hour] })],
)

export const projectHourlyCounts = pgTable(
  'project_hourly_counts',
  {
    projectId: text('project_id').notNull(),
    status: text('status').notNull(),
    hour: tstz('hour').notNull(),
    events: count('events').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.status, t.hour] })],
)

export const pivotCounts = pgTable(
  'pivot_counts',
  {
    projectId: text('project_id').notNull(),
    /** '' for the project-wide row. */
    errorId: text('error_id').notNull(),
    field: text('field').notNull(),
    value: text('value').notNull(),
    events: count('events').notNull(),
    firstSeen: tstz('first_seen').notNull(),
    lastSeen: tstz('last_seen').notNull(),
    details: jsonb('details'),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.errorId, t.field, t.value] })],
)

export const sourceMaps = pgTable('source_maps', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull(),
  kind: text('kind').$type<'js' | 'react_native'>().notNull(),
  minifiedUrl: text('minified_url').notNull().default(''),
  appVersion: text('app_version').notNull().default(''),
  codeBundleId: text('code_bundle_id').notNull().default(''),
  platform: text('platform').notNull().default(''),
  appVersionCode: text('app_version_code').notNull().default(''),
  dev: boolean('dev').notNull().default(false),
  projectRoot: text('project_root'),
  mapFile: text('map_file'),
  sourcesCount: integer('sources_count').notNull().default(0),
  hasMinified: boolean('has_minified').notNull().default(false),
  sizeBytes: count('size_bytes').notNull(),
  storedBytes: count('stored_bytes').notNull(),
  /** null: uploaded with the project's API key. */
  uploadedBy: text('uploaded_by'),
  uploadedAt: tstz('uploaded_at').notNull(),
  eventsMapped: count('events_mapped').notNull().default(0),
})

/** Code context of mapped frames, once per project and line window (0001-baseline.sql, 0006-snippet-last-used.sql). */
export const sourceCodeSnippets = pgTable(
  'source_code_snippets',
  {
    projectId: text('project_id').notNull(),
    hash: text('hash').notNull(),
    lines: jsonb('lines').$type<Record<string, string>>().notNull(),
    createdAt: tstz('created_at').notNull().defaultNow(),
    /** The received time of the newest event using it, within a day (removal of unused snippets). */
    lastUsedAt: tstz('last_used_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.hash] })],
)

export const sourceMapFiles = pgTable(
  'source_map_files',
  {
    sourceMapId: text('source_map_id').notNull(),
    role: text('role').$type<'map' | 'minified' | 'source' | 'source_content'>().notNull(),
    name: text('name').notNull().default(''),
    sizeBytes: count('size_bytes').notNull(),
    /** gzip */
    content: bytea('content').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sourceMapId, t.role, t.name] })],
)

export const jobs = pgTable('jobs', {
  id: text('id').primaryKey(),
  kind: text('kind').notNull(),
  key: text('key'),
  payload: jsonb('payload').notNull().default(sql`'{}'::jsonb`),
  state: text('state').$type<'queued' | 'running' | 'completed' | 'failed'>().notNull().default('queued'),
  runAt: tstz('run_at').notNull(),
  attempts: integer('attempts').notNull().default(0),
  maxAttempts: integer('max_attempts').notNull(),
  lastError: text('last_error'),
  lockToken: text('lock_token'),
  lockedUntil: tstz('locked_until'),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  updatedAt: tstz('updated_at').notNull().default(sql`now()`),
  finishedAt: tstz('finished_at'),
})

export const eventDataRequests = pgTable('event_data_requests', {
  id: text('id').primaryKey(),
  organizationId: text('organization_id').notNull(),
  projectId: text('project_id'),
  status: text('status').$type<'PREPARING' | 'COMPLETED' | 'FAILED'>().notNull(),
  reportType: text('report_type').notNull(),
  filters: jsonb('filters').notNull(),
  allEvents: boolean('all_events').notNull().default(false),
  total: count('total'),
  createdBy: text('created_by'),
  createdByEmail: text('created_by_email').notNull(),
  createdByName: text('created_by_name').notNull(),
  createdAt: tstz('created_at').notNull(),
  completedAt: tstz('completed_at'),
  expiresAt: tstz('expires_at'),
  exportStartedAt: tstz('export_started_at'),
  fileKey: text('file_key'),
  fileBytes: count('file_bytes'),
  fileRemovedAt: tstz('file_removed_at'),
  fileRemovedReason: text('file_removed_reason').$type<'expired' | 'deleted'>(),
  failure: text('failure'),
  jobId: text('job_id'),
})

export const eventDataFiles = pgTable(
  'event_data_files',
  {
    requestId: text('request_id').notNull(),
    fileKey: text('file_key').notNull(),
    seq: integer('seq').notNull(),
    data: bytea('data').notNull(),
  },
  (t) => [primaryKey({ columns: [t.fileKey, t.seq] })],
)

export const eventDataDeletions = pgTable('event_data_deletions', {
  id: text('id').primaryKey(),
  organizationId: text('organization_id').notNull(),
  projectId: text('project_id'),
  status: text('status').$type<'PREPARING' | 'AWAITING_CONFIRMATION' | 'ACCEPTED' | 'COMPLETED' | 'FAILED'>().notNull(),
  filters: jsonb('filters').notNull(),
  allEvents: boolean('all_events').notNull().default(false),
  skipConfirmation: boolean('skip_confirmation').notNull().default(false),
  total: count('total'),
  deletedEvents: count('deleted_events').notNull().default(0),
  createdBy: text('created_by'),
  createdByEmail: text('created_by_email').notNull(),
  createdByName: text('created_by_name').notNull(),
  createdAt: tstz('created_at').notNull(),
  completedAt: tstz('completed_at'),
  confirmedBy: text('confirmed_by'),
  confirmedByEmail: text('confirmed_by_email'),
  confirmedByName: text('confirmed_by_name'),
  confirmedAt: tstz('confirmed_at'),
  deletingBefore: tstz('deleting_before'),
  /** Where the deletion's passes stand (DeletionProgress in server/privacy/selection.ts). */
  progress: jsonb('progress'),
  failure: text('failure'),
  jobId: text('job_id'),
})

export const eventDataDeletionWork = pgTable(
  'event_data_deletion_work',
  {
    deletionId: text('deletion_id').notNull(),
    projectId: text('project_id').notNull(),
    kind: text('kind').$type<'error' | 'user' | 'pivot' | 'session'>().notNull(),
    errorId: text('error_id').notNull().default(''),
    field: text('field').notNull().default(''),
    value: text('value').notNull().default(''),
  },
  (t) => [primaryKey({ columns: [t.deletionId, t.projectId, t.kind, t.errorId, t.field, t.value] })],
)

export const webhooks = pgTable('webhooks', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull(),
  url: text('url').notNull(),
  format: text('format').notNull().default('errata'),
  triggers: text('triggers').array().notNull(),
  settings: jsonb('settings').notNull().default(sql`'{}'::jsonb`),
  filters: jsonb('filters').notNull().default(sql`'{}'::jsonb`),
  enabled: boolean('enabled').notNull().default(true),
  secret: text('secret').notNull(),
  failingSince: tstz('failing_since'),
  disabledReason: text('disabled_reason'),
  createdBy: text('created_by'),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  updatedAt: tstz('updated_at').notNull().default(sql`now()`),
})

export const webhookDeliveries = pgTable('webhook_deliveries', {
  id: text('id').primaryKey(),
  webhookId: text('webhook_id').notNull(),
  projectId: text('project_id').notNull(),
  trigger: text('trigger').notNull(),
  errorId: text('error_id'),
  eventId: text('event_id'),
  details: jsonb('details').notNull().default(sql`'{}'::jsonb`),
  body: text('body'),
  state: text('state').$type<'pending' | 'delivered' | 'failed'>().notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  lastStatus: integer('last_status'),
  lastError: text('last_error'),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  finishedAt: tstz('finished_at'),
})

export const webhookAttempts = pgTable('webhook_attempts', {
  id: text('id').primaryKey(),
  deliveryId: text('delivery_id').notNull(),
  attemptedAt: tstz('attempted_at').notNull(),
  status: integer('status'),
  durationMs: integer('duration_ms').notNull(),
  error: text('error'),
  responseExcerpt: text('response_excerpt'),
})

export const webhookTriggerState = pgTable(
  'webhook_trigger_state',
  {
    webhookId: text('webhook_id').notNull(),
    trigger: text('trigger').notNull(),
    subjectId: text('subject_id').notNull(),
    windowStart: tstz('window_start').notNull(),
    events: count('events').notNull().default(0),
    notifiedAt: tstz('notified_at'),
  },
  (t) => [primaryKey({ columns: [t.webhookId, t.trigger, t.subjectId] })],
)

export const comments = pgTable('comments', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull(),
  errorId: text('error_id').notNull(),
  authorId: text('author_id'),
  message: text('message').notNull(),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  updatedAt: tstz('updated_at').notNull().default(sql`now()`),
})

export const releases = pgTable('releases', {
  id: text('id').primaryKey(),
  projectId: text('project_id').notNull(),
  releaseStage: text('release_stage').notNull(),
  appVersion: text('app_version').notNull(),
  releaseTime: tstz('release_time').notNull(),
  releaseSource: text('release_source').notNull(),
  builderName: text('builder_name'),
  buildTool: text('build_tool'),
  appVersionCode: text('app_version_code'),
  appBundleVersion: text('app_bundle_version'),
  sourceControl: jsonb('source_control'),
  metadata: jsonb('metadata'),
  buildReportedAt: tstz('build_reported_at'),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
})

/** Each window's counted and dropped events of a project, quota or not (server/rate-limits/). */
export const projectEventWindows = pgTable(
  'project_event_windows',
  {
    projectId: text('project_id').notNull(),
    span: text('span').notNull(),
    startsAt: tstz('starts_at').notNull(),
    events: count('events').notNull().default(0),
    dropped: count('dropped').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.span, t.startsAt] })],
)

export const projectRateLimitState = pgTable('project_rate_limit_state', {
  projectId: text('project_id').primaryKey(),
  lastDroppedAt: tstz('last_dropped_at'),
  samplingStartedAt: tstz('sampling_started_at'),
  approachingNotifiedAt: tstz('approaching_notified_at'),
})

export const schema = {
  users,
  authTokens,
  organizationTokens,
  passwordResets,
  notificationSettings,
  organizations,
  collaborators,
  projects,
  errors,
  errorUsers,
  events,
  eventPayloads,
  ingestLog,
  ingestAttempts,
  rollupWatermarks,
  ingestJournals,
  sessionCounts,
  crashedSessions,
  errorStatusChanges,
  errorMerges,
  invitations,
  errorHourlyCounts,
  projectHourlyCounts,
  pivotCounts,
  webhooks,
  webhookDeliveries,
  webhookAttempts,
  webhookTriggerState,
  comments,
  sourceMaps,
  sourceMapFiles,
  sourceCodeSnippets,
  jobs,
  eventDataRequests,
  eventDataFiles,
  eventDataDeletions,
  eventDataDeletionWork,
  releases,
  projectEventWindows,
  projectRateLimitState,
}
