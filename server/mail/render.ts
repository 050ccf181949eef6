// One email's text and HTML parts from plain content. Everything given is text (names and event
// data come from outside): escaped in the HTML, never markup. The HTML is a single-column table
// (what mail clients lay out alike) that declares `color-scheme: light dark` and carries a dark
// palette in a media query, so it reads in light and dark clients; clients that drop <style> get
// the inline light colours, which read on both.

export interface EmailContent {
  subject: string
  /** The first line, also the preview text many clients show beside the subject. */
  heading: string
  paragraphs: string[]
  /** Lists after the paragraphs (a digest's errors): a title, then items, each linked when it has a URL. */
  lists?: { title: string; items: { text: string; url?: string }[] }[]
  /** The one thing to do: a button in the HTML, the bare URL on its own line in the text. */
  action?: { label: string; url: string }
  /** Small print under a rule (why they got it, what to do if it was not them). */
  footer?: string[]
  /**
   * Alerts and digests: the page that stops them (a link in the footer) and the address a mail
   * client's one-click unsubscribe POSTs to (RFC 8058: List-Unsubscribe and List-Unsubscribe-Post).
   */
  unsubscribe?: { url: string; oneClickUrl: string }
}

export interface RenderedEmail {
  subject: string
  text: string
  html: string
  headers: Record<string, string>
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!)
}

// Headers and subjects are one line: a newline in outside data must not start another.
const oneLine = (value: string) => value.replace(/[\r\n]+/g, ' ').trim()

export function renderEmail(content: EmailContent): RenderedEmail {
  const subject = oneLine(content.subject)
  const footer = [...(content.footer ?? [])]
  const text = [
    content.heading,
    '',
    ...content.paragraphs.flatMap((p) => [p, '']),
    ...(content.lists ?? []).flatMap((list) => [list.title, ...list.items.map((i) => (i.url ? `- ${i.text}\n  ${i.url}` : `- ${i.text}`)), '']),
    ...(content.action ? [`${content.action.label}: ${content.action.url}`, ''] : []),
    ...(footer.length > 0 || content.unsubscribe ? ['--', ...footer] : []),
    ...(content.unsubscribe ? [`Unsubscribe: ${content.unsubscribe.url}`] : []),
  ].join('\n')

  const e = escapeHtml
  const button = content.action
    ? `<tr><td style="padding:8px 0 24px"><a class="button" href="${e(content.action.url)}" style="display:inline-block;padding:10px 18px;border-radius:6px;background:#2563eb;color:#ffffff;font-weight:600;text-decoration:none">${e(content.action.label)}</a></td></tr>
<tr><td class="muted" style="padding:0 0 16px;font-size:13px;color:#52525b">Or open this address: <a href="${e(content.action.url)}" style="color:#2563eb;word-break:break-all">${e(content.action.url)}</a></td></tr>`
    : ''
  const small = [
    ...footer.map((line) => e(line)),
    ...(content.unsubscribe ? [`<a href="${e(content.unsubscribe.url)}" style="color:#52525b">Unsubscribe</a>`] : []),
  ]
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="supported-color-schemes" content="light dark">
<title>${e(subject)}</title>
<style>
  :root { color-scheme: light dark; supported-color-schemes: light dark; }
  @media (prefers-color-scheme: dark) {
    body, .page { background: #18181b !important; }
    .card { background: #27272a !important; border-color: #3f3f46 !important; }
    .card, .card td, h1, h2 { color: #f4f4f5 !important; }
    .card .muted, .card .muted a { color: #a1a1aa !important; }
    .rule { border-color: #3f3f46 !important; }
    a { color: #93c5fd !important; }
    a.button { background: #3b82f6 !important; color: #ffffff !important; }
  }
</style>
</head>
<body style="margin:0;padding:0;background:#f4f4f5">
<table role="presentation" class="page" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f4f5">
<tr><td align="center" style="padding:24px 12px">
<table role="presentation" class="card" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border:1px solid #e4e4e7;border-radius:8px;color:#18181b;font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5">
<tr><td style="padding:24px 24px 0">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0">
<tr><td class="muted" style="padding:0 0 16px;font-size:13px;font-weight:600;color:#52525b">Errata</td></tr>
<tr><td><h1 style="margin:0 0 16px;font-size:20px;line-height:1.3;color:#18181b">${e(content.heading)}</h1></td></tr>
${content.paragraphs.map((p) => `<tr><td style="padding:0 0 16px">${e(p)}</td></tr>`).join('\n')}
${(content.lists ?? []).map((list) => `<tr><td style="padding:0 0 16px"><h2 style="margin:0 0 8px;font-size:16px;line-height:1.3">${e(list.title)}</h2><ul style="margin:0;padding:0 0 0 20px">${list.items.map((i) => `<li style="margin:0 0 4px">${i.url ? `<a href="${e(i.url)}" style="color:#2563eb">${e(i.text)}</a>` : e(i.text)}</li>`).join('')}</ul></td></tr>`).join('\n')}
${button}
</table>
</td></tr>
${small.length > 0 ? `<tr><td class="muted rule" style="padding:16px 24px 24px;border-top:1px solid #e4e4e7;font-size:12px;color:#52525b">${small.join('<br>')}</td></tr>` : ''}
</table>
</td></tr>
</table>
</body>
</html>
`
  const headers: Record<string, string> = {}
  if (content.unsubscribe) {
    headers['List-Unsubscribe'] = `<${oneLine(content.unsubscribe.oneClickUrl)}>`
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click'
  }
  return { subject, text, html, headers }
}
