import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../config.ts'
import { queryRows } from '../db/client.ts'
import { startTestSmtpServer, SMTP_USER, type TestSmtpServer } from '../test-support/smtp-server.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'
import { mailDeps } from './mail-deps.ts'
import { enqueueMail } from './mail.jobs.ts'
import { renderEmail } from './render.ts'

let smtp: TestSmtpServer
let ctx: TestContext

beforeAll(async () => {
  smtp = await startTestSmtpServer()
  ctx = await createTestContext({
    mail: { smtpUrl: smtp.url, caFile: smtp.caFile, from: 'Errata <errata@example.com>', maxAttempts: 3 },
  })
})
afterAll(async () => {
  await ctx?.close()
  await smtp?.close()
})

const HOSTILE = `<img src=x onerror="alert(1)"> & 'Bobby'\r\nBcc: victim@example.com`

async function send(to: string, content: Parameters<typeof renderEmail>[0]) {
  const id = await enqueueMail(ctx.deps.database.db, mailDeps(ctx.deps), to, 'test', renderEmail(content))
  await ctx.jobs.drain()
  const [job] = await queryRows<{ state: string; attempts: number; last_error: string | null }>(
    ctx.deps.database.db,
    sql`SELECT state, attempts, last_error FROM jobs WHERE id = ${id}`,
  )
  return job!
}

describe('mail.send', () => {
  it('delivers a text and an HTML part through STARTTLS with the login, From and headers', async () => {
    const before = smtp.received.length
    const job = await send('dana@example.com', {
      subject: 'Weekly digest',
      heading: 'Your week',
      paragraphs: ['Three new errors.'],
      action: { label: 'Open Errata', url: 'http://errata.test/projects' },
      footer: ['You get this because you asked for it.'],
      unsubscribe: { url: 'http://errata.test/unsubscribe?token=abc', oneClickUrl: 'http://errata.test/api/notifications/unsubscribe?token=abc' },
    })
    expect(job).toMatchObject({ state: 'completed', attempts: 1 })
    const mail = smtp.received[before]!
    expect(mail.secure).toBe(true)
    expect(mail.user).toBe(SMTP_USER)
    expect(mail.parsed.from?.text).toBe('"Errata" <errata@example.com>')
    expect(mail.parsed.to && 'text' in mail.parsed.to ? mail.parsed.to.text : '').toBe('dana@example.com')
    expect(mail.parsed.subject).toBe('Weekly digest')
    expect(mail.parsed.text).toContain('Three new errors.')
    expect(mail.parsed.text).toContain('Open Errata: http://errata.test/projects')
    expect(mail.parsed.text).toContain('Unsubscribe: http://errata.test/unsubscribe?token=abc')
    expect(mail.parsed.html).toContain('<meta name="color-scheme" content="light dark">')
    expect(mail.parsed.html).toContain('href="http://errata.test/projects"')
    expect(mail.parsed.html).toContain('href="http://errata.test/unsubscribe?token=abc"')
    // Unfolded (RFC 5322: a long header line continues on lines that start with a space).
    const header = (key: string) => mail.parsed.headerLines.find((h) => h.key === key)?.line.replace(/\r?\n(?=[ \t])/g, '')
    expect(header('list-unsubscribe')).toBe('List-Unsubscribe: <http://errata.test/api/notifications/unsubscribe?token=abc>')
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click')
  })

  it('escapes outside text in the HTML and keeps it to one line in the subject', async () => {
    const before = smtp.received.length
    const job = await send('erin@example.com', {
      subject: `Invitation from ${HOSTILE}`,
      heading: `${HOSTILE} invited you`,
      paragraphs: [`Join ${HOSTILE}.`],
      action: { label: 'Accept', url: 'http://errata.test/invitations/abc?x="><script>' },
    })
    expect(job.state).toBe('completed')
    const mail = smtp.received[before]!
    // No header was injected through the subject.
    expect(mail.parsed.bcc).toBeUndefined()
    expect(mail.parsed.subject).toBe(`Invitation from <img src=x onerror="alert(1)"> & 'Bobby' Bcc: victim@example.com`)
    const html = mail.parsed.html as string
    expect(html).not.toContain('<img')
    expect(html).not.toContain('"><script>')
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &#39;Bobby&#39;')
    expect(html).toContain('href="http://errata.test/invitations/abc?x=&quot;&gt;&lt;script&gt;"')
    // The text part is text: as given.
    expect(mail.parsed.text).toContain(`Join ${HOSTILE.replace('\r\n', '\n')}.`)
  })

  it('retries a refusing server, then records the message as failed', async () => {
    smtp.refusing = true
    try {
      const refusedBefore = smtp.refusals
      const receivedBefore = smtp.received.length
      const job = await send('frank@example.com', { subject: 'Refused', heading: 'Refused', paragraphs: [] })
      expect(job.state).toBe('failed')
      expect(job.attempts).toBe(3)
      expect(job.last_error).toMatch(/550|mailbox unavailable/)
      expect(smtp.refusals - refusedBefore).toBe(3)
      expect(smtp.received.length).toBe(receivedBefore)
    } finally {
      smtp.refusing = false
    }
  })

  it('delivers through an smtps:// server, TLS from the first byte', async () => {
    const implicit = await startTestSmtpServer({ implicitTls: true })
    const tls = await createTestContext({
      mail: { smtpUrl: implicit.url, caFile: implicit.caFile, from: 'errata@example.com', maxAttempts: 1 },
    })
    try {
      const id = await enqueueMail(tls.deps.database.db, mailDeps(tls.deps), 'hana@example.com', 'test', renderEmail({ subject: 'Over TLS', heading: 'x', paragraphs: [] }))
      await tls.jobs.drain()
      const [job] = await queryRows<{ state: string }>(tls.deps.database.db, sql`SELECT state FROM jobs WHERE id = ${id}`)
      expect(job?.state).toBe('completed')
      expect(implicit.url).toMatch(/^smtps:\/\//)
      expect(implicit.received).toHaveLength(1)
      expect(implicit.received[0]).toMatchObject({ secure: true, user: SMTP_USER })
      expect(implicit.received[0]!.parsed.subject).toBe('Over TLS')
    } finally {
      await tls.close()
      await implicit.close()
    }
  })

  it('is not sent when the server offers no trusted certificate and the URL requires TLS', async () => {
    const untrusted = await createTestContext({
      mail: { smtpUrl: smtp.url, caFile: undefined, from: 'errata@example.com', maxAttempts: 1 },
    })
    try {
      const id = await enqueueMail(untrusted.deps.database.db, mailDeps(untrusted.deps), 'gil@example.com', 'test', renderEmail({ subject: 'x', heading: 'x', paragraphs: [] }))
      await untrusted.jobs.drain()
      const [job] = await queryRows<{ state: string; last_error: string }>(untrusted.deps.database.db, sql`SELECT state, last_error FROM jobs WHERE id = ${id}`)
      expect(job).toMatchObject({ state: 'failed', last_error: expect.stringMatching(/certificate/i) })
    } finally {
      await untrusted.close()
    }
  })
})

describe('email settings', () => {
  it('is off without ERRATA_SMTP_URL, and queues nothing', async () => {
    expect(loadConfig({}).mail).toBeNull()
    const off = mailDeps({ ...ctx.deps, mail: undefined, config: { ...ctx.deps.config, mail: null } })
    expect(off.transport).toBeNull()
    expect(await enqueueMail(ctx.deps.database.db, off, 'x@example.com', 'test', renderEmail({ subject: 'x', heading: 'x', paragraphs: [] }))).toBeNull()
  })

  it('needs a From address and an smtp:// or smtps:// URL', () => {
    expect(() => loadConfig({ ERRATA_SMTP_URL: 'smtp://mail.example.com' })).toThrow(ConfigError)
    expect(() => loadConfig({ ERRATA_SMTP_URL: 'http://mail.example.com', ERRATA_MAIL_FROM: 'a@example.com' })).toThrow(/smtps:\/\//)
    expect(loadConfig({ ERRATA_SMTP_URL: 'smtps://u:p@mail.example.com', ERRATA_MAIL_FROM: 'a@example.com' }).mail).toEqual({
      smtpUrl: 'smtps://u:p@mail.example.com',
      caFile: undefined,
      from: 'a@example.com',
      maxAttempts: 8,
    })
  })
})
