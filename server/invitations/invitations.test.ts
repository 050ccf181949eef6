import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { InvitedCollaborator } from '../../contract/collaborators.ts'
import type { Project } from '../../contract/projects.ts'
import type { LoginResponse } from '../../contract/users.ts'
import { hashToken } from '../auth/tokens.ts'
import { authTokens, collaborators, invitations, users } from '../db/schema.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'

let ctx: TestContext
let acme: SeededProject
let mobile: Project

beforeAll(async () => {
  ctx = await createTestContext()
  acme = await seedProject(ctx, { user: 'Dana Admin', organization: 'Acme', project: 'Web' })
  const res = await ctx.request(`/api/organizations/${acme.organization.id}/projects`, {
    method: 'POST',
    token: acme.user.token,
    json: { name: 'Mobile', type: 'node' },
  })
  mobile = (await res.json()) as Project
})
afterAll(() => ctx.close())

const NOT_FOUND = { errors: ['Invitation not found: the link is wrong, has expired or was already used'] }
const PASSWORD = 'a long enough password'

/** Invites `email` into Acme and returns the invitation with its link's token. */
async function invite(email: string, extra: Record<string, unknown> = {}) {
  const res = await ctx.request(`/api/organizations/${acme.organization.id}/collaborators`, {
    method: 'POST',
    token: acme.user.token,
    json: { email, ...extra },
  })
  expect(res.status).toBe(201)
  const invited = (await res.json()) as InvitedCollaborator
  return { invited, token: invited.invitation_url.split('/').pop()! }
}

const show = (token: string) => ctx.request(`/api/invitations/${token}`)
const accept = (token: string, json: unknown) => ctx.request(`/api/invitations/${token}/accept`, { method: 'POST', json })

describe('GET /invitations/:token', () => {
  it('shows the organization, email and role without any auth token', async () => {
    const { token } = await invite('shown@example.com', { is_admin: true })
    const res = await show(token)
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body).toEqual({
      organization_name: 'Acme',
      email: 'shown@example.com',
      is_admin: true,
      expires_at: expect.any(String),
    })
    // Valid for 14 days.
    const days = (new Date(body.expires_at).getTime() - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(13.99)
    expect(days).toBeLessThanOrEqual(14)
  })

  it('answers the same 404 for unknown and expired links', async () => {
    const unknown = await show('0'.repeat(40))
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toEqual(NOT_FOUND)
    const { token } = await invite('expired@example.com')
    await ctx.deps.database.db
      .update(invitations)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(invitations.tokenHash, hashToken(token)))
    const expired = await show(token)
    expect(expired.status).toBe(404)
    expect(await expired.json()).toEqual(NOT_FOUND)
    expect((await accept(token, { name: 'Late', password: PASSWORD })).status).toBe(404)
    // Expired invitations drop out of the collaborators list too.
    const listed = await (await ctx.request(`/api/organizations/${acme.organization.id}/collaborators`, { token: acme.user.token })).json()
    expect(listed.some((c: { email: string }) => c.email === 'expired@example.com')).toBe(false)
  })

  it('needs X-Version: 2 like the rest of the API', async () => {
    const { token } = await invite('versioned@example.com')
    expect((await ctx.request(`/api/invitations/${token}`, { headers: { 'X-Version': '1' } })).status).toBe(410)
  })
})

describe('POST /invitations/:token/accept', () => {
  it('labels the sign-in token it returns with the browser and system, like POST /auth/login', async () => {
    const { token } = await invite('browser@example.com')
    const res = await ctx.request(`/api/invitations/${token}/accept`, {
      method: 'POST',
      json: { name: 'Browser', password: PASSWORD },
      headers: { 'User-Agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0; rv:133.0) Gecko/20100101 Firefox/133.0' },
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as LoginResponse
    const tokens = (await (await ctx.request('/api/user/tokens', { token: body.token })).json()) as { description: string }[]
    expect(tokens.map((t) => t.description)).toEqual(['Dashboard sign-in · Firefox on macOS'])
    // A sign-in token, which expires when idle (server/tokens/tokens.test.ts).
    const [row] = await ctx.deps.database.db.select({ kind: authTokens.kind }).from(authTokens).where(eq(authTokens.tokenHash, hashToken(body.token)))
    expect(row).toEqual({ kind: 'sign_in' })
  })

  it('creates the account and membership, signs in, and uses the invitation up', async () => {
    const { invited, token } = await invite('newbie@example.com', { project_ids: [mobile.id] })
    const res = await accept(token, { name: '  Newbie  ', password: PASSWORD })
    expect(res.status).toBe(200)
    const body = (await res.json()) as LoginResponse
    expect(body).toEqual({
      token: expect.stringMatching(/^[0-9a-f]{40}$/),
      user: { id: expect.any(String), name: 'Newbie', email: 'newbie@example.com', created_at: expect.any(String) },
    })
    // The returned token works, with the invitation's project restriction.
    expect((await ctx.request('/api/user', { token: body.token })).status).toBe(200)
    expect((await ctx.request(`/api/projects/${mobile.id}`, { token: body.token })).status).toBe(200)
    expect((await ctx.request(`/api/projects/${acme.project.id}`, { token: body.token })).status).toBe(404)
    // The password works for a later login.
    const login = await ctx.request('/api/auth/login', { method: 'POST', json: { email: 'newbie@example.com', password: PASSWORD } })
    expect(login.status).toBe(200)
    // The membership replaces the invitation in the list.
    const listed = await (await ctx.request(`/api/organizations/${acme.organization.id}/collaborators`, { token: acme.user.token })).json()
    const newbie = listed.filter((c: { email: string }) => c.email === 'newbie@example.com')
    expect(newbie).toEqual([
      {
        id: body.user.id,
        name: 'Newbie',
        email: 'newbie@example.com',
        is_admin: false,
        project_ids: [mobile.id],
        pending_invitation: false,
        created_at: expect.any(String),
      },
    ])
    expect(newbie[0].id).not.toBe(invited.id)
    // Used: the link is gone.
    expect(await (await show(token)).json()).toEqual(NOT_FOUND)
    expect((await accept(token, { name: 'Again', password: PASSWORD })).status).toBe(404)
  })

  it('makes an admin of an admin invitation', async () => {
    const { token } = await invite('boss@example.com', { is_admin: true })
    const body = (await (await accept(token, { name: 'Boss', password: PASSWORD })).json()) as LoginResponse
    const [row] = await ctx.deps.database.db.select().from(collaborators).where(eq(collaborators.userId, body.user.id))
    expect(row).toMatchObject({ organizationId: acme.organization.id, isAdmin: true, projectIds: null })
  })

  it('accepts a double submit once', async () => {
    const { token } = await invite('double@example.com')
    const [a, b] = await Promise.all([
      accept(token, { name: 'Double', password: PASSWORD }),
      accept(token, { name: 'Double', password: PASSWORD }),
    ])
    expect([a.status, b.status].sort()).toEqual([200, 404])
  })

  it('answers 409 when the email got an account meanwhile, and keeps the invitation', async () => {
    const { token } = await invite('taken@example.com')
    const taken = await ctx.createUser('Taken')
    await ctx.deps.database.db.update(users).set({ email: 'taken@example.com' }).where(eq(users.id, taken.id))
    const res = await accept(token, { name: 'Taken Too', password: PASSWORD })
    expect(res.status).toBe(409)
    expect(await res.json()).toEqual({
      errors: [
        'email: an account for taken@example.com already exists; sign in with it and accept the invitation to Acme on your organizations page',
      ],
    })
    expect((await show(token)).status).toBe(200)
  })

  it('validates name and password', async () => {
    const { token } = await invite('checked@example.com')
    const res = await accept(token, { name: ' ', password: 'short' })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({
      errors: ['name: must not be empty', 'password: must be at least 10 characters'],
    })
    expect((await accept(token, {})).status).toBe(400)
    // Still open after refused attempts.
    expect((await show(token)).status).toBe(200)
  })
})
