// What a chat message says, read from the document a delivery would send as 'errata'
// (payload.ts): a title, the trigger's sentence, the error, facts and one link, in words a
// person understands. Each format (slack.ts, discord.ts, teams.ts, mattermost.ts) lays it out
// and neutralizes event data in its own markup.
import type { WebhookTrigger } from '../../../contract/webhooks.ts'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>

export interface ChatMessage {
  /** One line: what happened, where. */
  title: string
  /** The trigger's own sentence ("Error has occurred 1,000 times"). */
  summary: string
  /** The error, when the notification is about one. */
  error?: { errorClass: string; message: string; context: string }
  /** A comment's text, for the comment trigger. */
  comment?: string
  facts: { name: string; value: string }[]
  link: { label: string; url: string }
  /** When it happened (ISO 8601). */
  time: string
  /** Red for errors, orange for warnings, green for releases, grey for tests (0xRRGGBB). */
  color: number
}

/** Counts of the error, read when the message is built (not part of the Errata document). */
export interface ErrorCounts {
  events: number
  users: number
}

const STATE_WORDS: Record<string, string> = {
  fixed: 'marked an error as fixed',
  reopened: 'reopened an error',
  snoozed: 'snoozed an error',
  snoozeCancelled: 'cancelled the snooze of an error',
  ignored: 'ignored an error',
  unignored: 'stopped ignoring an error',
}

function titleOf(trigger: WebhookTrigger, document: Doc, test: boolean): string {
  const project = String(document.project?.name ?? 'a project')
  const who = document.user?.name ? String(document.user.name) : 'Someone'
  if (test) return `Test notification for ${project}`
  switch (trigger) {
    case 'firstException':
      return `New error in ${project}`
    case 'exception':
      return `Error in ${project}`
    case 'powerTen':
      return `Error milestone in ${project}`
    case 'errorEventFrequency':
      return `Frequent error in ${project}`
    case 'reopened':
      return `Error reopened in ${project}`
    case 'comment':
      return `${who} commented on an error in ${project}`
    case 'errorStateManualChange':
      return `${who} ${STATE_WORDS[String(document.trigger?.stateChange)] ?? 'changed the status of an error'} in ${project}`
    case 'projectSpiking':
      return `${project} is spiking`
    case 'release':
      return `New release of ${project}`
    case 'projectSamplingStarted':
      return `${project} is rate limited: events are being sampled`
    case 'projectApproachingRateLimit':
      return `${project} is approaching its rate limit`
  }
}

const COLORS = { error: 0xd92d20, warning: 0xf79009, release: 0x12b76a, test: 0x667085 }

function colorOf(trigger: WebhookTrigger, test: boolean): number {
  if (test) return COLORS.test
  if (trigger === 'release') return COLORS.release
  if (trigger === 'projectSpiking' || trigger === 'projectSamplingStarted' || trigger === 'projectApproachingRateLimit' || trigger === 'comment') return COLORS.warning
  return COLORS.error
}

export function chatMessage(document: Doc, test: boolean, counts: ErrorCounts | null, now: Date): ChatMessage {
  const trigger = String(document.trigger?.type) as WebhookTrigger
  const error = document.error as Doc | undefined
  const release = document.release as Doc | undefined
  const facts: { name: string; value: string }[] = [{ name: 'Project', value: String(document.project?.name ?? '') }]
  const stage = error?.app?.releaseStage ?? release?.releaseStage
  if (stage) facts.push({ name: 'Release stage', value: String(stage) })
  if (release?.version) facts.push({ name: 'Version', value: String(release.version) })
  else if (error?.app?.version) facts.push({ name: 'Version', value: String(error.app.version) })
  if (counts) {
    facts.push({ name: 'Events', value: counts.events.toLocaleString('en-US') })
    facts.push({ name: 'Users', value: counts.users.toLocaleString('en-US') })
  }
  if (typeof document.trigger?.rate === 'number') facts.push({ name: 'Events this hour', value: document.trigger.rate.toLocaleString('en-US') })
  if (error?.severity) facts.push({ name: 'Severity', value: `${error.severity}${error.unhandled ? ' (unhandled)' : ''}` })
  if (error?.status) facts.push({ name: 'Status', value: String(error.status) })
  if (error?.assignedUserEmail) facts.push({ name: 'Assigned to', value: String(error.assignedUserEmail) })
  facts.push({ name: 'Trigger', value: test ? 'Send test' : triggerWords(trigger) })
  const link = error?.url
    ? { label: 'View error', url: String(error.url) }
    : release?.url
      ? { label: 'View release', url: String(release.url) }
      : { label: 'Open project', url: String(document.project?.url ?? '') }
  return {
    title: titleOf(trigger, document, test),
    summary: String(document.trigger?.message ?? ''),
    ...(error && { error: { errorClass: String(error.exceptionClass ?? 'Error'), message: String(error.message ?? ''), context: String(error.context ?? '') } }),
    ...(document.comment?.message && { comment: String(document.comment.message) }),
    facts: facts.filter((f) => f.value !== ''),
    link,
    time: String(error?.receivedAt ?? release?.releaseTime ?? document.comment?.createdAt ?? now.toISOString()),
    color: colorOf(trigger, test),
  }
}

const TRIGGER_WORDS: Record<WebhookTrigger, string> = {
  firstException: 'New error',
  exception: 'Every event',
  powerTen: 'Occurrence milestone',
  errorEventFrequency: 'Frequent error',
  reopened: 'Error reopened',
  comment: 'Comment',
  errorStateManualChange: 'Status changed',
  projectSpiking: 'Project spiking',
  release: 'New release',
  projectSamplingStarted: 'Rate limited',
  projectApproachingRateLimit: 'Approaching rate limit',
}

function triggerWords(trigger: WebhookTrigger): string {
  return TRIGGER_WORDS[trigger] ?? trigger
}

/** At most `max` characters, with an ellipsis when cut. */
export function cut(text: string, max: number): string {
  const chars = Array.from(text)
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`
}
