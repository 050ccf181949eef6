import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Collaborator, InvitedCollaborator } from '../../contract/collaborators.ts'
import type { Project } from '../../contract/projects.ts'
import { queryRows, withTransaction, type Db } from '../db/client.ts'
import { collaborators, errors, organizations, users } from '../db/schema.ts'
import { seedErrors, seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

let ctx: TestContext
let acme: SeededProject
let other: SeededProject
let bob: TestUser
let carol: TestUser
let carol2: TestUser
let outsider: TestUser

beforeAll(async () => {
  ctx = await createTestContext()
  acme = await seedProject(ctx, { user: 'Dana Admin', organization: 'Acme', project: 'Web' })
  other = await seedProject(ctx, { user: 'Olga', organization: 'Other', project: 'Api' })
  bob = await ctx.createUser('bob')
  carol = await ctx.createUser('Carol')
  carol2 = await ctx.createUser('Carol')
  outsider = await ctx.createUser('Outsider')
  await ctx.deps.database.db.insert(collaborators).values([
    { organizationId: acme.organization.id, userId: bob.id, isAdmin: false },
    { organizationId: acme.organization.id, userId: carol.id, isAdmin: false },
    { organizationId: acme.organization.id, userId: carol2.id, isAdmin: true },
  ])
})
afterAll(() => ctx.close())

const get = (path: string, token: string) => ctx.request(path, { token })
const send = (method: string, path: string, token: string, json?: unknown) =>
  ctx.request(path, { method, token, json })

function member(user: TestUser, name: string, isAdmin: boolean, projectIds: string[] | null = null): Collaborator {
  return {
    id: user.id,
    name,
    email: user.email,
    is_admin: isAdmin,
    project_ids: projectIds,
    pending_invitation: false,
    created_at: expect.any(String) as unknown as string,
  }
}

function expectedAcme(): Collaborator[] {
  const carols = [carol, carol2].sort((a, b) => (a.email < b.email ? -1 : 1)).map((u) => member(u, 'Carol', u === carol2))
  return [member(bob, 'bob', false), ...carols, member(acme.user, 'Dana Admin', true)]
}

/** An invitation answer without what differs per invitation (id, email, time, the link's token). */
const invitationShape = ({ id: _id, email: _email, created_at: _at, invitation_url: link, invitation_emailed: _emailed, ...rest }: InvitedCollaborator) => ({
  ...rest,
  link: /\/invitations\/[0-9a-f]{40}$/.test(link),
})

/** A fresh organization (admin `admin`) with two projects, so mutations never disturb other tests. */
async function freshOrg(adminName = 'Admin') {
  const seeded = await seedProject(ctx, { user: adminName, organization: `Org of ${adminName}`, project: 'Web' })
  const res = await send('POST', `/api/organizations/${seeded.organization.id}/projects`, seeded.user.token, {
    name: 'Mobile',
    type: 'node',
  })
  expect(res.status).toBe(201)
  const mobile = (await res.json()) as Project
  return { ...seeded, web: seeded.project, mobile }
}

async function addMember(organizationId: string, user: TestUser, isAdmin = false, projectIds: string[] | null = null) {
  await ctx.deps.database.db.insert(collaborators).values({ organizationId, userId: user.id, isAdmin, projectIds })
}

describe('GET /organizations/:organizationId/collaborators', () => {
  it('lists every collaborator sorted by name (case-insensitive), then email', async () => {
    const res = await get(`/api/organizations/${acme.organization.id}/collaborators`, acme.user.token)
    expect(res.status).toBe(200)
    const body = (await res.json()) as Collaborator[]
    expect(body).toEqual(expectedAcme())
    expect(new Date(body[0]!.created_at).toISOString()).toBe(body[0]!.created_at)
  })

  it('is visible to non-admin members too', async () => {
    const res = await get(`/api/organizations/${acme.organization.id}/collaborators`, bob.token)
    expect(res.status).toBe(200)
    expect(await res.json()).toHaveLength(4)
  })

  it('lists pending invitations after the members, by email', async () => {
    const org = await freshOrg('Zed')
    const url = `/api/organizations/${org.organization.id}/collaborators`
    for (const email of ['zz@example.com', 'Aa@Example.com']) {
      expect((await send('POST', url, org.user.token, { email })).status).toBe(201)
    }
    const res = await get(url, org.user.token)
    const body = (await res.json()) as Collaborator[]
    expect(body.map((c) => [c.email, c.pending_invitation])).toEqual([
      [org.user.email, false],
      ['aa@example.com', true],
      ['zz@example.com', true],
    ])
    expect(body[1]).toEqual({
      id: expect.any(String),
      name: '',
      email: 'aa@example.com',
      is_admin: false,
      project_ids: null,
      pending_invitation: true,
      created_at: expect.any(String),
    })
  })

  it('answers 404 to outsiders and for unknown organizations, 401 without a token', async () => {
    const res = await get(`/api/organizations/${acme.organization.id}/collaborators`, outsider.token)
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ errors: ['Organization not found'] })
    // A member of another organization is an outsider here.
    expect((await get(`/api/organizations/${acme.organization.id}/collaborators`, other.user.token)).status).toBe(404)
    expect((await get('/api/organizations/000000000000000000000000/collaborators', acme.user.token)).status).toBe(404)
    expect((await ctx.request(`/api/organizations/${acme.organization.id}/collaborators`)).status).toBe(401)
  })
})

describe('GET /organizations/:organizationId/collaborators/:collaboratorId', () => {
  it('returns one collaborator', async () => {
    const res = await get(`/api/organizations/${acme.organization.id}/collaborators/${bob.id}`, carol.token)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual(member(bob, 'bob', false))
  })

  it('returns a pending invitation by its id', async () => {
    const org = await freshOrg()
    const invited = (await (
      await send('POST', `/api/organizations/${org.organization.id}/collaborators`, org.user.token, {
        email: 'pending@example.com',
        project_ids: [org.mobile.id],
      })
    ).json()) as InvitedCollaborator
    const res = await get(`/api/organizations/${org.organization.id}/collaborators/${invited.id}`, org.user.token)
    expect(res.status).toBe(200)
    const { invitation_url: _url, invitation_emailed: _emailed, ...asListed } = invited
    expect(await res.json()).toEqual(asListed)
    expect(asListed).toMatchObject({ pending_invitation: true, project_ids: [org.mobile.id] })
    // The invitation belongs to that organization only.
    expect((await get(`/api/organizations/${acme.organization.id}/collaborators/${invited.id}`, acme.user.token)).status).toBe(404)
  })

  it('answers 404 for a user who is not a collaborator, an unknown id, and outsiders', async () => {
    const notHere = await get(`/api/organizations/${acme.organization.id}/collaborators/${other.user.id}`, acme.user.token)
    expect(notHere.status).toBe(404)
    expect(await notHere.json()).toEqual({ errors: ['Collaborator not found'] })
    expect((await get(`/api/organizations/${acme.organization.id}/collaborators/nope`, acme.user.token)).status).toBe(404)
    const outside = await get(`/api/organizations/${acme.organization.id}/collaborators/${bob.id}`, outsider.token)
    expect(outside.status).toBe(404)
    expect(await outside.json()).toEqual({ errors: ['Organization not found'] })
  })
})

describe('GET /projects/:projectId/collaborators', () => {
  it("lists everyone in the project's organization", async () => {
    const res = await get(`/api/projects/${acme.project.id}/collaborators`, bob.token)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual(expectedAcme())
    const theirs = await (await get(`/api/projects/${other.project.id}/collaborators`, other.user.token)).json()
    expect(theirs).toEqual([member(other.user, 'Olga', true)])
  })

  it('answers 404 to outsiders and for unknown projects', async () => {
    const res = await get(`/api/projects/${acme.project.id}/collaborators`, outsider.token)
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ errors: ['Project not found'] })
    expect((await get(`/api/projects/${acme.project.id}/collaborators`, other.user.token)).status).toBe(404)
    expect((await get('/api/projects/000000000000000000000000/collaborators', acme.user.token)).status).toBe(404)
  })
})

describe('POST /organizations/:organizationId/collaborators', () => {
  it('invites an existing account without letting it join: answered as for an unknown email, joined only once the user accepts', async () => {
    const org = await freshOrg()
    const url = `/api/organizations/${org.organization.id}/collaborators`
    const newcomer = await ctx.createUser('Newcomer')
    const res = await send('POST', url, org.user.token, { email: newcomer.email.toUpperCase(), project_ids: [org.web.id] })
    expect(res.status).toBe(201)
    const existing = (await res.json()) as InvitedCollaborator
    const unknown = (await (await send('POST', url, org.user.token, { email: 'nobody.here@example.com', project_ids: [org.web.id] })).json()) as InvitedCollaborator
    // The same answer either way: no name, pending, an accept link. Whether the email has an account is not told.
    expect(invitationShape(existing)).toEqual(invitationShape(unknown))
    expect(existing).toMatchObject({ name: '', email: newcomer.email.toLowerCase(), pending_invitation: true })
    // Not a member yet: the organization and its project stay hidden from the invitee.
    expect((await get(`/api/organizations/${org.organization.id}`, newcomer.token)).status).toBe(404)
    expect((await get(`/api/projects/${org.web.id}`, newcomer.token)).status).toBe(404)

    // The invitee sees the invitation among their own, and accepts it.
    const mine = await get('/api/user/invitations', newcomer.token)
    expect(mine.status).toBe(200)
    expect(await mine.json()).toEqual([
      {
        id: existing.id,
        organization_id: org.organization.id,
        organization_name: org.organization.name,
        is_admin: false,
        invited_by: 'Admin',
        created_at: existing.created_at,
        expires_at: expect.any(String),
      },
    ])
    // Nobody else can accept or decline it.
    expect((await send('POST', `/api/user/invitations/${existing.id}/accept`, outsider.token)).status).toBe(404)
    expect((await send('DELETE', `/api/user/invitations/${existing.id}`, outsider.token)).status).toBe(404)
    const accepted = await send('POST', `/api/user/invitations/${existing.id}/accept`, newcomer.token)
    expect(accepted.status).toBe(200)
    expect(await accepted.json()).toMatchObject({ id: org.organization.id, name: org.organization.name })
    expect((await get(`/api/projects/${org.web.id}`, newcomer.token)).status).toBe(200)
    expect(await (await get('/api/user/invitations', newcomer.token)).json()).toEqual([])
    expect((await send('POST', `/api/user/invitations/${existing.id}/accept`, newcomer.token)).status).toBe(404)
    const listed = (await (await get(url, org.user.token)).json()) as Collaborator[]
    expect(listed.find((c) => c.id === newcomer.id)).toEqual(member(newcomer, 'Newcomer', false, [org.web.id]))

    const again = await send('POST', url, org.user.token, { email: newcomer.email })
    expect(again.status).toBe(409)
    expect(await again.json()).toEqual({ errors: [`email: ${newcomer.email} is already a collaborator`] })
  })

  it('lets the invitee decline: the invitation is withdrawn and they never join', async () => {
    const org = await freshOrg()
    const url = `/api/organizations/${org.organization.id}/collaborators`
    const invitee = await ctx.createUser('Decliner')
    const invited = (await (await send('POST', url, org.user.token, { email: invitee.email, is_admin: true })).json()) as InvitedCollaborator
    const declined = await send('DELETE', `/api/user/invitations/${invited.id}`, invitee.token)
    expect(declined.status).toBe(204)
    expect(await (await get('/api/user/invitations', invitee.token)).json()).toEqual([])
    expect((await get(`/api/organizations/${org.organization.id}`, invitee.token)).status).toBe(404)
    const listed = (await (await get(url, org.user.token)).json()) as Collaborator[]
    expect(listed.some((c) => c.email === invitee.email.toLowerCase())).toBe(false)
    // The link stops working too.
    expect((await ctx.request(`/api/invitations/${invited.invitation_url.split('/').pop()!}`)).status).toBe(404)
  })

  it('never sets a password: name and password are ignored, the answer is the invitation an account would get', async () => {
    const org = await freshOrg()
    const url = `/api/organizations/${org.organization.id}/collaborators`
    const chosenByAdmin = 'the admin picked this password'
    const existing = await ctx.createUser('Existing')
    const inviteWithPassword = (email: string) =>
      send('POST', url, org.user.token, { email, name: 'Set By Admin', password: chosenByAdmin, is_admin: true, project_ids: [org.web.id] })
    const forNew = await inviteWithPassword('direct@example.com')
    const forExisting = await inviteWithPassword(existing.email)
    // Same status and the same fields, whether or not the email had an account.
    expect([forNew.status, forExisting.status]).toEqual([201, 201])
    const newBody = (await forNew.json()) as InvitedCollaborator
    const existingBody = (await forExisting.json()) as InvitedCollaborator
    expect(Object.keys(newBody).sort()).toEqual(Object.keys(existingBody).sort())
    expect(invitationShape(newBody)).toEqual(invitationShape(existingBody))
    expect(newBody).toMatchObject({ name: '', email: 'direct@example.com', is_admin: true, project_ids: null, pending_invitation: true })

    // No account was made, so the admin's password signs nobody in; the existing one is untouched.
    const accounts = await ctx.deps.database.db.select().from(users).where(eq(users.email, 'direct@example.com'))
    expect(accounts).toEqual([])
    const login = (email: string, password: string) => ctx.request('/api/auth/login', { method: 'POST', json: { email, password } })
    expect((await login('direct@example.com', chosenByAdmin)).status).toBe(401)
    expect((await login(existing.email, chosenByAdmin)).status).toBe(401)
    expect((await login(existing.email, 'correct horse battery')).status).toBe(200)

    // The invitee picks their own name and password when accepting.
    const accepted = await ctx.request(`/api/invitations/${newBody.invitation_url.split('/').pop()!}/accept`, {
      method: 'POST',
      json: { name: 'Direct Dan', password: 'the invitee picked this' },
    })
    expect(accepted.status).toBe(200)
    expect((await login('direct@example.com', 'the invitee picked this')).status).toBe(200)
    expect((await login('direct@example.com', chosenByAdmin)).status).toBe(401)
  })

  it('otherwise creates a pending invitation with a one-time accept link; re-inviting replaces it', async () => {
    const org = await freshOrg()
    const url = `/api/organizations/${org.organization.id}/collaborators`
    const first = await send('POST', url, org.user.token, { email: 'Invitee@Example.com' })
    expect(first.status).toBe(201)
    const invited = (await first.json()) as InvitedCollaborator
    expect(invited).toMatchObject({ email: 'invitee@example.com', name: '', pending_invitation: true, is_admin: false })
    expect(invited.invitation_url).toMatch(/^http:\/\/errata\.test\/invitations\/[0-9a-f]{40}$/)
    // Email is off: the admin passes the link on.
    expect(invited.invitation_emailed).toBe(false)
    const firstToken = invited.invitation_url.split('/').pop()!
    expect((await ctx.request(`/api/invitations/${firstToken}`)).status).toBe(200)

    const second = (await (await send('POST', url, org.user.token, { email: 'invitee@example.com', is_admin: true })).json()) as InvitedCollaborator
    expect(second.invitation_url).not.toBe(invited.invitation_url)
    expect(second.is_admin).toBe(true)
    // The old link stops working; the list holds one invitation for that email.
    expect((await ctx.request(`/api/invitations/${firstToken}`)).status).toBe(404)
    const listed = (await (await get(url, org.user.token)).json()) as Collaborator[]
    const { invitation_url: secondUrl, invitation_emailed: _secondEmailed, ...secondListed } = second
    expect(listed.filter((c) => c.email === 'invitee@example.com')).toEqual([secondListed])
    // The token is stored hashed, never in the clear.
    const rows = await ctx.deps.database.db.query.invitations.findMany()
    expect(JSON.stringify(rows)).not.toContain(secondUrl!.split('/').pop()!)
  })

  it('an invitation to an email that gets an account meanwhile is accepted by that account', async () => {
    const org = await freshOrg()
    const url = `/api/organizations/${org.organization.id}/collaborators`
    const invited = (await (await send('POST', url, org.user.token, { email: 'soon@example.com' })).json()) as InvitedCollaborator
    // Meanwhile the person got an account under that email some other way.
    const later = await ctx.createUser('Later')
    await ctx.deps.database.db.update(users).set({ email: 'soon@example.com' }).where(eq(users.id, later.id))
    // The link would create a second account: refused, pointing to the organizations page.
    const viaLink = await ctx.request(`/api/invitations/${invited.invitation_url.split('/').pop()!}/accept`, {
      method: 'POST',
      json: { name: 'Later', password: 'a long enough password' },
    })
    expect(viaLink.status).toBe(409)
    expect((await viaLink.json()).errors[0]).toMatch(/accept the invitation .* on your organizations page/)
    expect((await send('POST', `/api/user/invitations/${invited.id}/accept`, later.token)).status).toBe(200)
    const listed = (await (await get(url, org.user.token)).json()) as Collaborator[]
    expect(listed.filter((c) => c.email === 'soon@example.com').map((c) => c.pending_invitation)).toEqual([false])
  })

  it('refuses project_ids outside the organization with 400 naming each', async () => {
    const org = await freshOrg()
    const res = await send('POST', `/api/organizations/${org.organization.id}/collaborators`, org.user.token, {
      email: 'p@example.com',
      project_ids: [org.web.id, other.project.id, '00000000000000000000dead'],
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({
      errors: [
        `project_ids: ${other.project.id} is not a project of this organization`,
        'project_ids: 00000000000000000000dead is not a project of this organization',
      ],
    })
    const listed = (await (await get(`/api/organizations/${org.organization.id}/collaborators`, org.user.token)).json()) as Collaborator[]
    expect(listed).toHaveLength(1)
  })

  it('validates the body', async () => {
    const url = `/api/organizations/${acme.organization.id}/collaborators`
    const bad = await send('POST', url, acme.user.token, { email: 'not-an-email' })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toEqual({ errors: ['email: must be an email address'] })
  })

  it('is for admins only: 403 for members, 404 for outsiders', async () => {
    const url = `/api/organizations/${acme.organization.id}/collaborators`
    const res = await send('POST', url, bob.token, { email: 'friend@example.com' })
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({ errors: ['only organization admins may do this'] })
    const outside = await send('POST', url, outsider.token, { email: 'friend@example.com' })
    expect(outside.status).toBe(404)
    expect(await outside.json()).toEqual({ errors: ['Organization not found'] })
    const listed = (await (await get(url, acme.user.token)).json()) as Collaborator[]
    expect(listed.some((c) => c.email === 'friend@example.com')).toBe(false)
  })
})

describe('PATCH /organizations/:organizationId/collaborators/:collaboratorId', () => {
  it('changes the role and the projects of a member', async () => {
    const org = await freshOrg()
    const pat = await ctx.createUser('Pat')
    await addMember(org.organization.id, pat)
    const url = `/api/organizations/${org.organization.id}/collaborators/${pat.id}`

    const restricted = await send('PATCH', url, org.user.token, { project_ids: [org.mobile.id, org.mobile.id] })
    expect(restricted.status).toBe(200)
    expect(await restricted.json()).toEqual(member(pat, 'Pat', false, [org.mobile.id]))
    expect((await get(`/api/projects/${org.web.id}`, pat.token)).status).toBe(404)

    const promoted = await send('PATCH', url, org.user.token, { is_admin: true })
    expect(await promoted.json()).toEqual(member(pat, 'Pat', true, null))
    expect((await get(`/api/projects/${org.web.id}`, pat.token)).status).toBe(200)

    // Demoted without project_ids: back to every project (admins keep none stored).
    const demoted = await send('PATCH', url, org.user.token, { is_admin: false })
    expect(await demoted.json()).toEqual(member(pat, 'Pat', false, null))
    expect(await (await get(url, org.user.token)).json()).toEqual(member(pat, 'Pat', false, null))
  })

  it('forgets a deleted project in members\' and invitations\' project_ids, so the list can be sent back as read', async () => {
    const org = await freshOrg()
    const pat = await ctx.createUser('Pat')
    await addMember(org.organization.id, pat, false, [org.web.id, org.mobile.id])
    const invited = (await (
      await send('POST', `/api/organizations/${org.organization.id}/collaborators`, org.user.token, { email: 'kept@example.com', project_ids: [org.mobile.id] })
    ).json()) as InvitedCollaborator
    expect((await send('DELETE', `/api/projects/${org.mobile.id}`, org.user.token)).status).toBe(204)

    const url = `/api/organizations/${org.organization.id}/collaborators/${pat.id}`
    const read = (await (await get(url, org.user.token)).json()) as Collaborator
    expect(read.project_ids).toEqual([org.web.id])
    expect((await send('PATCH', url, org.user.token, { project_ids: read.project_ids })).status).toBe(200)
    const invitation = await get(`/api/organizations/${org.organization.id}/collaborators/${invited.id}`, org.user.token)
    expect(await invitation.json()).toMatchObject({ project_ids: [] })
  })

  it('unassigns their errors in projects they can no longer see', async () => {
    const org = await freshOrg()
    const pat = await ctx.createUser('Pat')
    await addMember(org.organization.id, pat)
    const assignedToPat = () => ({ assignedCollaboratorId: pat.id })
    const [onWeb] = await seedErrors(ctx.deps.database, org.web.id, 1, { overrides: assignedToPat })
    const [onMobile] = await seedErrors(ctx.deps.database, org.mobile.id, 1, { overrides: assignedToPat })
    const res = await send('PATCH', `/api/organizations/${org.organization.id}/collaborators/${pat.id}`, org.user.token, {
      project_ids: [org.web.id],
    })
    expect(res.status).toBe(200)
    const assigned = async (id: string) =>
      (await ctx.deps.database.db.select().from(errors).where(eq(errors.id, id)))[0]!.assignedCollaboratorId
    expect(await assigned(onWeb!.id)).toBe(pat.id)
    expect(await assigned(onMobile!.id)).toBeNull()
  })

  it('changes a pending invitation, which the accepted membership then gets', async () => {
    const org = await freshOrg()
    const invited = (await (
      await send('POST', `/api/organizations/${org.organization.id}/collaborators`, org.user.token, { email: 'later@example.com' })
    ).json()) as InvitedCollaborator
    const res = await send('PATCH', `/api/organizations/${org.organization.id}/collaborators/${invited.id}`, org.user.token, {
      project_ids: [org.web.id],
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ id: invited.id, pending_invitation: true, project_ids: [org.web.id] })
    const token = invited.invitation_url.split('/').pop()!
    const accepted = await ctx.request(`/api/invitations/${token}/accept`, {
      method: 'POST',
      json: { name: 'Later', password: 'a long enough password' },
    })
    expect(accepted.status).toBe(200)
    const { token: auth } = (await accepted.json()) as { token: string }
    expect((await get(`/api/projects/${org.web.id}`, auth)).status).toBe(200)
    expect((await get(`/api/projects/${org.mobile.id}`, auth)).status).toBe(404)
  })

  it('never demotes the last admin, but one of two admins may step down', async () => {
    const org = await freshOrg()
    const url = (id: string) => `/api/organizations/${org.organization.id}/collaborators/${id}`
    const last = await send('PATCH', url(org.user.id), org.user.token, { is_admin: false })
    expect(last.status).toBe(409)
    expect(await last.json()).toEqual({
      errors: [`${org.user.email} is the last admin of this organization and cannot be demoted; make someone else an admin first`],
    })
    const second = await ctx.createUser('Second')
    await addMember(org.organization.id, second, true)
    expect((await send('PATCH', url(org.user.id), org.user.token, { is_admin: false })).status).toBe(200)
    // The former admin can no longer change roles; the remaining admin is now the last.
    expect((await send('PATCH', url(second.id), org.user.token, { is_admin: false })).status).toBe(403)
    expect((await send('PATCH', url(second.id), second.token, { is_admin: false })).status).toBe(409)
  })

  it('lets only one of two admins demoting each other at the same time succeed', async () => {
    const org = await freshOrg()
    const second = await ctx.createUser('Second')
    await addMember(org.organization.id, second, true)
    const url = (id: string) => `/api/organizations/${org.organization.id}/collaborators/${id}`
    const [a, b] = await Promise.all([
      send('PATCH', url(second.id), org.user.token, { is_admin: false }),
      send('PATCH', url(org.user.id), second.token, { is_admin: false }),
    ])
    expect([a.status, b.status].sort()).toEqual([200, 403])
    const admins = await ctx.deps.database.db
      .select()
      .from(collaborators)
      .where(eq(collaborators.organizationId, org.organization.id))
    expect(admins.filter((row) => row.isAdmin)).toHaveLength(1)
  })

  it('refuses members (403), outsiders (404), unknown collaborators (404) and bad bodies (400)', async () => {
    const url = `/api/organizations/${acme.organization.id}/collaborators/${carol.id}`
    expect((await send('PATCH', url, bob.token, { is_admin: true })).status).toBe(403)
    expect((await send('PATCH', url, outsider.token, { is_admin: true })).status).toBe(404)
    const unknown = await send('PATCH', `/api/organizations/${acme.organization.id}/collaborators/${other.user.id}`, acme.user.token, { is_admin: true })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toEqual({ errors: ['Collaborator not found'] })
    const empty = await send('PATCH', url, acme.user.token, {})
    expect(empty.status).toBe(400)
    expect(await empty.json()).toEqual({ errors: ['body: give is_admin or project_ids'] })
    const foreign = await send('PATCH', url, acme.user.token, { project_ids: [other.project.id] })
    expect(foreign.status).toBe(400)
    expect(await foreign.json()).toEqual({ errors: [`project_ids: ${other.project.id} is not a project of this organization`] })
    // Nothing changed.
    expect(await (await get(url, acme.user.token)).json()).toEqual(member(carol, 'Carol', false))
  })
})

describe('DELETE /organizations/:organizationId/collaborators/:collaboratorId', () => {
  it('removes a member, who loses access, and unassigns their errors in this organization only', async () => {
    const org = await freshOrg()
    const leaver = await ctx.createUser('Leaver')
    await addMember(org.organization.id, leaver)
    await addMember(other.organization.id, leaver)
    const [here] = await seedErrors(ctx.deps.database, org.web.id, 1, { overrides: () => ({ assignedCollaboratorId: leaver.id }) })
    const [there] = await seedErrors(ctx.deps.database, other.project.id, 1, { overrides: () => ({ assignedCollaboratorId: leaver.id }) })

    const res = await send('DELETE', `/api/organizations/${org.organization.id}/collaborators/${leaver.id}`, org.user.token)
    expect(res.status).toBe(204)
    expect((await get(`/api/organizations/${org.organization.id}`, leaver.token)).status).toBe(404)
    expect((await get(`/api/projects/${org.web.id}/errors`, leaver.token)).status).toBe(404)
    const assigned = async (id: string) =>
      (await ctx.deps.database.db.select().from(errors).where(eq(errors.id, id)))[0]!.assignedCollaboratorId
    expect(await assigned(here!.id)).toBeNull()
    expect(await assigned(there!.id)).toBe(leaver.id)
    expect((await get(`/api/organizations/${other.organization.id}`, leaver.token)).status).toBe(200)
    // Gone: a second delete is a 404.
    expect((await send('DELETE', `/api/organizations/${org.organization.id}/collaborators/${leaver.id}`, org.user.token)).status).toBe(404)
  })

  it('withdraws a pending invitation, whose link then stops working', async () => {
    const org = await freshOrg()
    const invited = (await (
      await send('POST', `/api/organizations/${org.organization.id}/collaborators`, org.user.token, { email: 'gone@example.com' })
    ).json()) as InvitedCollaborator
    const res = await send('DELETE', `/api/organizations/${org.organization.id}/collaborators/${invited.id}`, org.user.token)
    expect(res.status).toBe(204)
    expect((await ctx.request(`/api/invitations/${invited.invitation_url.split('/').pop()}`)).status).toBe(404)
    const listed = (await (await get(`/api/organizations/${org.organization.id}/collaborators`, org.user.token)).json()) as Collaborator[]
    expect(listed.map((c) => c.email)).toEqual([org.user.email])
  })

  it('never removes the last admin', async () => {
    const org = await freshOrg()
    const res = await send('DELETE', `/api/organizations/${org.organization.id}/collaborators/${org.user.id}`, org.user.token)
    expect(res.status).toBe(409)
    expect(await res.json()).toEqual({
      errors: [`${org.user.email} is the last admin of this organization and cannot be removed; make someone else an admin first`],
    })
    // With a second admin, an admin may remove the other.
    const second = await ctx.createUser('Second')
    await addMember(org.organization.id, second, true)
    expect((await send('DELETE', `/api/organizations/${org.organization.id}/collaborators/${org.user.id}`, second.token)).status).toBe(204)
  })

  it('refuses members (403), outsiders (404) and unknown collaborators (404)', async () => {
    const url = `/api/organizations/${acme.organization.id}/collaborators/${carol.id}`
    const denied = await send('DELETE', url, bob.token)
    expect(denied.status).toBe(403)
    expect(await denied.json()).toEqual({ errors: ['only organization admins may do this'] })
    expect((await send('DELETE', url, outsider.token)).status).toBe(404)
    expect((await send('DELETE', `/api/organizations/${acme.organization.id}/collaborators/000000000000000000000000`, acme.user.token)).status).toBe(404)
    expect((await get(url, acme.user.token)).status).toBe(200)
  })
})

// On PostgreSQL these deadlocked (503) while collaborator changes locked member rows before the
// project locks that deletions take first; on PGlite, one connection, they take turns anyway.
describe('collaborator changes while a project or the organization is being deleted', () => {
  /**
   * Runs `lock` in a transaction kept open until `release()`, returning once it holds its locks: a
   * slow writer that a deletion queues behind while holding its project locks (on PGlite, where
   * there is one connection, everything else just waits).
   */
  async function hold(lock: (tx: Db) => Promise<unknown>): Promise<{ release: () => void; released: Promise<void> }> {
    let locked!: () => void
    let release!: () => void
    const isLocked = new Promise<void>((resolve) => (locked = resolve))
    const releasing = new Promise<void>((resolve) => (release = resolve))
    const released = withTransaction(ctx.deps.database.db, async (tx) => {
      await lock(tx)
      locked()
      await releasing
    })
    await isLocked
    // Wrapped: an async function returning the promise itself would wait for it.
    return { release, released }
  }

  /** Holds the rows of a project's errors, as a slow cascade delete of them does. */
  async function holdErrorsOf(projectId: string) {
    await seedErrors(ctx.deps.database, projectId, 1)
    return hold((tx) => tx.select({ id: errors.id }).from(errors).where(eq(errors.projectId, projectId)).for('update'))
  }

  /**
   * Resolves once `count` statements wait for a lock (PostgreSQL). On PGlite the held transaction
   * has the only connection: the others wait for it whatever the order, so at once.
   */
  async function untilWaiting(count: number, orDone: () => boolean = () => false): Promise<void> {
    if (ctx.deps.database.engine !== 'postgres') return
    for (;;) {
      const [row] = await queryRows<{ waiting: number }>(
        ctx.deps.database.db,
        sql`SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      )
      if (orDone() || (row?.waiting ?? 0) >= count) return
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  /** Sends the change once the deletion waits, and lets the held transaction go once the change waits too (or is done). */
  async function whileDeletionWaits(held: { release: () => void }, change: () => Promise<Response>): Promise<Response> {
    await untilWaiting(1)
    let done = false
    const changed = change().finally(() => (done = true))
    await untilWaiting(2, () => done)
    held.release()
    return changed
  }

  it('deleting a project and changing a member restricted to it both succeed (no deadlock)', { timeout: 20_000 }, async () => {
    const org = await freshOrg()
    const pat = await ctx.createUser('Pat')
    await addMember(org.organization.id, pat, false, [org.mobile.id, org.web.id])
    const held = await holdErrorsOf(org.mobile.id)
    const deleted = send('DELETE', `/api/projects/${org.mobile.id}`, org.user.token)
    // The deletion holds the project's lock and waits for the errors; the change comes in then.
    const changed = whileDeletionWaits(held, () =>
      send('PATCH', `/api/organizations/${org.organization.id}/collaborators/${pat.id}`, org.user.token, { project_ids: [org.web.id] }),
    )
    const [deleteRes, changeRes] = await Promise.all([deleted, changed, held.released])
    expect([deleteRes.status, changeRes.status]).toEqual([204, 200])
    expect(await (await get(`/api/organizations/${org.organization.id}/collaborators/${pat.id}`, org.user.token)).json()).toMatchObject({
      project_ids: [org.web.id],
    })
  })

  it('deleting a project and removing a member restricted to it both succeed (no deadlock)', { timeout: 20_000 }, async () => {
    const org = await freshOrg()
    const pat = await ctx.createUser('Pat')
    await addMember(org.organization.id, pat, false, [org.mobile.id, org.web.id])
    const held = await holdErrorsOf(org.mobile.id)
    const deleted = send('DELETE', `/api/projects/${org.mobile.id}`, org.user.token)
    const removed = whileDeletionWaits(held, () => send('DELETE', `/api/organizations/${org.organization.id}/collaborators/${pat.id}`, org.user.token))
    const [deleteRes, removeRes] = await Promise.all([deleted, removed, held.released])
    expect([deleteRes.status, removeRes.status]).toEqual([204, 204])
  })

  it('deleting the organization and changing a member both end without a deadlock', { timeout: 20_000 }, async () => {
    const org = await freshOrg()
    const pat = await ctx.createUser('Pat')
    await addMember(org.organization.id, pat, false, [org.mobile.id, org.web.id])
    // A rename in progress: the deletion takes the project locks, then waits for the row.
    const held = await hold((tx) => tx.update(organizations).set({ name: 'Renamed' }).where(eq(organizations.id, org.organization.id)))
    const deleted = send('DELETE', `/api/organizations/${org.organization.id}`, org.user.token)
    const changed = whileDeletionWaits(held, () =>
      send('PATCH', `/api/organizations/${org.organization.id}/collaborators/${pat.id}`, org.user.token, { project_ids: [org.web.id] }),
    )
    const [deleteRes, changeRes] = await Promise.all([deleted, changed, held.released])
    expect(deleteRes.status).toBe(204)
    // Done before the deletion (PGlite takes them in turn), or after it: the organization gone
    // when the request's access is resolved (404), or gone by the time it changes the member,
    // finding no admin left (403).
    expect([200, 403, 404]).toContain(changeRes.status)
    expect((await get(`/api/organizations/${org.organization.id}`, org.user.token)).status).toBe(404)
  })
})

describe('project_ids: a restricted collaborator sees only their projects', () => {
  let org: Awaited<ReturnType<typeof freshOrg>>
  let rita: TestUser
  let mobileError: { id: string; eventIds: string[] }
  let webError: { id: string; eventIds: string[] }

  beforeAll(async () => {
    org = await freshOrg('Owner')
    rita = await ctx.createUser('Rita')
    await addMember(org.organization.id, rita, false, [org.web.id])
    mobileError = (await seedErrors(ctx.deps.database, org.mobile.id, 1, { eventsPerError: 1 }))[0]!
    webError = (await seedErrors(ctx.deps.database, org.web.id, 1, { eventsPerError: 1 }))[0]!
  })

  it("lists only the organization's projects they may see", async () => {
    const res = await get(`/api/organizations/${org.organization.id}/projects`, rita.token)
    expect(res.status).toBe(200)
    expect(((await res.json()) as Project[]).map((p) => p.id)).toEqual([org.web.id])
    const all = (await (await get(`/api/organizations/${org.organization.id}/projects`, org.user.token)).json()) as Project[]
    expect(all.map((p) => p.id).sort()).toEqual([org.web.id, org.mobile.id].sort())
    // collaborators_count counts those who can see each project.
    expect(Object.fromEntries(all.map((p) => [p.id, p.collaborators_count]))).toEqual({ [org.web.id]: 2, [org.mobile.id]: 1 })
  })

  it('gets 404 for every way into another project, exactly like an outsider', async () => {
    const mobile = org.mobile.id
    const paths = [
      `/api/projects/${mobile}`,
      `/api/projects/${mobile}/errors`,
      `/api/projects/${mobile}/errors/${mobileError.id}`,
      `/api/projects/${mobile}/events`,
      `/api/projects/${mobile}/errors/${mobileError.id}/events`,
      `/api/errors/${mobileError.id}/events`,
      `/api/projects/${mobile}/events/${mobileError.eventIds[0]}`,
      `/api/events/${mobileError.eventIds[0]}`,
      `/api/projects/${mobile}/collaborators`,
    ]
    for (const path of paths) {
      const mine = await get(path, rita.token)
      const outsiders = await get(path, outsider.token)
      expect([path, mine.status]).toEqual([path, 404])
      expect(await mine.json()).toEqual(await outsiders.json())
    }
    expect((await send('DELETE', `/api/events/${mobileError.eventIds[0]}`, rita.token)).status).toBe(404)
  })

  it('sees their own project as usual', async () => {
    for (const path of [
      `/api/projects/${org.web.id}`,
      `/api/projects/${org.web.id}/errors`,
      `/api/errors/${webError.id}/events`,
      `/api/events/${webError.eventIds[0]}`,
    ]) {
      expect([path, (await get(path, rita.token)).status]).toEqual([path, 200])
    }
  })

  it("is listed among a project's collaborators only where they can see it", async () => {
    const web = (await (await get(`/api/projects/${org.web.id}/collaborators`, org.user.token)).json()) as Collaborator[]
    expect(web.map((c) => c.id).sort()).toEqual([org.user.id, rita.id].sort())
    expect(web.find((c) => c.id === rita.id)?.project_ids).toEqual([org.web.id])
    const mobile = (await (await get(`/api/projects/${org.mobile.id}/collaborators`, org.user.token)).json()) as Collaborator[]
    expect(mobile.map((c) => c.id)).toEqual([org.user.id])
  })

  it("sees other people's project_ids only for projects they can see themselves", async () => {
    const both = await ctx.createUser('Both')
    await addMember(org.organization.id, both, false, [org.web.id, org.mobile.id])
    const mobileOnly = await ctx.createUser('Mobile only')
    await addMember(org.organization.id, mobileOnly, false, [org.mobile.id])
    const listed = (await (await get(`/api/organizations/${org.organization.id}/collaborators`, rita.token)).json()) as Collaborator[]
    expect(listed.find((c) => c.id === both.id)?.project_ids).toEqual([org.web.id])
    expect(listed.find((c) => c.id === mobileOnly.id)?.project_ids).toEqual([])
    expect(JSON.stringify(listed)).not.toContain(org.mobile.id)
    const one = (await (await get(`/api/organizations/${org.organization.id}/collaborators/${both.id}`, rita.token)).json()) as Collaborator
    expect(one.project_ids).toEqual([org.web.id])
    const ofProject = (await (await get(`/api/projects/${org.web.id}/collaborators`, rita.token)).json()) as Collaborator[]
    expect(ofProject.find((c) => c.id === both.id)?.project_ids).toEqual([org.web.id])
    // Admins see everything as stored.
    const asAdmin = (await (await get(`/api/organizations/${org.organization.id}/collaborators/${both.id}`, org.user.token)).json()) as Collaborator
    expect(asAdmin.project_ids).toEqual([org.web.id, org.mobile.id])
  })

  it('an empty project_ids sees the organization but no project', async () => {
    const none = await ctx.createUser('Nobody')
    await addMember(org.organization.id, none, false, [])
    expect((await get(`/api/organizations/${org.organization.id}`, none.token)).status).toBe(200)
    expect(await (await get(`/api/organizations/${org.organization.id}/projects`, none.token)).json()).toEqual([])
    expect((await get(`/api/projects/${org.web.id}`, none.token)).status).toBe(404)
  })
})
