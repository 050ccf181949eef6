/** The kinds of job webhooks queue (handlers in webhook.jobs.ts). */

/** Carries one delivery to its target (retried with the webhook schedule). */
export const WEBHOOK_DELIVER_JOB = 'webhook.deliver'

/**
 * Turns the notifications an index batch fired into their deliveries and delivery jobs
 * (queue-deliveries.ts, `deferDeliveries`): one per batch, queued in the index transaction.
 */
export const WEBHOOK_EXPAND_JOB = 'webhook.expand'
