// Secrets in request URLs stay out of the request log: an invitation's accept link (anyone who
// reads the log could accept a pending admin invitation first), and tokens or API keys a client
// puts in the query string. Bodies and Authorization headers are never logged.
import { Writable } from 'node:stream'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { InvitedCollaborator } from '../../contract/collaborators.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'
import { loggedUrl, redactPath, redactQuery } from './log-redaction.ts'

let ctx: TestContext
let acme: SeededProject
const lines: string[] = []

beforeAll(async () => {
  ctx = await createTestContext()
  acme = await seedProject(ctx, { user: 'Log Admin', organization: 'Logged', project: 'Web' })
  // The app reads its logger from its dependencies per request: capture what it writes.
  ctx.deps.logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean))
        done()
      },
    }),
  )
})
afterAll(() => ctx.close())

describe('request log', () => {
  it('never contains an invitation token, a query-string credential, a body or an Authorization header', async () => {
    const invited = await ctx.request(`/api/organizations/${acme.organization.id}/collaborators`, {
      method: 'POST',
      token: acme.user.token,
      json: { email: 'new.admin@example.com', is_admin: true },
    })
    expect(invited.status).toBe(201)
    const invitationToken = (await invited.json() as InvitedCollaborator).invitation_url.split('/').pop()!
    expect((await ctx.request(`/api/invitations/${invitationToken}`)).status).toBe(200)
    // The dashboard's accept page, whose URL the email links to.
    await ctx.request(`/invitations/${invitationToken}`)
    const password = 'a password in a logged body'
    expect((await ctx.request(`/api/invitations/${invitationToken}/accept`, { method: 'POST', json: { name: 'New Admin', password } })).status).toBe(200)
    const apiKey = acme.project.api_key
    await ctx.request(`/api/user?auth_token=${acme.user.token}&api_key=${apiKey}&per_page=5`)
    await ctx.request('/api/user', { token: acme.user.token })

    const log = lines.join('\n')
    expect(log).toContain('"path":"/api/invitations/[redacted]"')
    expect(log).toContain('"path":"/api/invitations/[redacted]/accept"')
    expect(log).toContain('"path":"/invitations/[redacted]"')
    expect(log).toContain(`"query":"auth_token=[redacted]&api_key=[redacted]&per_page=5"`)
    for (const secret of [invitationToken, acme.user.token, apiKey, password]) expect(log).not.toContain(secret)
    expect(log.toLowerCase()).not.toContain('authorization')
  })
})

describe('ERRATA_REQUEST_LOG', () => {
  it('logs every request, only failures, or none', async () => {
    const original = ctx.deps.config
    try {
      const logged = async (setting: 'all' | 'errors' | 'off') => {
        ctx.deps.config = { ...original, requestLog: setting }
        lines.length = 0
        await ctx.request('/healthz')
        await ctx.request('/api/user')
        return lines.map((line) => JSON.parse(line) as { msg: string; status: number }).filter((r) => r.msg === 'request').map((r) => r.status)
      }
      expect(await logged('all')).toEqual([200, 401])
      expect(await logged('errors')).toEqual([401])
      expect(await logged('off')).toEqual([])
    } finally {
      ctx.deps.config = original
    }
  })
})

describe('redaction rules', () => {
  it('redacts the segment after invitations and credential parameters, whatever their case or encoding', () => {
    expect(redactPath('/api/invitations/abc/accept')).toBe('/api/invitations/[redacted]/accept')
    expect(redactPath('/api/invitations/')).toBe('/api/invitations/')
    expect(redactQuery('API_KEY=1&apiKey=2&auth%5Ftoken=3&q=4')).toBe('API_KEY=[redacted]&apiKey=[redacted]&auth%5Ftoken=[redacted]&q=4')
    expect(loggedUrl('http://h/invitations/t?token=x#frag')).toEqual({ path: '/invitations/[redacted]', query: 'token=[redacted]' })
    expect(loggedUrl('http://h/api/user')).toEqual({ path: '/api/user' })
  })
})
