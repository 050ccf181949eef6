// Slack incoming webhook: `text` (the notification's fallback) and Block Kit `blocks`
// (https://api.slack.com/reference/block-kit/blocks). Event data is escaped for mrkdwn (&, <, >),
// so `<!channel>` or a `<url|label>` in an error message stays text.
import { cut, type ChatMessage } from './message.ts'

/** &, < and > as Slack's mrkdwn requires (https://api.slack.com/reference/surfaces/formatting#escaping). */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** The fallback `text` Slack and Mattermost show in notifications. */
export function fallbackText(message: ChatMessage): string {
  const error = message.error ? `: ${message.error.errorClass}${message.error.message ? ` ${message.error.message}` : ''}` : ''
  return escapeMrkdwn(cut(`${message.title}${error}`, 1000))
}

export function slackBody(message: ChatMessage): Record<string, unknown> {
  const lines: string[] = []
  if (message.error) {
    lines.push(`*${escapeMrkdwn(cut(message.error.errorClass, 200))}*${message.error.message ? `: ${escapeMrkdwn(cut(message.error.message, 1500))}` : ''}`)
    if (message.error.context) lines.push(`_${escapeMrkdwn(cut(message.error.context, 200))}_`)
  }
  if (message.comment) lines.push(`> ${escapeMrkdwn(cut(message.comment, 800)).replace(/\n/g, '\n> ')}`)
  if (message.summary) lines.push(escapeMrkdwn(cut(message.summary, 300)))
  return {
    text: fallbackText(message),
    blocks: [
      // plain_text: nothing in it is parsed; at most 150 characters.
      { type: 'header', text: { type: 'plain_text', text: cut(message.title, 150), emoji: false } },
      { type: 'section', text: { type: 'mrkdwn', text: cut(lines.join('\n'), 3000) } },
      // At most 10 fields of at most 2,000 characters.
      { type: 'section', fields: message.facts.slice(0, 10).map((f) => ({ type: 'mrkdwn', text: `*${escapeMrkdwn(f.name)}*\n${escapeMrkdwn(cut(f.value, 1900))}` })) },
      { type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: message.link.label }, url: message.link.url }] },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `Errata · <!date^${Math.floor(Date.parse(message.time) / 1000)}^{date_short_pretty} at {time}|${escapeMrkdwn(message.time)}>` }] },
    ],
  }
}
