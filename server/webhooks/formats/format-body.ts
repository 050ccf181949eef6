// A delivery's body in the webhook's format: 'errata' sends the document itself; the chat
// formats turn it into their service's message (message.ts says what it says).
import type { WebhookFormat } from '../../../contract/webhooks.ts'
import { discordBody } from './discord.ts'
import { mattermostBody } from './mattermost.ts'
import { chatMessage, type ErrorCounts } from './message.ts'
import { slackBody } from './slack.ts'
import { teamsBody } from './teams.ts'


const CHAT = { slack: slackBody, discord: discordBody, teams: teamsBody, mattermost: mattermostBody } as const

export function formatBody(
  format: WebhookFormat,
  document: Record<string, unknown>,
  context: { test: boolean; counts: ErrorCounts | null; now: Date },
): Record<string, unknown> {
  if (format === 'errata') return document
  return CHAT[format](chatMessage(document, context.test, context.counts, context.now))
}
