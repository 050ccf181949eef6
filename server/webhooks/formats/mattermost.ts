// Mattermost incoming webhook (https://developers.mattermost.com/integrate/webhooks/incoming/):
// `text` and one Slack-compatible message attachment with `title`, `title_link` and `fields`.
// Mattermost reads Slack's escapes (&, <, >; so `<!channel>` stays text) and also notifies on
// @channel, @all and @here in text: a zero-width space after each @ keeps them words.
import { cut, type ChatMessage } from './message.ts'
import { escapeMrkdwn, fallbackText } from './slack.ts'

export function escapeMattermost(text: string): string {
  return escapeMrkdwn(text).replace(/@/g, '@\u200b')
}

export function mattermostBody(message: ChatMessage): Record<string, unknown> {
  const lines: string[] = []
  if (message.error) {
    lines.push(`**${escapeMattermost(cut(message.error.errorClass, 200))}**${message.error.message ? `: ${escapeMattermost(cut(message.error.message, 2000))}` : ''}`)
    if (message.error.context) lines.push(`_${escapeMattermost(cut(message.error.context, 200))}_`)
  }
  if (message.comment) lines.push(`> ${escapeMattermost(cut(message.comment, 1000)).replace(/\n/g, '\n> ')}`)
  if (message.summary) lines.push(escapeMattermost(cut(message.summary, 300)))
  return {
    text: fallbackText(message).replace(/@/g, '@\u200b'),
    attachments: [
      {
        fallback: fallbackText(message).replace(/@/g, '@\u200b'),
        color: `#${message.color.toString(16).padStart(6, '0')}`,
        title: escapeMattermost(cut(message.title, 250)),
        title_link: message.link.url,
        text: lines.join('\n'),
        fields: message.facts.map((f) => ({ title: escapeMattermost(f.name), value: escapeMattermost(cut(f.value, 1000)), short: true })),
        footer: 'Errata',
      },
    ],
  }
}
