// The authorization matrix: every endpoint of the Data Access API, as the app itself lists its
// routes, against every kind of caller: anonymous, a bad token, a user of another organization
// (outsider), a member restricted to another project, a member and an admin. Outsiders and
// members who cannot see the project get 404 (existence is not revealed), members lacking a role
// 403, anyone without a valid token 401; callers who may act are never refused. A route that is
// not in RULES fails the test, so a new endpoint cannot ship unclassified.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Organization } from '../contract/organizations.ts'
import type { Project } from '../contract/projects.ts'
import { createToken } from './auth/tokens.ts'
import { collaborators } from './db/schema.ts'
import { notifierEvent } from './test-support/ingest.ts'
import { seedProject } from './test-support/seed.ts'
import { readJsApp, uploadForm } from './test-support/source-map-uploads.ts'
import { createTestContext, type TestContext, type TestUser } from './test-support/test-app.ts'
import { parseAllowList } from './outbound/allow-list.ts'
import { writeMinidump } from './test-support/minidump-writer.ts'
import { isLegacyHandler } from './legacy/legacy-route.ts'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Who may call a route. `member`: anyone who can see the organization or project; `admin`: its
 * admins (members get 403); `user`: any signed-in user, about their own account (ids in the path
 * are the user's own; anyone else's answer 404); `public`: no sign-in (secret links).
 */
type Rule = 'member' | 'admin' | 'user' | 'public'

const RULES: Record<string, Rule> = {
  'POST /api/auth/login': 'public',
  'GET /api/auth/password-reset': 'public',
  'POST /api/auth/password-reset': 'public',
  'POST /api/auth/password-reset/confirm': 'public',
  'POST /api/auth/logout': 'user',
  'GET /api/invitations/:token': 'public',
  'POST /api/invitations/:token/accept': 'public',
  'GET /api/user': 'user',
  'GET /api/user/invitations': 'user',
  'DELETE /api/user/invitations/:invitationId': 'user',
  'POST /api/user/invitations/:invitationId/accept': 'user',
  'GET /api/user/organizations': 'user',
  'POST /api/user/organizations': 'user',
  'GET /api/user/tokens': 'user',
  'POST /api/user/tokens': 'user',
  'DELETE /api/user/tokens/:tokenId': 'user',
  'GET /api/user/notifications': 'user',
  'PUT /api/user/notifications/projects/:projectId': 'member',
  'GET /api/notifications/unsubscribe': 'public',
  'POST /api/notifications/unsubscribe': 'public',
  'POST /api/notifications/subscribe': 'public',

  'GET /api/organizations/:organizationId': 'member',
  'PATCH /api/organizations/:organizationId': 'admin',
  'DELETE /api/organizations/:organizationId': 'admin',
  'GET /api/organizations/:organizationId/collaborators': 'member',
  'POST /api/organizations/:organizationId/collaborators': 'admin',
  'GET /api/organizations/:organizationId/collaborators/:collaboratorId': 'member',
  'PATCH /api/organizations/:organizationId/collaborators/:collaboratorId': 'admin',
  'DELETE /api/organizations/:organizationId/collaborators/:collaboratorId': 'admin',
  'GET /api/organizations/:organizationId/projects': 'member',
  'POST /api/organizations/:organizationId/projects': 'admin',
  'GET /api/organizations/:organizationId/event_data_preview': 'admin',
  'GET /api/organizations/:organizationId/event_data_requests': 'admin',
  'POST /api/organizations/:organizationId/event_data_requests': 'admin',
  'GET /api/organizations/:organizationId/event_data_requests/:requestId': 'admin',
  'GET /api/organizations/:organizationId/event_data_requests/:requestId/download': 'admin',
  'GET /api/organizations/:organizationId/event_data_deletions': 'admin',
  'POST /api/organizations/:organizationId/event_data_deletions': 'admin',
  'GET /api/organizations/:organizationId/event_data_deletions/:deletionId': 'admin',
  'POST /api/organizations/:organizationId/event_data_deletions/:deletionId/confirm': 'admin',
  'GET /api/organizations/:organizationId/storage': 'admin',
  'GET /api/organizations/:organizationId/api_tokens': 'admin',
  'POST /api/organizations/:organizationId/api_tokens': 'admin',
  'DELETE /api/organizations/:organizationId/api_tokens/:apiTokenId': 'admin',

  'GET /api/projects/:projectId': 'member',
  'PATCH /api/projects/:projectId': 'admin',
  'DELETE /api/projects/:projectId': 'admin',
  'DELETE /api/projects/:projectId/api_key': 'admin',
  'GET /api/projects/:projectId/storage': 'admin',
  'GET /api/projects/:projectId/collaborators': 'member',
  'GET /api/projects/:projectId/errors': 'member',
  // Every operation of the bulk PATCH and of one error's, merge and unmerge among them (OPERATIONS below).
  'PATCH /api/projects/:projectId/errors': 'member',
  'GET /api/projects/:projectId/errors/:errorId': 'member',
  'PATCH /api/projects/:projectId/errors/:errorId': 'member',
  'GET /api/projects/:projectId/errors/:errorId/comments': 'member',
  'POST /api/projects/:projectId/errors/:errorId/comments': 'member',
  'GET /api/projects/:projectId/errors/:errorId/events': 'member',
  'GET /api/projects/:projectId/errors/:errorId/latest_event': 'member',
  'GET /api/projects/:projectId/errors/:errorId/pivots': 'member',
  'GET /api/projects/:projectId/errors/:errorId/remapped': 'member',
  'GET /api/projects/:projectId/errors/:errorId/pivots/:displayId/values': 'member',
  'GET /api/projects/:projectId/errors/:errorId/status_changes': 'member',
  'GET /api/projects/:projectId/errors/:errorId/trend': 'member',
  'GET /api/projects/:projectId/errors/:errorId/trends': 'member',
  'GET /api/projects/:projectId/error_trends': 'member',
  'GET /api/projects/:projectId/error_status_counts': 'member',
  'GET /api/projects/:projectId/event_fields': 'member',
  'GET /api/projects/:projectId/events': 'member',
  'GET /api/projects/:projectId/events/:eventId': 'member',
  'DELETE /api/projects/:projectId/events/:eventId': 'admin',
  'GET /api/projects/:projectId/pivots': 'member',
  'GET /api/projects/:projectId/pivots/:displayId/values': 'member',
  'GET /api/projects/:projectId/release_groups': 'member',
  'GET /api/projects/:projectId/releases': 'member',
  'GET /api/projects/:projectId/releases/:releaseId': 'member',
  'GET /api/projects/:projectId/source_maps': 'member',
  'POST /api/projects/:projectId/source_maps': 'member',
  'GET /api/projects/:projectId/source_maps/:sourceMapId': 'member',
  'DELETE /api/projects/:projectId/source_maps/:sourceMapId': 'admin',
  'GET /api/projects/:projectId/native_symbols': 'member',
  'POST /api/projects/:projectId/native_symbols': 'member',
  'DELETE /api/projects/:projectId/native_symbols/:symbolFileId': 'admin',
  'GET /api/projects/:projectId/events/:eventId/minidump': 'admin',
  'GET /api/projects/:projectId/stability': 'member',
  'GET /api/projects/:projectId/stability/trend': 'member',
  'GET /api/projects/:projectId/trend': 'member',
  'GET /api/projects/:projectId/trends': 'member',
  'GET /api/projects/:projectId/rate_limit': 'member',
  'PATCH /api/projects/:projectId/rate_limit': 'admin',
  'GET /api/projects/:projectId/webhooks': 'member',
  'POST /api/projects/:projectId/webhooks': 'admin',
  'GET /api/projects/:projectId/event_data_preview': 'admin',
  'GET /api/projects/:projectId/event_data_requests': 'admin',
  'POST /api/projects/:projectId/event_data_requests': 'admin',
  'GET /api/projects/:projectId/event_data_requests/:requestId': 'admin',
  'GET /api/projects/:projectId/event_data_requests/:requestId/download': 'admin',
  'GET /api/projects/:projectId/event_data_deletions': 'admin',
  'POST /api/projects/:projectId/event_data_deletions': 'admin',
  'GET /api/projects/:projectId/event_data_deletions/:deletionId': 'admin',
  'POST /api/projects/:projectId/event_data_deletions/:deletionId/confirm': 'admin',

  // Resources addressed by their own id are authorized through the project they belong to.
  'GET /api/errors/:errorId/events': 'member',
  'GET /api/events/:eventId': 'member',
  'DELETE /api/events/:eventId': 'admin',
  'GET /api/comments/:commentId': 'member',
  // Their author or an admin; the comment used here is the admin's.
  'PATCH /api/comments/:commentId': 'admin',
  'DELETE /api/comments/:commentId': 'admin',
  'GET /api/release_groups/:releaseGroupId': 'member',
  'GET /api/release_groups/:releaseGroupId/releases': 'member',
  'GET /api/webhooks/:webhookId': 'member',
  'PATCH /api/webhooks/:webhookId': 'admin',
  'DELETE /api/webhooks/:webhookId': 'admin',
  'GET /api/webhooks/:webhookId/deliveries': 'member',
  'POST /api/webhooks/:webhookId/test': 'admin',
  'POST /api/webhooks/:webhookId/deliveries/:deliveryId/redeliver': 'admin',
}

/**
 * The legacy v1 API's routes (server/legacy/), reached with no X-Version header; some share a
 * method and path with a v2 route, so they have a table of their own. An account is an
 * organization; users are seen within the organizations the caller shares with them.
 */
const LEGACY_RULES: Record<string, Rule> = {
  'GET /api/projects/:projectId/errors': 'member',
  'GET /api/errors/:errorId': 'member',
  'PATCH /api/errors/:errorId': 'member',
  'DELETE /api/errors/:errorId': 'admin',
  'GET /api/accounts/:accountId/projects': 'member',
  'POST /api/accounts/:accountId/projects': 'admin',
  'GET /api/users/:userId/projects': 'member',
  'GET /api/projects/:projectId': 'member',
  'PATCH /api/projects/:projectId': 'admin',
  'DELETE /api/projects/:projectId': 'admin',
  'GET /api/accounts/:accountId/users': 'member',
  'POST /api/accounts/:accountId/users': 'admin',
  'PATCH /api/accounts/:accountId/users/:userId': 'admin',
  'DELETE /api/accounts/:accountId/users/:userId': 'admin',
  'GET /api/projects/:projectId/users': 'member',
  'GET /api/user': 'user',
  'GET /api/users/:userId': 'member',
}

type Actor = 'anonymous' | 'bad token' | 'outsider' | 'restricted member' | 'member' | 'admin'
const ACTORS: Actor[] = ['anonymous', 'bad token', 'outsider', 'restricted member', 'member', 'admin']

/** Whether the route's resource belongs to one user (the invitee here): anyone else gets 404. */
const ownedByOneUser = (route: Route) => /:(tokenId|invitationId)/.test(route.path)

/**
 * What `actor` must get from `route` under `rule`: a status, or 'allowed' (anything but 401,
 * 403, 404 and 5xx). The restricted member sees the organization but not the project under test.
 */
function expected(rule: Rule, actor: Actor, route: Route): number | 'allowed' | 'not 401' {
  // Secret links: the secret decides (an unknown one is 404 for everyone), not the caller.
  if (rule === 'public') return 'not 401'
  if (actor === 'anonymous' || actor === 'bad token') return 401
  if (rule === 'user') return ownedByOneUser(route) && actor !== 'admin' ? 404 : 'allowed'
  if (actor === 'outsider') return 404
  // Organizations (the legacy API's accounts) and the people in them are seen by every member.
  if (actor === 'restricted member' && !/^\/api\/(organizations|accounts|users)\//.test(route.path)) return 404
  if (actor !== 'admin') return rule === 'admin' ? 403 : 'allowed'
  return 'allowed'
}

interface Route {
  method: string
  path: string
}

let ctx: TestContext
let admin: TestUser
let organization: Organization
let project: Project
const users = {} as Record<'outsider' | 'restricted' | 'member' | 'invitee', TestUser>
/** Ids of the fixture's resources by path parameter; DELETE routes get fresh ones (fresh below). */
const ids: Record<string, string> = {}
/** Privacy requests belong to the organization or to one project, and are addressed through it. */
const privacyIds = { organizations: {} as Record<string, string>, projects: {} as Record<string, string> }

const api = async <T,>(path: string, token: string, init: { method?: string; json?: unknown } = {}): Promise<T> => {
  const res = await ctx.request(`/api${path}`, { ...init, token })
  if (res.status >= 300) throw new Error(`fixture: ${init.method ?? 'GET'} ${path} answered ${res.status}: ${await res.text()}`)
  return (await res.json()) as T
}

async function notify(errorClass: string): Promise<string> {
  const apiKey = (await api<Project>(`/projects/${project.id}`, admin.token)).api_key
  const res = await ctx.request('/notify', {
    method: 'POST',
    headers: { 'Bugsnag-Api-Key': apiKey },
    json: {
      payloadVersion: '4',
      events: [notifierEvent(errorClass, { app: { version: '1.0.0', releaseStage: 'production' }, user: { id: 'u-1', email: 'u1@example.com' } })],
    },
  })
  expect(res.status).toBe(200)
  const [event] = await api<{ id: string }[]>(`/projects/${project.id}/events?per_page=1`, admin.token)
  return event!.id
}

const freshWebhook = async () =>
  (await api<{ id: string }>(`/projects/${project.id}/webhooks`, admin.token, {
    method: 'POST',
    json: { url: 'http://127.0.0.1:9/hook', triggers: ['exception'] },
  })).id

const freshComment = async () =>
  (await api<{ id: string }>(`/projects/${project.id}/errors/${ids.errorId}/comments`, admin.token, { method: 'POST', json: { message: 'a note' } })).id

async function freshSourceMap(): Promise<string> {
  const apiKey = (await api<Project>(`/projects/${project.id}`, admin.token)).api_key
  const version = `9.${Object.keys(ids).length}.${Date.now() % 100000}`
  const res = await ctx.request('/sourcemap', {
    method: 'POST',
    body: uploadForm({ apiKey, appVersion: version, minifiedUrl: 'https://app.example.com/app.min.js' }, { sourceMap: readJsApp('dist/app.min.js.map') }),
  })
  expect(res.status).toBe(200)
  const maps = await api<{ id: string; app_version: string | null }[]>(`/projects/${project.id}/source_maps?per_page=100`, admin.token)
  return maps.find((m) => m.app_version === version)!.id
}

async function freshSymbolFile(): Promise<string> {
  const form = new FormData()
  form.append('overwrite', 'true')
  form.append('symbol_file', new Blob([readFileSync(join(import.meta.dirname, '../test/fixtures/native/libcrash.aarch64.sym'))]), 'libcrash.sym')
  const res = await ctx.request(`/api/projects/${project.id}/native_symbols?kind=breakpad`, { method: 'POST', body: form, token: admin.token })
  expect(res.status).toBe(201)
  return ((await res.json()) as { id: string }).id
}

/** An event made from a minidump (its dump is downloadable). */
async function minidumpEvent(): Promise<string> {
  const apiKey = (await api<Project>(`/projects/${project.id}`, admin.token)).api_key
  const dump = writeMinidump({ arch: 'x86_64', os: 'linux', modules: [{ name: 'app', base: 0x400000, size: 0x1000, buildId: 'ab'.repeat(20) }], crashingThread: { id: 1, pc: 0x400010, sp: 0x7000, fp: 0 } })
  const form = new FormData()
  form.append('upload_file_minidump', new Blob([new Uint8Array(dump)]), 'crash.dmp')
  const res = await ctx.request(`/minidump?api_key=${apiKey}`, { method: 'POST', body: form })
  expect(res.status).toBe(202)
  return res.text()
}

/** A user who joins the organization as a plain member through an invitation they accept. */
async function freshCollaborator(): Promise<string> {
  const spare = await ctx.createUser('Spare')
  await ctx.deps.database.db.insert(collaborators).values({ organizationId: organization.id, userId: spare.id, isAdmin: false })
  const list = await api<{ id: string; email: string }[]>(`/organizations/${organization.id}/collaborators?per_page=100`, admin.token)
  return list.find((c) => c.email === spare.email)!.id
}

/** An invitation to a new account, pending in its /user/invitations; that account is the invitee from now on. */
async function freshInvitation(): Promise<string> {
  users.invitee = await ctx.createUser('Invitee')
  await api(`/organizations/${organization.id}/collaborators`, admin.token, { method: 'POST', json: { email: users.invitee.email } })
  const pending = await api<{ id: string }[]>('/user/invitations', users.invitee.token)
  return pending[0]!.id
}

async function freshProject(): Promise<string> {
  return (await api<Project>(`/organizations/${organization.id}/projects`, admin.token, { method: 'POST', json: { name: `Spare ${Date.now()}`, type: 'node' } })).id
}

/** Parameters a DELETE (or a one-way change) must not take from the shared fixture. */
const fresh: Record<string, () => Promise<string>> = {
  eventId: () => notify('FreshError'),
  webhookId: freshWebhook,
  commentId: freshComment,
  sourceMapId: freshSourceMap,
  symbolFileId: freshSymbolFile,
  collaboratorId: freshCollaborator,
  invitationId: freshInvitation,
  tokenId: async () => (await createToken(ctx.deps.database.db, users.invitee.id, 'spare')).id,
  apiTokenId: async () => (await api<{ id: string }>(`/organizations/${organization.id}/api_tokens`, admin.token, { method: 'POST', json: { name: 'spare' } })).id,
  errorId: freshError,
  // A member (a user id) removed from the account by the legacy DELETE.
  userId: freshCollaborator,
}

/** A new error of the project, for the legacy DELETE /errors/:id. */
async function freshError(): Promise<string> {
  const errorClass = `Fresh ${Object.keys(ids).length} ${Math.random()}`
  await notify(errorClass)
  const list = await api<{ id: string; error_class: string }[]>(`/projects/${project.id}/errors?per_page=100`, admin.token)
  return list.find((e) => e.error_class === errorClass)!.id
}

function routes(legacy = false): Route[] {
  const seen = new Map<string, Route>()
  for (const r of ctx.app.routes) {
    if (r.method === 'ALL' || !r.path.startsWith('/api/') || r.path.includes('*') || isLegacyHandler(r.handler) !== legacy) continue
    seen.set(`${r.method} ${r.path}`, { method: r.method, path: r.path })
  }
  // Reads first, then changes; deletions last, the organization's own at the very end.
  const rank = (r: Route) => (r.method === 'GET' ? 0 : r.method === 'DELETE' ? (r.path === '/api/organizations/:organizationId' ? 3 : 2) : 1)
  return [...seen.values()].sort((a, b) => rank(a) - rank(b) || a.path.localeCompare(b.path))
}

/** The token `actor` sends; for resources owned by one user, the admin's part is played by their owner, the invitee. */
async function tokenOf(actor: Actor, route: Route, rule: Rule): Promise<string | undefined> {
  if (actor === 'anonymous') return undefined
  if (actor === 'bad token') return 'not-a-token'
  const user = actor === 'admin' ? admin : actor === 'member' ? users.member : actor === 'outsider' ? users.outsider : users.restricted
  // Signing out ends the token it is called with: a token of its own for each call.
  if (route.path === '/api/auth/logout') return (await createToken(ctx.deps.database.db, user.id, 'logout')).token
  if (rule === 'user' && ownedByOneUser(route) && actor === 'admin') return users.invitee.token
  return user.token
}

beforeAll(async () => {
  ctx = await createTestContext({ webhookAllow: parseAllowList('127.0.0.1') }, { webhooks: { retryDelayMs: () => 0 } })
  admin = await ctx.createUser('Admin')
  const seeded = await seedProject(ctx, { user: admin, organization: 'Matrix Org', project: 'Main' })
  organization = seeded.organization
  project = seeded.project
  const other = await api<Project>(`/organizations/${organization.id}/projects`, admin.token, { method: 'POST', json: { name: 'Other', type: 'node' } })
  users.outsider = (await seedProject(ctx, { user: 'Outsider', organization: 'Elsewhere' })).user
  users.member = await ctx.createUser('Member')
  users.restricted = await ctx.createUser('Restricted')
  await ctx.deps.database.db.insert(collaborators).values([
    { organizationId: organization.id, userId: users.member.id, isAdmin: false },
    { organizationId: organization.id, userId: users.restricted.id, isAdmin: false, projectIds: [other.id] },
  ])

  ids.organizationId = organization.id
  ids.projectId = project.id
  await notify('MatrixError')
  ids.eventId = await minidumpEvent()
  const [error] = await api<{ id: string }[]>(`/projects/${project.id}/errors`, admin.token)
  ids.errorId = error!.id
  ids.displayId = 'user.id'
  const [release] = await api<{ id: string }[]>(`/projects/${project.id}/releases`, admin.token)
  ids.releaseId = release!.id
  const [group] = await api<{ id: string }[]>(`/projects/${project.id}/release_groups`, admin.token)
  ids.releaseGroupId = group!.id
  ids.sourceMapId = await freshSourceMap()
  ids.symbolFileId = await freshSymbolFile()
  ids.webhookId = await freshWebhook()
  await api(`/webhooks/${ids.webhookId}/test`, admin.token, { method: 'POST' })
  const [delivery] = await api<{ id: string }[]>(`/webhooks/${ids.webhookId}/deliveries`, admin.token)
  ids.deliveryId = delivery!.id
  ids.commentId = await freshComment()
  const list = await api<{ id: string; email: string }[]>(`/organizations/${organization.id}/collaborators?per_page=100`, admin.token)
  ids.collaboratorId = list.find((c) => c.email === users.member.email)!.id
  // A retrieval that is complete (its download exists) and a deletion that matches nothing, awaiting confirmation.
  const filters = { 'user.email': [{ type: 'eq', value: 'nobody@example.com' }] }
  for (const scope of ['organizations', 'projects'] as const) {
    const base = scope === 'organizations' ? `/organizations/${organization.id}` : `/projects/${project.id}`
    privacyIds[scope].requestId = (await api<{ id: string }>(`${base}/event_data_requests`, admin.token, { method: 'POST', json: { filters, report_type: 'gdpr' } })).id
    privacyIds[scope].deletionId = (await api<{ id: string }>(`${base}/event_data_deletions`, admin.token, { method: 'POST', json: { filters } })).id
  }
  await ctx.jobs.drain()
  ids.invitationId = await freshInvitation()
  ids.tokenId = (await createToken(ctx.deps.database.db, users.invitee.id, 'listed')).id
  ids.token = 'an-invitation-secret-that-does-not-exist'
  ids.apiTokenId = (await api<{ id: string }>(`/organizations/${organization.id}/api_tokens`, admin.token, { method: 'POST', json: { name: 'listed' } })).id
  ids.accountId = organization.id
  ids.userId = admin.id
}, 120_000)

afterAll(async () => {
  await ctx?.close()
})

describe('the authorization matrix', () => {
  it('classifies every API route', () => {
    const unclassified = routes().map((r) => `${r.method} ${r.path}`).filter((key) => !(key in RULES))
    expect(unclassified).toEqual([])
    const gone = Object.keys(RULES).filter((key) => !routes().some((r) => `${r.method} ${r.path}` === key))
    expect(gone).toEqual([])
    const legacy = routes(true).map((r) => `${r.method} ${r.path}`)
    expect(legacy.filter((key) => !(key in LEGACY_RULES))).toEqual([])
    expect(Object.keys(LEGACY_RULES).filter((key) => !legacy.includes(key))).toEqual([])
  })

  it('answers the operations of the error PATCHes that change more than one error as their rule says', async () => {
    const failures: string[] = []
    for (const actor of ACTORS) {
      // Two errors of their own for each caller, so one caller's merge does not decide the next one's.
      await notify(`Merged ${actor} A`)
      await notify(`Merged ${actor} B`)
      const list = await api<{ id: string; error_class: string }[]>(`/projects/${project.id}/errors?per_page=100`, admin.token)
      const [a, b] = ['A', 'B'].map((x) => list.find((e) => e.error_class === `Merged ${actor} ${x}`)!.id)
      const token = await tokenOf(actor, { method: 'PATCH', path: '/api/projects/:projectId/errors' }, OPERATIONS.merge)
      const calls = [
        { operation: 'merge', path: `/api/projects/${project.id}/errors?error_ids=${a},${b}` },
        { operation: 'unmerge', path: `/api/projects/${project.id}/errors/${a}` },
      ] as const
      for (const call of calls) {
        const want = expected(OPERATIONS[call.operation], actor, { method: 'PATCH', path: call.path })
        const res = await ctx.request(call.path, { method: 'PATCH', token, json: { operation: call.operation } })
        await res.arrayBuffer()
        const ok = want === 'allowed' ? res.status === 200 : res.status === want
        if (!ok) failures.push(`${call.operation} as ${actor}: ${res.status}, expected ${want}`)
      }
    }
    expect(failures).toEqual([])
  }, 120_000)

  it('answers every legacy route × caller as its rule says, with no X-Version header, organization tokens included', async () => {
    const failures: string[] = []
    // An organization token acts as an admin of its organization and sees nothing of another.
    const ownToken = (await api<{ token: string }>(`/organizations/${organization.id}/api_tokens`, admin.token, { method: 'POST', json: { name: 'matrix' } })).token
    const outsiderOrganization = (await api<{ id: string }[]>('/user/organizations', users.outsider.token))[0]!.id
    const otherToken = (await api<{ token: string }>(`/organizations/${outsiderOrganization}/api_tokens`, users.outsider.token, { method: 'POST', json: { name: 'matrix' } })).token
    for (const route of routes(true)) {
      const rule = LEGACY_RULES[`${route.method} ${route.path}`]
      if (!rule) continue
      const params: Record<string, string> = { ...ids }
      const fill = async () => {
        if (route.method !== 'DELETE') return
        for (const name of route.path.matchAll(/:(\w+)/g)) {
          const make = fresh[name[1]!]
          if (make) params[name[1]!] = await make()
        }
        if (route.path === '/api/projects/:projectId') params.projectId = await freshProject()
      }
      const path = () => route.path.replace(/:(\w+)/g, (_, name: string) => params[name]!)
      const hasBody = route.method === 'POST' || route.method === 'PATCH'
      const send = async (token: string | undefined) => {
        await ctx.deps.ingestWriter.indexed()
        const headers = new Headers(hasBody ? { 'Content-Type': 'application/json' } : {})
        if (token) headers.set('Authorization', `token ${token}`)
        const res = await ctx.app.request(`http://errata.test${path()}`, { method: route.method, headers, ...(hasBody ? { body: '{}' } : {}) })
        await res.arrayBuffer()
        return res.status
      }
      for (const actor of ACTORS) {
        await fill()
        const want = expected(rule, actor, route)
        const status = await send(await tokenOf(actor, route, rule))
        const ok = want === 'allowed' ? ![401, 403, 404].includes(status) && status < 500 : status === want
        if (!ok) failures.push(`v1 ${route.method} ${route.path} as ${actor}: ${status}, expected ${want}`)
      }
      for (const [who, token, want] of [
        ['its organization token', ownToken, route.path === '/api/user' ? 403 : 'allowed'],
        ["another organization's token", otherToken, route.path === '/api/user' ? 403 : 404],
      ] as const) {
        await fill()
        const status = await send(token)
        const ok = want === 'allowed' ? ![401, 403, 404].includes(status) && status < 500 : status === want
        if (!ok) failures.push(`v1 ${route.method} ${route.path} as ${who}: ${status}, expected ${want}`)
      }
    }
    expect(failures).toEqual([])
  }, 300_000)

  it('answers every route × caller as its rule says', async () => {
    const failures: string[] = []
    for (const route of routes()) {
      const rule = RULES[`${route.method} ${route.path}`]
      if (!rule) continue
      const params: Record<string, string> = { ...ids, ...privacyIds[route.path.startsWith('/api/projects/') ? 'projects' : 'organizations'] }
      if (route.method === 'DELETE' || /\/(accept|confirm)$/.test(route.path)) {
        for (const name of route.path.matchAll(/:(\w+)/g)) {
          const make = fresh[name[1]!]
          if (make) params[name[1]!] = await make()
        }
        if (route.path === '/api/projects/:projectId') params.projectId = await freshProject()
      }
      if (route.path.endsWith('/event_data_deletions/:deletionId/confirm')) {
        const filters = { 'user.email': [{ type: 'eq', value: 'nobody@example.com' }] }
        const base = route.path.startsWith('/api/projects/') ? `/projects/${project.id}` : `/organizations/${organization.id}`
        params.deletionId = (await api<{ id: string }>(`${base}/event_data_deletions`, admin.token, { method: 'POST', json: { filters } })).id
        await ctx.jobs.drain()
      }
      const path = route.path.replace(/:(\w+)/g, (_, name: string) => {
        if (!params[name]) throw new Error(`no fixture for :${name} in ${route.path}`)
        return params[name]!
      })
      for (const actor of ACTORS) {
        const want = expected(rule, actor, route)
        const token = await tokenOf(actor, route, rule)
        const hasBody = route.method === 'POST' || route.method === 'PATCH'
        const res = await ctx.request(path, { method: route.method, token, ...(hasBody ? { json: {} } : {}) })
        await res.arrayBuffer()
        const ok =
          want === 'allowed' ? ![401, 403, 404].includes(res.status) && res.status < 500
          : want === 'not 401' ? res.status !== 401 && res.status < 500
          : res.status === want
        if (!ok) failures.push(`${route.method} ${route.path} as ${actor}: ${res.status}, expected ${want}`)
      }
    }
    expect(failures).toEqual([])
  }, 300_000)
})

/** Operations of the error PATCHes that act on several errors at once, with who may run them. */
const OPERATIONS: Record<'merge' | 'unmerge', Rule> = { merge: 'member', unmerge: 'member' }
