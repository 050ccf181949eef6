import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Project } from '../../contract/projects.ts'
import { collaborators, errors, events } from '../db/schema.ts'
import { notifierEvent } from '../test-support/ingest.ts'
import { seedErrors, seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

let ctx: TestContext
let acme: SeededProject
let member: TestUser
let outsider: TestUser

beforeAll(async () => {
  ctx = await createTestContext()
  acme = await seedProject(ctx, { user: 'Admin', organization: 'Acme', project: 'Web' })
  member = await ctx.createUser('Member')
  outsider = await ctx.createUser('Outsider')
  await ctx.deps.database.db
    .insert(collaborators)
    .values({ organizationId: acme.organization.id, userId: member.id, isAdmin: false })
})
afterAll(() => ctx.close())

const orgProjects = () => `/api/organizations/${acme.organization.id}/projects`

async function createProject(json: unknown, token = acme.user.token): Promise<Response> {
  return ctx.request(orgProjects(), { method: 'POST', token, json })
}

describe('POST /organizations/:organizationId/projects', () => {
  it('creates a project with a 32-hex-character API key and default type "other"', async () => {
    const res = await createProject({ name: 'Checkout Service' })
    expect(res.status).toBe(201)
    const project = (await res.json()) as Project
    expect(project).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      organization_id: acme.organization.id,
      name: 'Checkout Service',
      slug: 'checkout-service',
      type: 'other',
      api_key: expect.stringMatching(/^[0-9a-f]{32}$/),
      collaborators_count: 2,
      open_error_count: 0,
      release_stages: [],
      event_retention_days: null,
      effective_event_retention_days: 90,
      default_event_retention_days: 90,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      html_url: `http://errata.test/projects/${project.id}/errors`,
    })
    expect(new Date(project.created_at).toISOString()).toBe(project.created_at)
    expect(project.api_key).not.toBe(acme.project.api_key)
  })

  it('keeps slugs unique within an organization, but not across organizations', async () => {
    const first = (await (await createProject({ name: 'My App', type: 'node' })).json()) as Project
    const second = (await (await createProject({ name: 'my app!', type: 'js' })).json()) as Project
    expect(first.slug).toBe('my-app')
    expect(second.slug).toMatch(/^my-app-[0-9a-f]{6}$/)
    const elsewhere = await seedProject(ctx, { user: 'Else', organization: 'Elsewhere', project: 'My App' })
    expect(elsewhere.project.slug).toBe('my-app')
  })

  it('gives projects created at the same time under one name distinct slugs', async () => {
    const responses = await Promise.all(Array.from({ length: 8 }, () => createProject({ name: 'Race App', type: 'node' })))
    expect(responses.map((res) => res.status)).toEqual(Array(8).fill(201))
    const slugs = await Promise.all(responses.map(async (res) => ((await res.json()) as Project).slug))
    expect(new Set(slugs).size).toBe(8)
    expect(slugs.filter((slug) => slug === 'race-app')).toHaveLength(1)
    for (const slug of slugs) expect(slug).toMatch(/^race-app(-[0-9a-f]{6})?$/)
  })

  it('answers 400 naming the field for a bad body, and for a body that is not JSON', async () => {
    const cases: [unknown, RegExp][] = [
      [{}, /^name: /],
      [{ name: '' }, /^name: must not be empty/],
      [{ name: '   ' }, /^name: must not be empty/],
      [{ name: 'x'.repeat(201) }, /^name: must be at most 200/],
      [{ name: 'Ok', type: 'cobol' }, /^type: /],
      [{ name: 42 }, /^name: /],
    ]
    for (const [json, message] of cases) {
      const res = await createProject(json)
      expect(res.status, JSON.stringify(json)).toBe(400)
      expect((await res.json()).errors[0]).toMatch(message)
    }
    const notJson = await ctx.request(orgProjects(), {
      method: 'POST',
      token: acme.user.token,
      headers: { 'Content-Type': 'application/json' },
      body: '{"name": ',
    })
    expect(notJson.status).toBe(400)
    expect(await notJson.json()).toEqual({ errors: ['request body is not valid JSON'] })
  })

  it('answers 413 for a body over the API limit', async () => {
    const res = await createProject({ name: 'x'.repeat(300 * 1024) })
    expect(res.status).toBe(413)
    expect((await res.json()).errors[0]).toMatch(/larger than the limit/)
  })

  it('refuses non-admin members (403) and outsiders (404)', async () => {
    const byMember = await createProject({ name: 'Nope' }, member.token)
    expect(byMember.status).toBe(403)
    expect(await byMember.json()).toEqual({ errors: ['only organization admins may do this'] })
    expect((await createProject({ name: 'Nope' }, outsider.token)).status).toBe(404)
    const unknown = await ctx.request('/api/organizations/000000000000000000000000/projects', {
      method: 'POST',
      token: acme.user.token,
      json: { name: 'Nope' },
    })
    expect(unknown.status).toBe(404)
  })
})

describe('GET /organizations/:organizationId/projects and /projects/:projectId', () => {
  it('lists the organization’s projects oldest first, to any member', async () => {
    const res = await ctx.request(orgProjects(), { token: member.token })
    expect(res.status).toBe(200)
    const list = (await res.json()) as Project[]
    expect(list[0]!.id).toBe(acme.project.id)
    expect(list.every((p) => p.organization_id === acme.organization.id)).toBe(true)
    const times = list.map((p) => p.created_at)
    expect([...times].sort()).toEqual(times)
  })

  it('counts open errors and collaborators', async () => {
    const { project, user } = await seedProject(ctx, { user: 'Counter', organization: 'Counting', project: 'Counted' })
    await seedErrors(ctx.deps.database, project.id, 7, {
      overrides: (i) => ({ status: i < 2 ? 'fixed' : i === 2 ? 'ignored' : 'open' }),
    })
    const extra = await ctx.createUser('Extra')
    await ctx.deps.database.db.insert(collaborators).values({ organizationId: project.organization_id, userId: extra.id })
    const one = (await (await ctx.request(`/api/projects/${project.id}`, { token: user.token })).json()) as Project
    expect(one.open_error_count).toBe(4)
    expect(one.collaborators_count).toBe(2)
    const [listed] = (await (
      await ctx.request(`/api/organizations/${project.organization_id}/projects`, { token: extra.token })
    ).json()) as Project[]
    expect(listed).toMatchObject({ id: project.id, open_error_count: 4, collaborators_count: 2 })
  })

  it('answers 404 to outsiders and for unknown ids', async () => {
    expect((await ctx.request(orgProjects(), { token: outsider.token })).status).toBe(404)
    const res = await ctx.request(`/api/projects/${acme.project.id}`, { token: outsider.token })
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ errors: ['Project not found'] })
    expect((await ctx.request('/api/projects/000000000000000000000000', { token: acme.user.token })).status).toBe(404)
    expect((await ctx.request(`/api/projects/${acme.project.id}`)).status).toBe(401)
  })

  it('returns one project to a member', async () => {
    const res = await ctx.request(`/api/projects/${acme.project.id}`, { token: member.token })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ id: acme.project.id, name: 'Web', api_key: acme.project.api_key })
  })
})

describe('PATCH /projects/:projectId', () => {
  it('updates the name and type and answers the updated project', async () => {
    const project = (await (await createProject({ name: 'Renamable' })).json()) as Project
    const res = await ctx.request(`/api/projects/${project.id}`, {
      method: 'PATCH',
      token: acme.user.token,
      json: { name: 'Renamed', type: 'python' },
    })
    expect(res.status).toBe(200)
    const updated = (await res.json()) as Project
    expect(updated).toMatchObject({ id: project.id, name: 'Renamed', type: 'python', api_key: project.api_key })
    expect(updated.updated_at >= project.updated_at).toBe(true)
    const typeOnly = await ctx.request(`/api/projects/${project.id}`, {
      method: 'PATCH',
      token: acme.user.token,
      json: { type: 'go' },
    })
    expect(await typeOnly.json()).toMatchObject({ name: 'Renamed', type: 'go' })
  })

  it('answers 400 for an empty or bad update', async () => {
    const path = `/api/projects/${acme.project.id}`
    const empty = await ctx.request(path, { method: 'PATCH', token: acme.user.token, json: {} })
    expect(empty.status).toBe(400)
    expect((await empty.json()).errors[0]).toBe('body: give at least one of name, type, event_retention_days')
    const bad = await ctx.request(path, { method: 'PATCH', token: acme.user.token, json: { type: 'cobol' } })
    expect(bad.status).toBe(400)
    expect((await bad.json()).errors[0]).toMatch(/^type: /)
  })

  it('refuses non-admin members (403) and outsiders (404)', async () => {
    const path = `/api/projects/${acme.project.id}`
    expect((await ctx.request(path, { method: 'PATCH', token: member.token, json: { name: 'x' } })).status).toBe(403)
    expect((await ctx.request(path, { method: 'PATCH', token: outsider.token, json: { name: 'x' } })).status).toBe(404)
    const unchanged = (await (await ctx.request(path, { token: acme.user.token })).json()) as Project
    expect(unchanged.name).toBe('Web')
  })
})

describe('event retention', () => {
  const path = () => `/api/projects/${acme.project.id}`
  const patch = (json: unknown, token = acme.user.token) => ctx.request(path(), { method: 'PATCH', token, json })

  it('shows the server default until an admin sets days of its own, and null puts the default back', async () => {
    const shown = (await (await ctx.request(path(), { token: acme.user.token })).json()) as Project
    expect(shown).toMatchObject({ event_retention_days: null, effective_event_retention_days: ctx.deps.config.retention.defaultDays })
    const set = await patch({ event_retention_days: 30 })
    expect(set.status).toBe(200)
    expect(await set.json()).toMatchObject({ event_retention_days: 30, effective_event_retention_days: 30, default_event_retention_days: 90, name: 'Web' })
    const listed = (await (await ctx.request(orgProjects(), { token: acme.user.token })).json()) as Project[]
    expect(listed.find((p) => p.id === acme.project.id)).toMatchObject({ event_retention_days: 30 })
    const reset = await patch({ event_retention_days: null })
    expect(await reset.json()).toMatchObject({ event_retention_days: null, effective_event_retention_days: ctx.deps.config.retention.defaultDays })
  })

  it('answers 400 naming the field for days out of range or not whole', async () => {
    for (const bad of [0, 3651, 1.5, '30', true]) {
      const res = await patch({ event_retention_days: bad })
      expect(res.status, String(bad)).toBe(400)
      expect((await res.json()).errors[0]).toMatch(/^event_retention_days: /)
    }
  })

  it('refuses non-admin members (403)', async () => {
    expect((await patch({ event_retention_days: 7 }, member.token)).status).toBe(403)
    const unchanged = (await (await ctx.request(path(), { token: member.token })).json()) as Project
    expect(unchanged.event_retention_days).toBeNull()
  })
})

describe('DELETE /projects/:projectId', () => {
  it('refuses non-admin members (403) and outsiders (404)', async () => {
    const path = `/api/projects/${acme.project.id}`
    expect((await ctx.request(path, { method: 'DELETE', token: member.token })).status).toBe(403)
    expect((await ctx.request(path, { method: 'DELETE', token: outsider.token })).status).toBe(404)
    expect((await ctx.request(path, { token: acme.user.token })).status).toBe(200)
  })

  it('deletes the project with its errors and events', async () => {
    const project = (await (await createProject({ name: 'Doomed' })).json()) as Project
    const seeded = await seedErrors(ctx.deps.database, project.id, 3, { eventsPerError: 2 })
    const res = await ctx.request(`/api/projects/${project.id}`, { method: 'DELETE', token: acme.user.token })
    expect(res.status).toBe(204)
    expect((await ctx.request(`/api/projects/${project.id}`, { token: acme.user.token })).status).toBe(404)
    const db = ctx.deps.database.db
    expect(await db.select().from(errors).where(eq(errors.projectId, project.id))).toEqual([])
    expect(await db.select().from(events).where(eq(events.errorId, seeded[0]!.id))).toEqual([])
    expect((await ctx.request(`/api/projects/${project.id}`, { method: 'DELETE', token: acme.user.token })).status).toBe(404)
  })

  it('refuses the deleted project’s API key at once, also while it is cached', async () => {
    const project = (await (await createProject({ name: 'Gone' })).json()) as Project
    const notify = () =>
      ctx.request('/notify', { method: 'POST', headers: { 'Bugsnag-Api-Key': project.api_key }, json: { events: [notifierEvent('AfterDelete')] } })
    expect((await notify()).status).toBe(200)
    expect((await ctx.request(`/api/projects/${project.id}`, { method: 'DELETE', token: acme.user.token })).status).toBe(204)
    const res = await notify()
    expect(res.status).toBe(401)
    expect((await res.json()).errors).toEqual(['invalid API key: no project has this API key'])
  })
})

describe('DELETE /projects/:projectId/api_key', () => {
  const notify = (apiKey: string) =>
    ctx.request('/notify', {
      method: 'POST',
      headers: { 'Bugsnag-Api-Key': apiKey, 'Bugsnag-Payload-Version': '4' },
      json: { events: [notifierEvent('KeyRotation')] },
    })

  it('gives the project a new key: the old one is refused at once, the new one accepted', async () => {
    const project = (await (await createProject({ name: 'Leaky' })).json()) as Project
    // The old key is in the ingestion cache now, as for any notifier sending with it.
    expect((await notify(project.api_key)).status).toBe(200)

    const res = await ctx.request(`/api/projects/${project.id}/api_key`, { method: 'DELETE', token: acme.user.token })
    expect(res.status).toBe(200)
    const updated = (await res.json()) as Project
    expect(updated).toMatchObject({ id: project.id, name: 'Leaky', api_key: expect.stringMatching(/^[0-9a-f]{32}$/) })
    expect(updated.api_key).not.toBe(project.api_key)
    expect(updated.updated_at >= project.updated_at).toBe(true)
    const read = (await (await ctx.request(`/api/projects/${project.id}`, { token: acme.user.token })).json()) as Project
    expect(read.api_key).toBe(updated.api_key)

    const old = await notify(project.api_key)
    expect(old.status).toBe(401)
    expect((await old.json()).errors[0]).toMatch(/invalid API key/)
    expect((await notify(updated.api_key)).status).toBe(200)
    const stored = await ctx.deps.database.db.select().from(errors).where(eq(errors.projectId, project.id))
    expect(stored.map((row) => row.eventsCount)).toEqual([2])
  })

  it('refuses non-admin members (403) and outsiders (404), and keeps the key', async () => {
    const path = `/api/projects/${acme.project.id}/api_key`
    const byMember = await ctx.request(path, { method: 'DELETE', token: member.token })
    expect(byMember.status).toBe(403)
    expect(await byMember.json()).toEqual({ errors: ['only organization admins may do this'] })
    const byOutsider = await ctx.request(path, { method: 'DELETE', token: outsider.token })
    expect(byOutsider.status).toBe(404)
    expect(await byOutsider.json()).toEqual({ errors: ['Project not found'] })
    expect((await ctx.request('/api/projects/000000000000000000000000/api_key', { method: 'DELETE', token: acme.user.token })).status).toBe(404)
    expect((await ctx.request(path, { method: 'DELETE' })).status).toBe(401)
    const unchanged = (await (await ctx.request(`/api/projects/${acme.project.id}`, { token: acme.user.token })).json()) as Project
    expect(unchanged.api_key).toBe(acme.project.api_key)
    expect((await notify(acme.project.api_key)).status).toBe(200)
  })
})
