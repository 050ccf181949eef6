import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collaborators } from '../db/schema.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

let ctx: TestContext
let alice: TestUser
let mallory: TestUser

beforeAll(async () => {
  ctx = await createTestContext()
  alice = await ctx.createUser('Alice')
  mallory = await ctx.createUser('Mallory')
})
afterAll(() => ctx.close())

describe('organizations', () => {
  it('creates an organization whose creator is its admin, and lists it only for members', async () => {
    const created = await ctx.request('/api/user/organizations', { method: 'POST', token: alice.token, json: { name: 'Acme Corp' } })
    expect(created.status).toBe(201)
    expect(created.headers.get('X-Version')).toBe('2')
    const org = await created.json()
    expect(org).toMatchObject({ name: 'Acme Corp', slug: 'acme-corp' })
    expect(typeof org.id).toBe('string')

    const mine = await (await ctx.request('/api/user/organizations', { token: alice.token })).json()
    expect(mine.map((o: { id: string }) => o.id)).toEqual([org.id])
    const theirs = await (await ctx.request('/api/user/organizations', { token: mallory.token })).json()
    expect(theirs).toEqual([])

    const collaborators = await (await ctx.request(`/api/organizations/${org.id}/collaborators`, { token: alice.token })).json()
    expect(collaborators).toEqual([expect.objectContaining({ id: alice.id, is_admin: true })])
  })

  it('answers 404 to a user outside the organization, for read, update and delete', async () => {
    const org = await (await ctx.request('/api/user/organizations', { method: 'POST', token: alice.token, json: { name: 'Private' } })).json()
    expect((await ctx.request(`/api/organizations/${org.id}`, { token: mallory.token })).status).toBe(404)
    expect((await ctx.request(`/api/organizations/${org.id}`, { method: 'PATCH', token: mallory.token, json: { name: 'x' } })).status).toBe(404)
    expect((await ctx.request(`/api/organizations/${org.id}`, { method: 'DELETE', token: mallory.token })).status).toBe(404)
    expect((await ctx.request(`/api/organizations/${org.id}/projects`, { token: mallory.token })).status).toBe(404)
  })

  it('validates the name and names the field', async () => {
    const res = await ctx.request('/api/user/organizations', { method: 'POST', token: alice.token, json: { name: '' } })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ errors: [expect.stringContaining('name')] })
  })

  it('updates and deletes for admins', async () => {
    const org = await (await ctx.request('/api/user/organizations', { method: 'POST', token: alice.token, json: { name: 'Old' } })).json()
    const patched = await ctx.request(`/api/organizations/${org.id}`, { method: 'PATCH', token: alice.token, json: { name: 'New' } })
    expect(patched.status).toBe(200)
    expect(await patched.json()).toMatchObject({ id: org.id, name: 'New' })
    expect((await ctx.request(`/api/organizations/${org.id}`, { method: 'DELETE', token: alice.token })).status).toBe(204)
    expect((await ctx.request(`/api/organizations/${org.id}`, { token: alice.token })).status).toBe(404)
  })

  it('refuses its projects’ API keys at once once deleted, also while they are cached', async () => {
    const org = await (await ctx.request('/api/user/organizations', { method: 'POST', token: alice.token, json: { name: 'Closing' } })).json()
    const project = await (await ctx.request(`/api/organizations/${org.id}/projects`, { method: 'POST', token: alice.token, json: { name: 'App' } })).json()
    const notify = () =>
      ctx.request('/notify', {
        method: 'POST',
        headers: { 'Bugsnag-Api-Key': project.api_key },
        json: { events: [{ exceptions: [{ errorClass: 'Bye', message: 'bye', stacktrace: [] }] }] },
      })
    expect((await notify()).status).toBe(200)
    expect((await ctx.request(`/api/organizations/${org.id}`, { method: 'DELETE', token: alice.token })).status).toBe(204)
    expect((await notify()).status).toBe(401)
  })
})

describe('organizations: more cases', () => {
  it('returns the organization resource to members', async () => {
    const org = await (await ctx.request('/api/user/organizations', { method: 'POST', token: alice.token, json: { name: '  Spaced Name ' } })).json()
    expect(org).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: 'Spaced Name',
      slug: 'spaced-name',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    })
    const res = await ctx.request(`/api/organizations/${org.id}`, { token: alice.token })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual(org)
  })

  it('gives organizations with the same name distinct slugs', async () => {
    const a = await (await ctx.request('/api/user/organizations', { method: 'POST', token: alice.token, json: { name: 'Twin' } })).json()
    const b = await (await ctx.request('/api/user/organizations', { method: 'POST', token: mallory.token, json: { name: 'Twin' } })).json()
    expect(a.slug).toBe('twin')
    expect(b.slug).toMatch(/^twin-[0-9a-f]{6}$/)
  })

  it('gives organizations created at the same time under one name distinct slugs', async () => {
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => ctx.request('/api/user/organizations', { method: 'POST', token: alice.token, json: { name: 'Race Org' } })),
    )
    expect(responses.map((res) => res.status)).toEqual(Array(6).fill(201))
    const slugs = await Promise.all(responses.map(async (res) => ((await res.json()) as { slug: string }).slug))
    expect(new Set(slugs).size).toBe(6)
    expect(slugs.filter((slug) => slug === 'race-org')).toHaveLength(1)
    for (const slug of slugs) expect(slug).toMatch(/^race-org(-[0-9a-f]{6})?$/)
  })

  it('lists organizations oldest first', async () => {
    const user = await ctx.createUser('Lister')
    const names = ['First', 'Second', 'Third']
    for (const name of names) {
      await ctx.request('/api/user/organizations', { method: 'POST', token: user.token, json: { name } })
    }
    const list = await (await ctx.request('/api/user/organizations', { token: user.token })).json()
    expect(list.map((o: { name: string }) => o.name)).toEqual(names)
  })

  it('answers 403 to a non-admin member for update and delete, and lets them read', async () => {
    const org = await (await ctx.request('/api/user/organizations', { method: 'POST', token: alice.token, json: { name: 'Members' } })).json()
    const member = await ctx.createUser('Member')
    await ctx.deps.database.db.insert(collaborators).values({ organizationId: org.id, userId: member.id, isAdmin: false })
    expect((await ctx.request(`/api/organizations/${org.id}`, { token: member.token })).status).toBe(200)
    const patch = await ctx.request(`/api/organizations/${org.id}`, { method: 'PATCH', token: member.token, json: { name: 'Mine' } })
    expect(patch.status).toBe(403)
    expect(await patch.json()).toEqual({ errors: ['only organization admins may do this'] })
    expect((await ctx.request(`/api/organizations/${org.id}`, { method: 'DELETE', token: member.token })).status).toBe(403)
    expect((await (await ctx.request(`/api/organizations/${org.id}`, { token: alice.token })).json()).name).toBe('Members')
  })

  it('answers 404 for unknown organizations and 400 for bad or non-JSON bodies', async () => {
    const unknown = '000000000000000000000000'
    expect((await ctx.request(`/api/organizations/${unknown}`, { token: alice.token })).status).toBe(404)
    expect((await ctx.request(`/api/organizations/${unknown}`, { method: 'PATCH', token: alice.token, json: { name: 'x' } })).status).toBe(404)
    expect((await ctx.request(`/api/organizations/${unknown}`, { method: 'DELETE', token: alice.token })).status).toBe(404)

    const org = await (await ctx.request('/api/user/organizations', { method: 'POST', token: alice.token, json: { name: 'Valid' } })).json()
    const bad = await ctx.request(`/api/organizations/${org.id}`, { method: 'PATCH', token: alice.token, json: { name: 7 } })
    expect(bad.status).toBe(400)
    expect((await bad.json()).errors[0]).toMatch(/^name: /)
    const long = await ctx.request('/api/user/organizations', { method: 'POST', token: alice.token, json: { name: 'x'.repeat(201) } })
    expect((await long.json()).errors[0]).toMatch(/^name: must be at most 200/)
    const notJson = await ctx.request('/api/user/organizations', {
      method: 'POST',
      token: alice.token,
      headers: { 'Content-Type': 'application/json' },
      body: '{name: Acme}',
    })
    expect(notJson.status).toBe(400)
    expect(await notJson.json()).toEqual({ errors: ['request body is not valid JSON'] })
    // JSON that is not an object names the body, whatever the endpoint.
    for (const body of ['null', '[]', '123', '"Acme"']) {
      const notObject = await ctx.request('/api/user/organizations', { method: 'POST', token: alice.token, headers: { 'Content-Type': 'application/json' }, body })
      expect(notObject.status).toBe(400)
      expect(await notObject.json()).toEqual({ errors: ['request body: expected a JSON object'] })
    }
    // Only ingestion reads compressed bodies (notifiers send them); the API says so instead of "not JSON".
    const gzipped = await ctx.request('/api/user/organizations', {
      method: 'POST',
      token: alice.token,
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ name: 'Zipped' })),
    })
    expect(gzipped.status).toBe(415)
    expect(await gzipped.json()).toEqual({ errors: ['Content-Encoding: gzip is not supported by the API (send the JSON uncompressed)'] })
  })
})

describe('authentication and versioning', () => {
  it('needs a valid token', async () => {
    expect((await ctx.request('/api/user/organizations')).status).toBe(401)
    const bad = await ctx.request('/api/user/organizations', { token: 'nope' })
    expect(bad.status).toBe(401)
    expect(await bad.json()).toEqual({ errors: [expect.stringMatching(/token/)] })
  })

  it('rejects unknown X-Version values and answers 410 for the legacy API', async () => {
    const bad = await ctx.request('/api/user', { token: alice.token, headers: { 'X-Version': '3' } })
    expect(bad.status).toBe(400)
    expect((await bad.json()).errors[0]).toMatch(/X-Version/)
    const legacy = await ctx.request('/api/user/organizations', { token: alice.token, headers: { 'X-Version': '1' } })
    expect(legacy.status).toBe(410)
    expect(legacy.headers.get('X-Version')).toBe('1')
  })

  it('logs in with email and password and returns a working token', async () => {
    const wrong = await ctx.request('/api/auth/login', { method: 'POST', json: { email: alice.email, password: 'wrong' } })
    expect(wrong.status).toBe(401)
    const res = await ctx.request('/api/auth/login', { method: 'POST', json: { email: alice.email.toUpperCase(), password: 'correct horse battery' } })
    expect(res.status).toBe(200)
    const { token, user } = await res.json()
    expect(user.id).toBe(alice.id)
    const me = await ctx.request('/api/user', { token })
    expect((await me.json()).email).toBe(alice.email)
    expect((await ctx.request('/api/auth/logout', { method: 'POST', token })).status).toBe(204)
    expect((await ctx.request('/api/user', { token })).status).toBe(401)
  })
})
