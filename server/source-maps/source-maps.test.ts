import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SourceMap } from '../../contract/source-maps.ts'
import { sourceMapFiles, sourceMaps } from '../db/schema.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { readJsApp, uploadForm } from '../test-support/source-map-uploads.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

let ctx: TestContext
let seeded: SeededProject
let admin: TestUser
let member: TestUser
let restricted: TestUser
let outsider: TestUser
let otherProjectId: string
let base: string

const MAP = readJsApp('dist/app.min.js.map')

async function upload(fields: Record<string, string>) {
  const res = await ctx.request('/sourcemap', { method: 'POST', body: uploadForm({ apiKey: seeded.project.api_key, ...fields }, { sourceMap: MAP }) })
  expect(res.status).toBe(200)
}

async function addCollaborator(user: TestUser, projectIds: string[] | null) {
  const res = await ctx.request(`/api/organizations/${seeded.organization.id}/collaborators`, {
    method: 'POST',
    token: admin.token,
    json: { email: user.email, is_admin: false, project_ids: projectIds },
  })
  expect(res.status).toBe(201)
  // An invitation joins nobody until its user accepts it.
  const [invitation] = (await (await ctx.request('/api/user/invitations', { token: user.token })).json()) as { id: string }[]
  expect((await ctx.request(`/api/user/invitations/${invitation!.id}/accept`, { method: 'POST', token: user.token })).status).toBe(200)
}

beforeAll(async () => {
  ctx = await createTestContext()
  seeded = await seedProject(ctx, { user: 'Map Admin', organization: 'Maps Org', project: 'Shop', type: 'browser' })
  admin = seeded.user
  base = `/api/projects/${seeded.project.id}/source_maps`
  member = await ctx.createUser('Map Member')
  restricted = await ctx.createUser('Restricted Member')
  outsider = await ctx.createUser('Outsider')
  const other = await ctx.request(`/api/organizations/${seeded.organization.id}/projects`, { method: 'POST', token: admin.token, json: { name: 'Other' } })
  otherProjectId = ((await other.json()) as { id: string }).id
  await addCollaborator(member, null)
  await addCollaborator(restricted, [otherProjectId])
  await upload({ minifiedUrl: 'https://cdn.example.com/assets/app.min.js', appVersion: '1.0.0', projectRoot: '/builds/shop' })
  await upload({ minifiedUrl: 'https://cdn.example.com/assets/*.js', appVersion: '1.1.0' })
  await upload({ minifiedUrl: 'https://cdn.example.com/assets/vendor.js' })
  await ctx.request('/react-native-source-map', {
    method: 'POST',
    body: uploadForm({ apiKey: seeded.project.api_key, platform: 'android', appVersion: '2.0.0', appVersionCode: '7', dev: 'true' }, { sourceMap: MAP }),
  })
})
afterAll(async () => {
  await ctx?.close()
})

const list = async (query = '', token = admin.token) => ctx.request(`${base}${query}`, { token })

describe('GET /projects/{id}/source_maps', () => {
  it('lists the uploads newest first with what the dashboard shows', async () => {
    const res = await list()
    expect(res.status).toBe(200)
    expect(res.headers.get('X-Total-Count')).toBe('4')
    expect(res.headers.get('Link')).toBeNull()
    const maps = (await res.json()) as SourceMap[]
    expect(maps.map((map) => map.minified_url)).toEqual([null, 'https://cdn.example.com/assets/vendor.js', 'https://cdn.example.com/assets/*.js', 'https://cdn.example.com/assets/app.min.js'])
    expect(maps[3]).toEqual({
      id: expect.any(String),
      project_id: seeded.project.id,
      type: 'js',
      minified_url: 'https://cdn.example.com/assets/app.min.js',
      app_version: '1.0.0',
      code_bundle_id: null,
      platform: null,
      app_version_code: null,
      dev: false,
      project_root: '/builds/shop',
      map_file: null,
      sources_count: 2,
      has_minified_file: false,
      size_bytes: Buffer.byteLength(MAP),
      stored_bytes: expect.any(Number),
      uploaded_by: { type: 'api_key' },
      uploaded_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      events_mapped: 0,
      url: `http://errata.test/api/projects/${seeded.project.id}/source_maps/${maps[3]!.id}`,
    })
    expect(maps[3]!.stored_bytes).toBeLessThan(maps[3]!.size_bytes)
    expect(maps[2]!.app_version).toBe('1.1.0')
    expect(maps[1]!.app_version).toBeNull()
    expect(maps[0]).toMatchObject({ type: 'react_native', platform: 'android', app_version: '2.0.0', app_version_code: '7', dev: true })
  })

  it('pages with per_page, a Link to the next page and X-Total-Count', async () => {
    const first = await list('?per_page=3')
    expect(first.headers.get('X-Total-Count')).toBe('4')
    const link = first.headers.get('Link')!
    expect(link).toMatch(/^<http:\/\/errata\.test\/api\/projects\/\w+\/source_maps\?per_page=3&cursor=[\w-]+>; rel="next"$/)
    const next = await ctx.request(link.slice(link.indexOf('/api'), link.indexOf('>')), { token: admin.token })
    expect(next.status).toBe(200)
    const all = [...((await first.json()) as SourceMap[]), ...((await next.json()) as SourceMap[])]
    expect(all).toHaveLength(4)
    expect(new Set(all.map((map) => map.id)).size).toBe(4)
    expect(next.headers.get('Link')).toBeNull()
  })

  it('searches the URL pattern and app version', async () => {
    const byUrl = (await (await list('?q=VENDOR')).json()) as SourceMap[]
    expect(byUrl.map((map) => map.minified_url)).toEqual(['https://cdn.example.com/assets/vendor.js'])
    const byVersion = await list('?q=1.1')
    expect(byVersion.headers.get('X-Total-Count')).toBe('1')
    // LIKE wildcards are plain text.
    expect((await (await list('?q=%25')).json()) as SourceMap[]).toEqual([])
  })

  it('400 for a bad per_page or a cursor it did not issue', async () => {
    const perPage = await list('?per_page=0')
    expect(perPage.status).toBe(400)
    expect((await perPage.json()).errors).toEqual(['per_page: must be at least 1'])
    const cursor = await list('?cursor=bogus')
    expect(cursor.status).toBe(400)
    expect((await cursor.json()).errors[0]).toMatch(/^cursor: /)
  })

  it('shows members their project, and answers 404 to anyone who cannot see it', async () => {
    expect((await list('', member.token)).status).toBe(200)
    const hidden = await list('', restricted.token)
    expect(hidden.status).toBe(404)
    expect((await hidden.json()).errors).toEqual(['Project not found'])
    expect((await list('', outsider.token)).status).toBe(404)
    expect((await ctx.request(base)).status).toBe(401)
  })
})

describe('GET and DELETE /projects/{id}/source_maps/{source_map_id}', () => {
  it('reads one upload; 404 for an id of another project or none', async () => {
    const [first] = (await (await list()).json()) as SourceMap[]
    const one = await ctx.request(`${base}/${first!.id}`, { token: member.token })
    expect(one.status).toBe(200)
    expect(await one.json()).toEqual(first)
    expect((await ctx.request(`/api/projects/${otherProjectId}/source_maps/${first!.id}`, { token: admin.token })).status).toBe(404)
    expect((await ctx.request(`${base}/ffffffffffffffffffffffff`, { token: admin.token })).status).toBe(404)
    expect((await ctx.request(`${base}/${first!.id}`, { token: outsider.token })).status).toBe(404)
  })

  it('lets admins delete an upload with its files: 403 for members, 404 for outsiders', async () => {
    const maps = (await (await list()).json()) as SourceMap[]
    const target = maps.find((map) => map.minified_url?.endsWith('vendor.js'))!
    const asMember = await ctx.request(`${base}/${target.id}`, { method: 'DELETE', token: member.token })
    expect(asMember.status).toBe(403)
    expect((await asMember.json()).errors).toEqual(['only organization admins may do this'])
    expect((await ctx.request(`${base}/${target.id}`, { method: 'DELETE', token: restricted.token })).status).toBe(404)
    expect((await ctx.request(`${base}/${target.id}`, { method: 'DELETE', token: outsider.token })).status).toBe(404)

    const deleted = await ctx.request(`${base}/${target.id}`, { method: 'DELETE', token: admin.token })
    expect(deleted.status).toBe(204)
    const db = ctx.deps.database.db
    expect(await db.select().from(sourceMaps).where(eq(sourceMaps.id, target.id))).toEqual([])
    expect(await db.select().from(sourceMapFiles).where(eq(sourceMapFiles.sourceMapId, target.id))).toEqual([])
    expect((await list()).headers.get('X-Total-Count')).toBe('3')
    expect((await ctx.request(`${base}/${target.id}`, { method: 'DELETE', token: admin.token })).status).toBe(404)
  })

  it('answers 405 for other methods on the list', async () => {
    const res = await ctx.request(base, { method: 'PUT', token: admin.token })
    expect(res.status).toBe(405)
    expect(res.headers.get('Allow')).toBe('GET, HEAD, POST')
  })
})

describe("POST /projects/{id}/source_maps (the dashboard's upload)", () => {
  const dashboardUpload = (token: string | undefined, fields: Record<string, string>, map = MAP, projectId = seeded.project.id) =>
    ctx.request(`/api/projects/${projectId}/source_maps`, { method: 'POST', token, body: uploadForm(fields, { sourceMap: map }) })

  it("records the signed-in member as the uploader, and the list shows their name and email", async () => {
    const res = await dashboardUpload(member.token, { minifiedUrl: 'https://cdn.example.com/assets/dashboard.min.js', appVersion: '3.0.0' })
    expect(res.status).toBe(201)
    const created = (await res.json()) as SourceMap
    const uploader = { type: 'user', id: member.id, name: 'Map Member', email: member.email }
    expect(created).toMatchObject({ minified_url: 'https://cdn.example.com/assets/dashboard.min.js', app_version: '3.0.0', uploaded_by: uploader })
    const listed = ((await (await list('?q=dashboard')).json()) as SourceMap[])[0]
    expect(listed).toEqual(created)
    // The upload tools' key names no person.
    const byTool = ((await (await list('?q=app.min.js')).json()) as SourceMap[])[0]
    expect(byTool!.uploaded_by).toEqual({ type: 'api_key' })
  })

  it("takes maps larger than the API's JSON body limit (the upload's own limits apply)", async () => {
    const json = JSON.parse(MAP) as { sources: string[]; sourcesContent?: string[] }
    json.sourcesContent = json.sources.map(() => '// padding\n'.repeat(40_000))
    const big = JSON.stringify(json)
    expect(big.length).toBeGreaterThan(ctx.deps.config.limits.apiBodyBytes)
    const res = await dashboardUpload(admin.token, { minifiedUrl: 'https://cdn.example.com/assets/big.min.js' }, big)
    expect(res.status).toBe(201)
    expect(((await res.json()) as SourceMap).size_bytes).toBe(Buffer.byteLength(big))
  })

  it('refuses an apiKey field and checks the fields as POST /sourcemap does', async () => {
    const withKey = await dashboardUpload(member.token, { apiKey: seeded.project.api_key, minifiedUrl: 'https://cdn.example.com/k.js' })
    expect(withKey.status).toBe(400)
    expect((await withKey.json()).errors).toEqual(["apiKey: not used on this endpoint; the signed-in user's token authorizes the upload"])
    const noUrl = await dashboardUpload(member.token, { appVersion: '3.0.1' })
    expect(noUrl.status).toBe(400)
    expect((await noUrl.json()).errors).toEqual(['minifiedUrl: missing; send the URL (or, for Node, the path) of the minified file, * wildcards allowed'])
    const again = await dashboardUpload(member.token, { minifiedUrl: 'https://cdn.example.com/assets/dashboard.min.js', appVersion: '3.0.0' })
    expect(again.status).toBe(409)
    const notJson = await dashboardUpload(member.token, { minifiedUrl: 'https://cdn.example.com/x.js' }, '{"version": 2')
    expect(notJson.status).toBe(400)
  })

  it('answers 404 to anyone who cannot see the project and 401 without a token, storing nothing', async () => {
    const before = (await list()).headers.get('X-Total-Count')
    expect((await dashboardUpload(restricted.token, { minifiedUrl: 'https://cdn.example.com/r.js' })).status).toBe(404)
    expect((await dashboardUpload(outsider.token, { minifiedUrl: 'https://cdn.example.com/o.js' })).status).toBe(404)
    expect((await dashboardUpload(undefined, { minifiedUrl: 'https://cdn.example.com/a.js' })).status).toBe(401)
    expect((await list()).headers.get('X-Total-Count')).toBe(before)
  })
})
