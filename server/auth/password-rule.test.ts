// One password rule (contract/users.ts) on every path that sets a password: the first admin
// (ERRATA_ADMIN_PASSWORD, read by config and by bootstrap) and an accepted invitation (an
// invitation itself never sets one). Nine characters are refused everywhere, ten accepted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { InvitedCollaborator } from '../../contract/collaborators.ts'
import { MIN_PASSWORD_LENGTH } from '../../contract/users.ts'
import { loadConfig } from '../config.ts'
import { users } from '../db/schema.ts'
import { seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'
import { bootstrapFirstAdmin } from './bootstrap.ts'

const TOO_SHORT = 'x'.repeat(MIN_PASSWORD_LENGTH - 1)
const LONG_ENOUGH = 'y'.repeat(MIN_PASSWORD_LENGTH)
const RULE = `must be at least ${MIN_PASSWORD_LENGTH} characters`

let ctx: TestContext
let acme: SeededProject

beforeAll(async () => {
  ctx = await createTestContext()
  acme = await seedProject(ctx, { user: 'Rule Admin', organization: 'Rules', project: 'Web' })
})
afterAll(() => ctx.close())

const login = (email: string, password: string) => ctx.request('/api/auth/login', { method: 'POST', json: { email, password } })
const addCollaborator = (json: Record<string, unknown>) =>
  ctx.request(`/api/organizations/${acme.organization.id}/collaborators`, { method: 'POST', token: acme.user.token, json })

describe('the password rule', () => {
  it(`is ${MIN_PASSWORD_LENGTH} characters for the first admin's ERRATA_ADMIN_PASSWORD`, () => {
    expect(() => loadConfig({ ERRATA_ADMIN_PASSWORD: TOO_SHORT })).toThrow(`ERRATA_ADMIN_PASSWORD: ${RULE}`)
    expect(loadConfig({ ERRATA_ADMIN_PASSWORD: LONG_ENOUGH }).admin.password).toBe(LONG_ENOUGH)
  })

  it('holds in bootstrap too, whoever calls it, and creates no user when broken', async () => {
    await expect(bootstrapFirstAdmin(ctx.deps.database, { email: 'first@example.com', password: TOO_SHORT })).rejects.toThrow(RULE)
    // The seeded admin exists, so a valid call creates nobody; the refused one created nobody either.
    expect(await bootstrapFirstAdmin(ctx.deps.database, { email: 'first@example.com', password: LONG_ENOUGH })).toBeNull()
    const emails = (await ctx.deps.database.db.select({ email: users.email }).from(users)).map((row) => row.email)
    expect(emails).not.toContain('first@example.com')
  })

  it('is the same for an accepted invitation', async () => {
    const invited = await addCollaborator({ email: 'invitee@example.com' })
    expect(invited.status).toBe(201)
    const token = ((await invited.json()) as InvitedCollaborator).invitation_url.split('/').pop()!
    const accept = (password: string) =>
      ctx.request(`/api/invitations/${token}/accept`, { method: 'POST', json: { name: 'Invitee', password } })
    const short = await accept(TOO_SHORT)
    expect(short.status).toBe(400)
    expect(await short.json()).toEqual({ errors: [`password: ${RULE}`] })
    expect((await accept(LONG_ENOUGH)).status).toBe(200)
    expect((await login('invitee@example.com', LONG_ENOUGH)).status).toBe(200)
  })
})
