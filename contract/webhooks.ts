// Outgoing webhooks (spec section 6): their configuration, deliveries and attempts, and the
// comments on errors that the comment trigger reports. docs/webhooks.md explains the rules the
// spec leaves open (signing, retries, the spike rule, when a failing target is disabled).
import { z } from 'zod/mini'
import { idSchema, timestampSchema } from './common.ts'
import { filtersSchema } from './filters.ts'

/** Every value of trigger.type (spec section 6, "Triggers"). */
export const WEBHOOK_TRIGGERS = [
  'firstException',
  'exception',
  'powerTen',
  'errorEventFrequency',
  'reopened',
  'comment',
  'errorStateManualChange',
  'projectSpiking',
  'release',
  'projectSamplingStarted',
  'projectApproachingRateLimit',
] as const
export type WebhookTrigger = (typeof WEBHOOK_TRIGGERS)[number]

/** The triggers whose notifications the webhook's filters narrow (the others ignore them). */
export const FILTERED_TRIGGERS: readonly WebhookTrigger[] = [
  'firstException',
  'exception',
  'errorEventFrequency',
  'reopened',
  'comment',
  'errorStateManualChange',
  'projectSpiking',
]

/** What a person reads for each trigger on the settings page. */
export const TRIGGER_LABELS: Record<WebhookTrigger, string> = {
  firstException: 'New error (first event per release stage)',
  exception: 'Every event',
  powerTen: 'Error occurred 10, 100, 1,000 times, then every 1,000',
  errorEventFrequency: 'Error frequent (x events or users within y hours)',
  reopened: 'Fixed or snoozed error reopened',
  comment: 'Comment on an error',
  errorStateManualChange: 'Error status changed by a collaborator',
  projectSpiking: 'Project spiking',
  release: 'New release',
  projectSamplingStarted: 'Project rate limited (sampling started)',
  projectApproachingRateLimit: 'Project approaching its rate limit',
}

/** What a delivery looks like: Errata's signed document, or a chat service's incoming-webhook message. */
export const WEBHOOK_FORMATS = ['errata', 'slack', 'discord', 'teams', 'mattermost'] as const
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number]

/** What a person reads for each format, and which address to paste. */
export const FORMAT_LABELS: Record<WebhookFormat, { label: string; hint: string }> = {
  errata: { label: 'Errata JSON (signed)', hint: 'Your own endpoint; it receives the signed JSON document.' },
  slack: { label: 'Slack', hint: 'A Slack incoming webhook URL (https://hooks.slack.com/services/…).' },
  discord: { label: 'Discord', hint: "A Discord channel's webhook URL (https://discord.com/api/webhooks/…)." },
  teams: { label: 'Microsoft Teams', hint: 'The URL of a Teams workflow "When a Teams webhook request is received".' },
  mattermost: { label: 'Mattermost', hint: 'A Mattermost incoming webhook URL (https://your-mattermost/hooks/…).' },
}

export const STATE_CHANGES = ['fixed', 'reopened', 'snoozed', 'snoozeCancelled', 'ignored', 'unignored'] as const
export type StateChange = (typeof STATE_CHANGES)[number]

export const SPIKE_SENSITIVITIES = ['low', 'medium', 'high'] as const

export const webhookSettingsSchema = z.strictObject({
  errorEventFrequency: z.optional(
    z.strictObject({
      /** x: events, or distinct users, within the window. */
      threshold: z.number().check(z.int(), z.gte(1), z.lte(1_000_000)),
      unit: z._default(z.enum(['events', 'users']), 'events'),
      /** y: the window, in hours; at most one notification per window. */
      hours: z.number().check(z.int(), z.gte(1), z.lte(24 * 7)),
    }),
  ),
  projectSpiking: z.optional(z.strictObject({ sensitivity: z._default(z.enum(SPIKE_SENSITIVITIES), 'medium') })),
})
export type WebhookSettings = z.infer<typeof webhookSettingsSchema>

const urlSchema = z.string().check(z.trim(), z.minLength(1, 'is required'), z.maxLength(2048, 'must be at most 2048 characters'))
const triggersSchema = z
  .array(z.enum(WEBHOOK_TRIGGERS))
  .check(z.minLength(1, 'choose at least one trigger'), z.maxLength(WEBHOOK_TRIGGERS.length))

const formatSchema = z.enum(WEBHOOK_FORMATS, `must be one of ${WEBHOOK_FORMATS.join(', ')}`)

export const createWebhookSchema = z.strictObject({
  url: urlSchema,
  format: z._default(formatSchema, 'errata'),
  triggers: triggersSchema,
  settings: z._default(webhookSettingsSchema, {}),
  filters: z._default(filtersSchema, {}),
  enabled: z._default(z.boolean(), true),
})
export type CreateWebhook = z.infer<typeof createWebhookSchema>

export const updateWebhookSchema = z.strictObject({
  url: z.optional(urlSchema),
  format: z.optional(formatSchema),
  triggers: z.optional(triggersSchema),
  settings: z.optional(webhookSettingsSchema),
  filters: z.optional(filtersSchema),
  enabled: z.optional(z.boolean()),
})
export type UpdateWebhook = z.infer<typeof updateWebhookSchema>

export const webhookSchema = z.object({
  id: idSchema,
  project_id: idSchema,
  url: z.string(),
  format: z.enum(WEBHOOK_FORMATS),
  triggers: z.array(z.enum(WEBHOOK_TRIGGERS)),
  settings: webhookSettingsSchema,
  filters: filtersSchema,
  enabled: z.boolean(),
  /** Why it was disabled by Errata rather than a person ("failing"), else null. */
  disabled_reason: z.nullable(z.string()),
  /** Since when every delivery has failed; null when the last one succeeded. */
  failing_since: z.nullable(timestampSchema),
  created_at: timestampSchema,
  updated_at: timestampSchema,
  /** Only in the answer that creates the webhook. */
  secret: z.optional(z.string()),
})
export type Webhook = z.infer<typeof webhookSchema>

export const webhookAttemptSchema = z.object({
  attempted_at: timestampSchema,
  /** HTTP status of the answer; null when none came (timeout, network error, refused address). */
  status: z.nullable(z.number().check(z.int())),
  duration_ms: z.number().check(z.int()),
  error: z.nullable(z.string()),
  response_excerpt: z.nullable(z.string()),
})

export const webhookDeliverySchema = z.object({
  /** Sent as X-Errata-Delivery, the same on every retry and redelivery. */
  id: idSchema,
  webhook_id: idSchema,
  trigger: z.enum(WEBHOOK_TRIGGERS),
  /** Sent with "Send test" (POST /webhooks/{id}/test), not by a trigger firing. */
  test: z.boolean(),
  state: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().check(z.int()),
  last_status: z.nullable(z.number().check(z.int())),
  last_error: z.nullable(z.string()),
  created_at: timestampSchema,
  finished_at: z.nullable(timestampSchema),
  error_id: z.nullable(idSchema),
  /** The JSON document sent (null until the first attempt builds it). */
  payload: z.nullable(z.unknown()),
  attempt_log: z.array(webhookAttemptSchema),
})
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>

/** Largest comment, in characters. */
export const MAX_COMMENT_LENGTH = 10_000

export const commentInputSchema = z.strictObject({
  message: z
    .string()
    .check(z.trim(), z.minLength(1, 'is required'), z.maxLength(MAX_COMMENT_LENGTH, `must be at most ${MAX_COMMENT_LENGTH} characters`)),
})

export const commentSchema = z.object({
  id: idSchema,
  error_id: idSchema,
  project_id: idSchema,
  message: z.string(),
  /** null once the author's account was deleted. */
  author: z.nullable(z.object({ id: idSchema, name: z.string(), email: z.string() })),
  created_at: timestampSchema,
  updated_at: timestampSchema,
})
export type Comment = z.infer<typeof commentSchema>
