import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { InvitedCollaborator } from '../../contract/collaborators.ts'
import { organizations, users } from '../db/schema.ts'
import { eq } from 'drizzle-orm'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { startTestSmtpServer, type TestSmtpServer } from '../test-support/smtp-server.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'

let smtp: TestSmtpServer
let ctx: TestContext
let acme: SeededProject

beforeAll(async () => {
  smtp = await startTestSmtpServer()
  ctx = await createTestContext({ mail: { smtpUrl: smtp.url, caFile: smtp.caFile, from: 'errata@example.com', maxAttempts: 2 } })
  acme = await seedProject(ctx, { user: 'Dana Admin', organization: 'Acme', project: 'Web' })
})
afterAll(async () => {
  await ctx?.close()
  await smtp?.close()
})

describe('invitation emails', () => {
  it('emails the accept link the answer carries, which works', async () => {
    const count = smtp.received.length
    const res = await ctx.request(`/api/organizations/${acme.organization.id}/collaborators`, {
      method: 'POST',
      token: acme.user.token,
      json: { email: 'invitee@example.com', is_admin: true },
    })
    expect(res.status).toBe(201)
    const invited = (await res.json()) as InvitedCollaborator
    expect(invited.invitation_emailed).toBe(true)
    await ctx.jobs.drain()
    const mail = await smtp.nextMail(count)
    expect(mail.parsed.subject).toBe('Dana Admin invited you to Acme on Errata')
    expect(mail.parsed.text).toContain(`Accept the invitation: ${invited.invitation_url}`)
    expect(mail.parsed.text).toContain('to Acme as an admin')
    expect(mail.parsed.html).toContain(`href="${invited.invitation_url}"`)
    const token = invited.invitation_url.split('/').pop()!
    expect((await ctx.request(`/api/invitations/${token}`)).status).toBe(200)
  })

  it('escapes an organization and inviter name that hold markup', async () => {
    const hostile = '<b onmouseover="x()">Evil & Co</b>'
    await ctx.deps.database.db.update(organizations).set({ name: hostile }).where(eq(organizations.id, acme.organization.id))
    await ctx.deps.database.db.update(users).set({ name: '<script>alert(1)</script>' }).where(eq(users.id, acme.user.id))
    const count = smtp.received.length
    const res = await ctx.request(`/api/organizations/${acme.organization.id}/collaborators`, {
      method: 'POST',
      token: acme.user.token,
      json: { email: 'second@example.com' },
    })
    expect(res.status).toBe(201)
    await ctx.jobs.drain()
    const html = (await smtp.nextMail(count)).parsed.html as string
    expect(html).not.toContain('<script>')
    expect(html).not.toContain('<b ')
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; invited second@example.com to &lt;b onmouseover=&quot;x()&quot;&gt;Evil &amp; Co&lt;/b&gt;')
  })
})
