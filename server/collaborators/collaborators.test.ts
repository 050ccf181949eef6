import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Collaborator } from '../../contract/collaborators.ts'
import { collaborators } from '../db/schema.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
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

function expectedAcme(): Collaborator[] {
  const carols = [carol, carol2]
    .sort((a, b) => (a.email < b.email ? -1 : 1))
    .map((u) => ({ id: u.id, name: 'Carol', email: u.email, is_admin: u === carol2 }))
  return [
    { id: bob.id, name: 'bob', email: bob.email, is_admin: false },
    ...carols,
    { id: acme.user.id, name: 'Dana Admin', email: acme.user.email, is_admin: true },
  ]
}

describe('GET /organizations/:organizationId/collaborators', () => {
  it('lists every collaborator sorted by name (case-insensitive), then email', async () => {
    const res = await get(`/api/organizations/${acme.organization.id}/collaborators`, acme.user.token)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual(expectedAcme())
  })

  it('is visible to non-admin members too', async () => {
    const res = await get(`/api/organizations/${acme.organization.id}/collaborators`, bob.token)
    expect(res.status).toBe(200)
    expect(await res.json()).toHaveLength(4)
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
    expect(await res.json()).toEqual({ id: bob.id, name: 'bob', email: bob.email, is_admin: false })
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
    expect(theirs).toEqual([{ id: other.user.id, name: 'Olga', email: other.user.email, is_admin: true }])
  })

  it('answers 404 to outsiders and for unknown projects', async () => {
    const res = await get(`/api/projects/${acme.project.id}/collaborators`, outsider.token)
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ errors: ['Project not found'] })
    expect((await get(`/api/projects/${acme.project.id}/collaborators`, other.user.token)).status).toBe(404)
    expect((await get('/api/projects/000000000000000000000000/collaborators', acme.user.token)).status).toBe(404)
  })
})
