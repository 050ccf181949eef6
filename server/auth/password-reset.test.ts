import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../db/client.ts'
import { passwordResets } from '../db/schema.ts'
import { startTestSmtpServer, type TestSmtpServer } from '../test-support/smtp-server.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'
import { hashToken } from './tokens.ts'

let smtp: TestSmtpServer
let ctx: TestContext

beforeAll(async () => {
  smtp = await startTestSmtpServer()
  ctx = await createTestContext({ mail: { smtpUrl: smtp.url, caFile: smtp.caFile, from: 'errata@example.com', maxAttempts: 2 } })
})
afterAll(async () => {
  await ctx?.close()
  await smtp?.close()
})

const NEW_PASSWORD = 'a brand new password'
const ask = (email: string) => ctx.request('/api/auth/password-reset', { method: 'POST', json: { email } })
const confirm = (json: unknown) => ctx.request('/api/auth/password-reset/confirm', { method: 'POST', json })
const login = (email: string, password: string) => ctx.request('/api/auth/login', { method: 'POST', json: { email, password } })

/** Asks for a reset of `email` and returns the emailed link's token. */
async function emailedToken(email: string): Promise<{ token: string; link: string; html: string }> {
  const count = smtp.received.length
  expect((await ask(email.toUpperCase())).status).toBe(202)
  await ctx.jobs.drain()
  const mail = await smtp.nextMail(count)
  expect(mail.parsed.subject).toBe('Reset your Errata password')
  const link = /Choose a new password: (\S+)/.exec(mail.parsed.text ?? '')![1]!
  const url = new URL(link)
  expect(`${url.origin}${url.pathname}`).toBe('http://errata.test/reset-password')
  return { token: url.searchParams.get('token')!, link, html: mail.parsed.html as string }
}

describe('forgot password', () => {
  it('says email is on', async () => {
    expect(await (await ctx.request('/api/auth/password-reset')).json()).toEqual({ email_enabled: true })
  })

  it('emails a single-use link that sets the password and signs the other browsers out', async () => {
    const user = await ctx.createUser('Reset Me')
    const session = (await (await login(user.email, 'correct horse battery')).json()) as { token: string }
    const { token, link, html } = await emailedToken(user.email)
    expect(html).toContain(`href="${link}"`)
    // Only the hash is stored.
    const [row] = await ctx.deps.database.db.select().from(passwordResets).where(eq(passwordResets.tokenHash, hashToken(token)))
    expect(row).toMatchObject({ userId: user.id, usedAt: null })
    const minutes = (row!.expiresAt.getTime() - row!.createdAt.getTime()) / 60_000
    expect(minutes).toBe(60)

    // The password rule applies, naming the field; the link still works after.
    const short = await confirm({ token, password: 'short' })
    expect(short.status).toBe(400)
    expect(await short.json()).toEqual({ errors: ['password: must be at least 10 characters'] })

    expect((await confirm({ token, password: NEW_PASSWORD })).status).toBe(204)
    expect((await login(user.email, NEW_PASSWORD)).status).toBe(200)
    expect((await login(user.email, 'correct horse battery')).status).toBe(401)
    // The dashboard sign-in made before is over; the personal token is not.
    expect((await ctx.request('/api/user', { token: session.token })).status).toBe(401)
    expect((await ctx.request('/api/user', { token: user.token })).status).toBe(200)

    const again = await confirm({ token, password: 'yet another password' })
    expect(again.status).toBe(410)
    expect(await again.json()).toEqual({ errors: ['token: this link was already used; ask for a new one on the sign-in page'] })
  })

  it('answers 410 for an expired link and 400 for an unknown one', async () => {
    const user = await ctx.createUser('Too Late')
    const { token } = await emailedToken(user.email)
    await ctx.deps.database.db
      .update(passwordResets)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(passwordResets.tokenHash, hashToken(token)))
    const expired = await confirm({ token, password: NEW_PASSWORD })
    expect(expired.status).toBe(410)
    expect(await expired.json()).toEqual({ errors: ['token: this link has expired; ask for a new one on the sign-in page'] })
    const unknown = await confirm({ token: '0'.repeat(40), password: NEW_PASSWORD })
    expect(unknown.status).toBe(400)
    expect(await unknown.json()).toEqual({ errors: ['token: this link is not valid; ask for a new one on the sign-in page'] })
  })

  it('uses up the account’s other links once one sets the password', async () => {
    const user = await ctx.createUser('Two Links')
    const first = await emailedToken(user.email)
    const second = await emailedToken(user.email)
    expect((await confirm({ token: second.token, password: NEW_PASSWORD })).status).toBe(204)
    expect((await confirm({ token: first.token, password: 'yet another password' })).status).toBe(410)
  })

  it('answers the same 202 for an email no account has, and sends nothing', async () => {
    const before = smtp.received.length
    const res = await ask('nobody@example.com')
    expect(res.status).toBe(202)
    expect(await res.text()).toBe('')
    await ctx.jobs.drain()
    const queued = await queryRows(ctx.deps.database.db, sql`SELECT id FROM jobs WHERE kind = 'mail.send' AND state NOT IN ('completed', 'failed')`)
    expect(queued).toEqual([])
    expect(smtp.received.length).toBe(before)
  })

  it('is throttled per email and address, alike for accounts and unknown emails', async () => {
    const user = await ctx.createUser('Flooded')
    for (const email of [user.email, 'ghost@example.com']) {
      const statuses: number[] = []
      for (let i = 0; i < 6; i += 1) statuses.push((await ask(email)).status)
      expect(statuses).toEqual([202, 202, 202, 202, 202, 429])
    }
  })

  it('validates the email and the body', async () => {
    const res = await ask('')
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ errors: ['email: is required'] })
    const missing = await confirm({ password: NEW_PASSWORD })
    expect(missing.status).toBe(400)
  })
})

describe('forgot password with email off', () => {
  it('says so, and asking answers 503 with what to do instead', async () => {
    const off = await createTestContext()
    try {
      expect(await (await off.request('/api/auth/password-reset')).json()).toEqual({ email_enabled: false })
      const res = await off.request('/api/auth/password-reset', { method: 'POST', json: { email: 'a@example.com' } })
      expect(res.status).toBe(503)
      expect(await res.json()).toEqual({
        errors: ['email is off on this server: ask an admin to reset your password (npm run errata -- reset-password EMAIL)'],
      })
    } finally {
      await off.close()
    }
  })
})
