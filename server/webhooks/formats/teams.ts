// Microsoft Teams workflow webhook ("When a Teams webhook request is received"): a message with
// one Adaptive Card attachment (https://adaptivecards.io/explorer/, version 1.4). Event data goes
// in TextRuns of RichTextBlocks, which render no markdown; FactSet values render a markdown
// subset, so their markdown characters are escaped.
import { cut, type ChatMessage } from './message.ts'

/** CommonMark backslash escapes of the characters Adaptive Card markdown reads. */
export function escapeCardMarkdown(text: string): string {
  return text.replace(/([\\*_~`[\]()#>-])/g, '\\$1')
}

const run = (text: string, style: Record<string, unknown> = {}) => ({ type: 'RichTextBlock', inlines: [{ type: 'TextRun', text, ...style }] })

export function teamsBody(message: ChatMessage): Record<string, unknown> {
  const body: Record<string, unknown>[] = [run(cut(message.title, 250), { size: 'Large', weight: 'Bolder' })]
  if (message.error) {
    body.push(run(cut(message.error.errorClass, 200), { weight: 'Bolder', color: 'Attention' }))
    if (message.error.message) body.push(run(cut(message.error.message, 2000)))
    if (message.error.context) body.push(run(cut(message.error.context, 200), { isSubtle: true }))
  }
  if (message.comment) body.push(run(cut(message.comment, 2000), { italic: true }))
  if (message.summary) body.push({ type: 'TextBlock', text: escapeCardMarkdown(cut(message.summary, 300)), wrap: true })
  body.push({ type: 'FactSet', facts: message.facts.map((f) => ({ title: escapeCardMarkdown(f.name), value: escapeCardMarkdown(cut(f.value, 500)) })) })
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          actions: [{ type: 'Action.OpenUrl', title: message.link.label, url: message.link.url }],
        },
      },
    ],
  }
}
