// Discord channel webhook (https://discord.com/developers/docs/resources/webhook#execute-webhook):
// one embed within Discord's limits (title 256, description 4,096, 25 fields of name 256 and
// value 1,024, 6,000 characters in all), and no mentions at all (`allowed_mentions.parse` empty),
// so an @everyone in an error message notifies nobody.
import { cut, type ChatMessage } from './message.ts'

/** Markdown Discord would render, shown as typed. */
function escapeDiscord(text: string): string {
  return text.replace(/([\\*_~`|>[\]()#-])/g, '\\$1')
}

export function discordBody(message: ChatMessage): Record<string, unknown> {
  const lines: string[] = []
  if (message.error) {
    lines.push(`**${escapeDiscord(cut(message.error.errorClass, 200))}**${message.error.message ? `: ${escapeDiscord(cut(message.error.message, 2000))}` : ''}`)
    if (message.error.context) lines.push(`*${escapeDiscord(cut(message.error.context, 200))}*`)
  }
  if (message.comment) lines.push(escapeDiscord(cut(message.comment, 1000)))
  if (message.summary) lines.push(escapeDiscord(cut(message.summary, 300)))
  const title = cut(message.title, 256)
  const fields = message.facts.slice(0, 25).map((f) => ({ name: cut(f.name, 256), value: cut(f.value, 1024), inline: true }))
  const footer = 'Errata'
  // Whatever the fields and title leave of the 6,000 characters of an embed.
  const room = 6000 - Array.from(title).length - Array.from(footer).length - fields.reduce((n, f) => n + Array.from(f.name).length + Array.from(f.value).length, 0)
  return {
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title,
        description: cut(lines.join('\n'), Math.max(1, Math.min(4096, room))),
        url: message.link.url,
        color: message.color,
        fields,
        footer: { text: footer },
        timestamp: message.time,
      },
    ],
  }
}
