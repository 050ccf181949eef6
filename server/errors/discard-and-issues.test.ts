// The discard / undiscard, link_issue / unlink_issue operations and the n_additional_users
// snooze rule: on the error, and where ingestion honours them (docs/errors-workflow.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ErrorGroup } from '../../contract/errors.ts'
import { notifierEvent } from '../test-support/ingest.ts'
import { seedMember, seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

let ctx: TestContext
let main: SeededProject
let member: TestUser
let outsider: TestUser

beforeAll(async () => {
  ctx = await createTestContext()
  main = await seedProject(ctx, { user: 'Admin Dee', organization: 'Discard Org', project: 'Main' })
  member = await seedMember(ctx, main.organization.id, 'Member Mo')
  outsider = await ctx.createUser('Outsider Oz')
})
afterAll(() => ctx.close())

async function notify(errorClass: string, user = 'u1'): Promise<void> {
  const res = await ctx.request('/notify', {
    method: 'POST',
    headers: { 'Bugsnag-Api-Key': main.project.api_key },
    json: { events: [notifierEvent(errorClass, { user: { id: user }, app: { version: '3.0.0' } })] },
  })
  expect(res.status).toBe(200)
}

async function errorOf(errorClass: string): Promise<ErrorGroup> {
  const res = await ctx.request(`/api/projects/${main.project.id}/errors?per_page=100`, { token: main.user.token })
  return ((await res.json()) as ErrorGroup[]).find((e) => e.error_class === errorClass)!
}

const patch = (id: string, body: unknown, token = main.user.token) =>
  ctx.request(`/api/projects/${main.project.id}/errors/${id}`, { method: 'PATCH', token, json: body })

describe('discard and undiscard', () => {
  it('counts the events of a discarded error without storing them, until undiscarded', async () => {
    await notify('Noisy')
    const error = await errorOf('Noisy')
    const discarded = (await (await patch(error.id, { operation: 'discard' }, member.token)).json()) as ErrorGroup
    expect(discarded).toMatchObject({ discarded: true, discarded_events: 0, events: 1 })
    expect(discarded.discarded_at).not.toBeNull()

    await notify('Noisy')
    await notify('Noisy')
    const after = await errorOf('Noisy')
    expect(after).toMatchObject({ events: 1, discarded_events: 2, discarded: true })
    const events = await ctx.request(`/api/projects/${main.project.id}/errors/${error.id}/events`, { token: main.user.token })
    expect(((await events.json()) as unknown[]).length).toBe(1)

    // Discarding again keeps the first time; undiscarding lets events in again.
    const again = (await (await patch(error.id, { operation: 'discard' })).json()) as ErrorGroup
    expect(again.discarded_at).toBe(discarded.discarded_at)
    expect(await (await patch(error.id, { operation: 'undiscard' })).json()).toMatchObject({ discarded: false, discarded_at: null })
    await notify('Noisy')
    expect(await errorOf('Noisy')).toMatchObject({ events: 2, discarded_events: 2 })
  })

  it('answers 404 to outsiders, changing nothing', async () => {
    await notify('Private')
    const error = await errorOf('Private')
    expect((await patch(error.id, { operation: 'discard' }, outsider.token)).status).toBe(404)
    expect(await errorOf('Private')).toMatchObject({ discarded: false })
  })
})

describe('link_issue and unlink_issue', () => {
  it('shows a linked issue on the error until unlinked', async () => {
    await notify('Tracked')
    const error = await errorOf('Tracked')
    const linked = await patch(error.id, { operation: 'link_issue', issue_url: 'https://tracker.example.com/issues/42', verify_issue_url: true })
    expect(await linked.json()).toMatchObject({ linked_issues: [{ type: 'url', url: 'https://tracker.example.com/issues/42' }] })
    expect(await errorOf('Tracked')).toMatchObject({ linked_issues: [{ url: 'https://tracker.example.com/issues/42' }] })
    expect(await (await patch(error.id, { operation: 'unlink_issue' })).json()).toMatchObject({ linked_issues: [] })
  })

  it('answers 400 naming the field for a missing or malformed issue_url, or issue_url with another operation', async () => {
    await notify('Untracked')
    const error = await errorOf('Untracked')
    const cases: Array<[unknown, string]> = [
      [{ operation: 'link_issue' }, 'issue_url: required for link_issue: the http(s) URL of the issue'],
      [{ operation: 'link_issue', issue_url: 'javascript:alert(1)' }, 'issue_url: must be an absolute http or https URL'],
      [{ operation: 'link_issue', issue_url: 'https://x.example/1', verify_issue_url: 'yes' }, 'verify_issue_url: must be true or false'],
      [{ operation: 'fix', issue_url: 'https://x.example/1' }, 'issue_url: is only taken by operation link_issue, not fix'],
    ]
    for (const [body, message] of cases) {
      const res = await patch(error.id, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(((await res.json()) as { errors: string[] }).errors).toContain(message)
    }
  })
})

describe('snooze until n_additional_users', () => {
  it('reopens once that many users new to the error are affected, not on more events of known users', async () => {
    await notify('UserBound', 'a')
    const error = await errorOf('UserBound')
    const snoozed = await patch(error.id, { operation: 'snooze', reopen_rules: { reopen_if: 'n_additional_users', additional_users: 2 } })
    expect(await snoozed.json()).toMatchObject({ status: 'snoozed', reopen_rules: { additional_users: 2, users_at_snooze: 1 } })
    await notify('UserBound', 'a')
    await notify('UserBound', 'b')
    expect(await errorOf('UserBound')).toMatchObject({ status: 'snoozed', users: 2 })
    await notify('UserBound', 'c')
    expect(await errorOf('UserBound')).toMatchObject({ status: 'open', users: 3, reopen_rules: null })
  })

  it('answers 400 for a missing or non-positive additional_users', async () => {
    await notify('UserBoundBad')
    const error = await errorOf('UserBoundBad')
    const res = await patch(error.id, { operation: 'snooze', reopen_rules: { reopen_if: 'n_additional_users', additional_users: 0 } })
    expect(res.status).toBe(400)
    expect(((await res.json()) as { errors: string[] }).errors).toContain('reopen_rules.additional_users: must be at least 1')
  })
})
