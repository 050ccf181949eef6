// Email alerts end to end: settings through the API, events through the ingest path, jobs drained,
// emails read from a real SMTP server (smtp-server) as a person's mail client would get them.
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../db/client.ts'
import type { NotificationSettings, ProjectNotifications, Unsubscribe } from '../../contract/notifications.ts'
import type { ReceivedMail, TestSmtpServer } from '../test-support/smtp-server.ts'
import { startTestSmtpServer } from '../test-support/smtp-server.ts'
import { ingestAt, notifierEvent } from '../test-support/ingest.ts'
import { seedMember, seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'
import { enqueueAlertTick } from './alerts.jobs.ts'

const HOSTILE = '<script>alert("x")</script>Boom'

let smtp: TestSmtpServer
beforeAll(async () => {
  smtp = await startTestSmtpServer()
})
afterAll(async () => {
  await smtp?.close()
})

const mailConfig = () => ({ smtpUrl: smtp.url, caFile: smtp.caFile, from: 'Errata <errata@example.com>', maxAttempts: 2 })
const toOf = (m: ReceivedMail) => (m.parsed.to && 'text' in m.parsed.to ? m.parsed.to.text : '')
const header = (m: ReceivedMail, key: string) => m.parsed.headerLines.find((h) => h.key === key)?.line.replace(/\r?\n(?=[ \t])/g, '')

/** Runs the jobs, then answers the mails `user` got since `since` (an index into smtp.received). */
async function mailsOf(ctx: TestContext, user: TestUser, since: number): Promise<ReceivedMail[]> {
  await ctx.jobs.drain()
  return smtp.received.slice(since).filter((m) => toOf(m) === user.email)
}

async function notify(ctx: TestContext, seeded: SeededProject, errorClass: string): Promise<string> {
  const res = await ctx.request('/notify', {
    method: 'POST',
    headers: { 'Bugsnag-Api-Key': seeded.project.api_key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ payloadVersion: '4', events: [notifierEvent(errorClass, { app: { releaseStage: 'production' } })] }),
  })
  expect(res.status).toBe(200)
  const list = await ctx.request(`/api/projects/${seeded.project.id}/errors?sort=last_seen`, { token: seeded.user.token })
  const errors = (await list.json()) as Array<{ id: string; error_class: string }>
  return errors.find((e) => e.error_class === errorClass)!.id
}

const settingsOf = async (ctx: TestContext, user: TestUser) =>
  (await (await ctx.request('/api/user/notifications', { token: user.token })).json()) as NotificationSettings

const choose = (ctx: TestContext, user: TestUser, projectId: string, kinds: string[]) =>
  ctx.request(`/api/user/notifications/projects/${projectId}`, { method: 'PUT', token: user.token, json: { kinds } })

describe('email alerts', () => {
  let ctx: TestContext
  let seeded: SeededProject
  let member: TestUser
  let quiet: TestUser

  beforeAll(async () => {
    ctx = await createTestContext({ mail: mailConfig() })
    seeded = await seedProject(ctx, { user: 'Alert Admin', project: 'Checkout' })
    member = await seedMember(ctx, seeded.organization.id, 'Alert Member')
    quiet = await seedMember(ctx, seeded.organization.id, 'Quiet Member')
  })
  afterAll(async () => {
    await ctx?.close()
  })

  it('lists every visible project with the defaults, and keeps a choice', async () => {
    const settings = await settingsOf(ctx, member)
    expect(settings).toMatchObject({ email_enabled: true, email: member.email, alerts_per_hour: 10, digest_hour_utc: 9 })
    expect(settings.projects).toEqual([
      {
        project_id: seeded.project.id,
        project_name: 'Checkout',
        organization_id: seeded.organization.id,
        organization_name: seeded.organization.name,
        kinds: ['new_error', 'reopened', 'assigned'],
        customized: false,
      },
    ])
    const res = await choose(ctx, quiet, seeded.project.id, ['digest', 'assigned', 'digest'])
    expect(res.status).toBe(200)
    expect(((await res.json()) as ProjectNotifications).kinds).toEqual(['assigned', 'digest'])
    expect((await settingsOf(ctx, quiet)).projects[0]).toMatchObject({ kinds: ['assigned', 'digest'], customized: true })
    // Choosing the defaults again is no customization.
    expect(await (await choose(ctx, member, seeded.project.id, ['assigned', 'reopened', 'new_error'])).json()).toMatchObject({ customized: false })
  })

  it('refuses unknown kinds and projects the user cannot see', async () => {
    const bad = await choose(ctx, member, seeded.project.id, ['everything'])
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as { errors: string[] }).errors[0]).toMatch(/^kinds/)
    const other = await seedProject(ctx, { user: 'Outsider', project: 'Elsewhere' })
    expect((await choose(ctx, member, other.project.id, ['digest'])).status).toBe(404)
    expect((await ctx.request(`/api/user/notifications/projects/${seeded.project.id}`, { method: 'PUT', json: { kinds: [] } })).status).toBe(401)
  })

  it('emails a new error to each member who wants it, escaped, with its link and one-click unsubscribe', async () => {
    const since = smtp.received.length
    const errorId = await notify(ctx, seeded, HOSTILE)
    const [mail, ...more] = await mailsOf(ctx, member, since)
    expect(more).toEqual([])
    expect(await mailsOf(ctx, seeded.user, since)).toHaveLength(1)
    // quiet chose only "assigned" and the digest.
    expect(await mailsOf(ctx, quiet, since)).toEqual([])

    expect(mail!.parsed.subject).toBe(`New error in Checkout: ${HOSTILE}: ${HOSTILE} happened`)
    const html = mail!.parsed.html as string
    expect(html).not.toContain('<script>')
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;Boom')
    const link = `http://errata.test/projects/${seeded.project.id}/errors/${errorId}`
    expect(mail!.parsed.text).toContain(`Open the error: ${link}`)
    expect(mail!.parsed.text).toContain('Release stage: production.')
    expect(mail!.parsed.text).toContain('1 event so far.')
    expect(mail!.parsed.text).toContain('“New errors” is on for Checkout')
    expect(html).toContain(`href="${link}"`)
    expect(header(mail!, 'list-unsubscribe')).toMatch(/^List-Unsubscribe: <http:\/\/errata\.test\/api\/notifications\/unsubscribe\?token=[\w-]+\.[\w-]+>$/)
    expect(header(mail!, 'list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click')
    expect(mail!.parsed.text).toMatch(/Unsubscribe: http:\/\/errata\.test\/unsubscribe\?token=[\w-]+\.[\w-]+/)
  })

  it('unsubscribes with the one-click POST a mail client sends, without a sign-in, for that kind and project only', async () => {
    const since = smtp.received.length
    await notify(ctx, seeded, 'FirstForUnsubscribe')
    const [mail] = await mailsOf(ctx, member, since)
    const oneClick = header(mail!, 'list-unsubscribe')!.match(/<(.+)>/)![1]!
    const path = oneClick.replace('http://errata.test', '')

    const look = await ctx.request(path)
    expect(look.status).toBe(200)
    expect(await look.json()).toEqual({ kind: 'new_error', project_name: 'Checkout', email: member.email, subscribed: true } satisfies Unsubscribe)
    const res = await ctx.request(path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' })
    expect(res.status).toBe(200)
    expect(((await res.json()) as Unsubscribe).subscribed).toBe(false)
    expect((await settingsOf(ctx, member)).projects[0]).toMatchObject({ kinds: ['reopened', 'assigned'], customized: true })

    const after = smtp.received.length
    await notify(ctx, seeded, 'AfterUnsubscribe')
    expect(await mailsOf(ctx, member, after)).toEqual([])
    expect(await mailsOf(ctx, seeded.user, after)).toHaveLength(1)

    // The page's "Subscribe again".
    const again = await ctx.request(path.replace('/unsubscribe?', '/subscribe?'), { method: 'POST' })
    expect(((await again.json()) as Unsubscribe).subscribed).toBe(true)
    expect((await settingsOf(ctx, member)).projects[0]!.kinds).toContain('new_error')

    // A token changed to another person, kind or project is refused.
    const token = new URL(oneClick).searchParams.get('token')!
    const [body, signature] = token.split('.')
    const forged = Buffer.from(JSON.stringify([seeded.user.id, seeded.project.id, 'new_error'])).toString('base64url')
    for (const bad of [`${forged}.${signature}`, `${body}.${signature!.slice(1)}`, body!, '']) {
      const refused = await ctx.request(`/api/notifications/unsubscribe?token=${bad}`, { method: 'POST' })
      expect(refused.status).toBe(400)
      expect(((await refused.json()) as { errors: string[] }).errors[0]).toMatch(/^token/)
    }
  })

  it('emails a reopened error when a fixed error happens again', async () => {
    const errorId = await notify(ctx, seeded, 'ComesBack')
    await ctx.jobs.drain()
    const fixed = await ctx.request(`/api/projects/${seeded.project.id}/errors/${errorId}`, { method: 'PATCH', token: seeded.user.token, json: { operation: 'fix' } })
    expect(fixed.status).toBe(200)
    const since = smtp.received.length
    await notify(ctx, seeded, 'ComesBack')
    const [mail, ...more] = await mailsOf(ctx, member, since)
    expect(more).toEqual([])
    expect(mail!.parsed.subject).toBe('Error reopened in Checkout: ComesBack: ComesBack happened')
    expect(mail!.parsed.text).toContain('It was marked as fixed and happened again.')
  })

  it('tells the assignee, not whoever assigned it to themselves, and comments to those involved', async () => {
    const errorId = await notify(ctx, seeded, 'NeedsOwner')
    await ctx.jobs.drain()
    const patch = (user: TestUser, json: unknown) => ctx.request(`/api/projects/${seeded.project.id}/errors/${errorId}`, { method: 'PATCH', token: user.token, json })

    let since = smtp.received.length
    expect((await patch(seeded.user, { operation: 'assign', assigned_collaborator_id: member.id })).status).toBe(200)
    const [assigned] = await mailsOf(ctx, member, since)
    expect(assigned!.parsed.subject).toBe('Alert Admin assigned you an error in Checkout: NeedsOwner: NeedsOwner happened')
    // Assigning it again to the same person says nothing new.
    since = smtp.received.length
    expect((await patch(seeded.user, { operation: 'assign', assigned_collaborator_id: member.id })).status).toBe(200)
    expect(await mailsOf(ctx, member, since)).toEqual([])
    // quiet wants "assigned", but takes this one on themselves.
    expect((await patch(quiet, { operation: 'assign', assigned_collaborator_id: quiet.id })).status).toBe(200)
    expect(await mailsOf(ctx, quiet, since)).toEqual([])

    // Comments: quiet (the assignee) and member (a commenter) want them; the author is not told.
    await choose(ctx, quiet, seeded.project.id, ['assigned', 'comments'])
    await choose(ctx, member, seeded.project.id, ['comments'])
    const comment = (user: TestUser, message: string) =>
      ctx.request(`/api/projects/${seeded.project.id}/errors/${errorId}/comments`, { method: 'POST', token: user.token, json: { message } })
    since = smtp.received.length
    expect((await comment(seeded.user, 'Looking <b>now</b>')).status).toBe(201)
    const [toAssignee] = await mailsOf(ctx, quiet, since)
    expect(toAssignee!.parsed.subject).toBe('Alert Admin commented on an error in Checkout: NeedsOwner: NeedsOwner happened')
    expect(toAssignee!.parsed.text).toContain('“Looking <b>now</b>”')
    expect(toAssignee!.parsed.html).toContain('Looking &lt;b&gt;now&lt;/b&gt;')
    // member has not commented yet.
    expect(await mailsOf(ctx, member, since)).toEqual([])
    expect((await comment(member, 'Me too')).status).toBe(201)
    expect(await mailsOf(ctx, quiet, since)).toHaveLength(2)
    since = smtp.received.length
    expect((await comment(seeded.user, 'Fixed in 2.1')).status).toBe(201)
    expect(await mailsOf(ctx, member, since)).toHaveLength(1)
    expect(await mailsOf(ctx, quiet, since)).toHaveLength(1)
    expect(await mailsOf(ctx, seeded.user, since)).toEqual([])
  })
})

describe('hourly limit, digest and spikes', () => {
  let ctx: TestContext
  let seeded: SeededProject
  // Before the digest hour (9 UTC).
  let now = new Date(Date.UTC(2027, 0, 7, 8, 0))

  beforeAll(async () => {
    ctx = await createTestContext({ mail: mailConfig(), alerts: { perHour: 2, digestHourUtc: 9, checkMs: 60_000 } }, { clock: () => now })
    seeded = await seedProject(ctx, { user: 'Digest Admin', project: 'Billing' })
  })
  afterAll(async () => {
    await ctx?.close()
  })

  const tick = async () => {
    await enqueueAlertTick(ctx.deps.database.db, now)
    await ctx.jobs.drain()
  }

  it('holds alerts past the hourly limit for the digest, which goes out once a day', async () => {
    const since = smtp.received.length
    const names = ['LimitOne', 'LimitTwo', 'LimitThree', 'LimitFour']
    for (const name of names) {
      await ingestAt(ctx, seeded.project.id, [{ at: now, event: notifierEvent(name) }])
    }
    // 2 emailed, 2 held. The batches' alert jobs run two at a time, so which two comes first may vary.
    const alerts = await mailsOf(ctx, seeded.user, since)
    const emailed = names.filter((name) => alerts.some((m) => m.parsed.subject === `New error in Billing: ${name}: ${name} happened`))
    expect(alerts).toHaveLength(2)
    expect(emailed).toHaveLength(2)
    const held = names.filter((name) => !emailed.includes(name))

    // Before the digest hour: nothing.
    await tick()
    expect(await mailsOf(ctx, seeded.user, since + 2)).toEqual([])

    now = new Date(Date.UTC(2027, 0, 7, 9, 1))
    await tick()
    const [digest, ...more] = await mailsOf(ctx, seeded.user, since + 2)
    expect(more).toEqual([])
    // The digest itself is not chosen: only what was held back.
    expect(digest!.parsed.subject).toBe('Errata daily digest: 2 alerts held back')
    expect(digest!.parsed.text).toContain('2 alerts held back (more than 2 an hour)')
    for (const name of held) expect(digest!.parsed.text).toContain(`- New error: ${name}: ${name} happened`)
    for (const name of emailed) expect(digest!.parsed.text).not.toContain(`- New error: ${name}:`)
    expect(header(digest!, 'list-unsubscribe')).toMatch(/unsubscribe\?token=/)

    // Once a day.
    await tick()
    expect(await mailsOf(ctx, seeded.user, since + 3)).toEqual([])
  })

  it('digests the new and open errors of the projects it is chosen for, and nobody gets an empty one', async () => {
    expect((await choose(ctx, seeded.user, seeded.project.id, ['digest'])).status).toBe(200)
    now = new Date(Date.UTC(2027, 0, 8, 10, 0))
    await ingestAt(ctx, seeded.project.id, [{ at: new Date(now.getTime() - 3_600_000), event: notifierEvent('FreshToday') }])
    const since = smtp.received.length
    await tick()
    const [digest] = await mailsOf(ctx, seeded.user, since)
    expect(digest!.parsed.subject).toBe('Errata daily digest: 1 new error, 5 open errors')
    expect(digest!.parsed.text).toContain('Billing: 1 new error in the last day, 5 errors open.')
    expect(digest!.parsed.text).toContain(`- FreshToday: FreshToday happened (1 event)\n  http://errata.test/projects/${seeded.project.id}/errors/`)

    // A day without anything new, seen or held: no email.
    now = new Date(Date.UTC(2027, 0, 11, 10, 0))
    const later = smtp.received.length
    await tick()
    expect(await mailsOf(ctx, seeded.user, later)).toEqual([])
  })

  it('alerts once an hour on an error spiking against its usual rate', async () => {
    expect((await choose(ctx, seeded.user, seeded.project.id, ['spiking'])).status).toBe(200)
    now = new Date(Date.UTC(2027, 0, 12, 15, 20))
    const event = notifierEvent('Spiky')
    // A usual rate of 2 an hour over the day before, then 60 in this hour.
    for (let h = 1; h <= 24; h++) {
      const at = new Date(Date.UTC(2027, 0, 12, 15) - h * 3_600_000)
      await ingestAt(ctx, seeded.project.id, [{ at, event }, { at, event }])
    }
    let since = smtp.received.length
    await ingestAt(ctx, seeded.project.id, Array.from({ length: 49 }, () => ({ at: now, event })))
    await tick()
    expect(await mailsOf(ctx, seeded.user, since)).toEqual([])
    await ingestAt(ctx, seeded.project.id, Array.from({ length: 11 }, () => ({ at: now, event })))
    await tick()
    const [spike, ...more] = await mailsOf(ctx, seeded.user, since)
    expect(more).toEqual([])
    expect(spike!.parsed.subject).toBe('Error spiking in Billing: Spiky: Spiky happened')
    expect(spike!.parsed.text).toContain('60 events this hour, against about 2 events an hour over the day before.')
    since = smtp.received.length
    await ingestAt(ctx, seeded.project.id, Array.from({ length: 20 }, () => ({ at: now, event })))
    await tick()
    expect(await mailsOf(ctx, seeded.user, since)).toEqual([])
  })
})

describe('with email off', () => {
  it('keeps the choices, says email is off, and queues nothing', async () => {
    const ctx = await createTestContext()
    try {
      const seeded = await seedProject(ctx, { user: 'No Mail', project: 'Quiet' })
      expect((await settingsOf(ctx, seeded.user)).email_enabled).toBe(false)
      expect((await choose(ctx, seeded.user, seeded.project.id, ['digest'])).status).toBe(200)
      await notify(ctx, seeded, 'Unheard')
      await ctx.jobs.drain()
      const [row] = await queryRows<{ n: number }>(ctx.deps.database.db, sql`SELECT count(*)::int AS n FROM jobs WHERE kind = 'mail.send'`)
      expect(row!.n).toBe(0)
    } finally {
      await ctx.close()
    }
  })
})
