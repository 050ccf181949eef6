import { and, eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  MAX_BULK_ERROR_IDS,
  MAX_STATUS_CHANGES,
  type BulkErrorResult,
  type ErrorGroup,
  type ErrorStatusChange,
  storedReopenRulesSchema,
  type StoredReopenRules,
} from '../../contract/errors.ts'
import type { Project } from '../../contract/projects.ts'
import { queryRows } from '../db/client.ts'
import { newId } from '../db/ids.ts'
import { collaborators, errors, errorStatusChanges } from '../db/schema.ts'
import { seedErrors, seedProject, type SeededError, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

let ctx: TestContext
let main: SeededProject
let other: Project
/** Non-admin collaborator who sees every project of the organization. */
let member: TestUser
/** Non-admin collaborator restricted to the other project. */
let restricted: TestUser
/** Non-admin collaborator restricted to the main project. */
let scoped: TestUser
let outsider: TestUser
let seeded: SeededError[]
let otherErrors: SeededError[]

beforeAll(async () => {
  ctx = await createTestContext()
  main = await seedProject(ctx, { user: 'Admin Ada', organization: 'Ops Org', project: 'Main' })
  const res = await ctx.request(`/api/organizations/${main.organization.id}/projects`, {
    method: 'POST',
    token: main.user.token,
    json: { name: 'Other' },
  })
  other = (await res.json()) as Project
  member = await ctx.createUser('Member Max')
  restricted = await ctx.createUser('Restricted Rita')
  scoped = await ctx.createUser('Scoped Sam')
  outsider = await ctx.createUser('Outsider Otto')
  await ctx.deps.database.db.insert(collaborators).values([
    { organizationId: main.organization.id, userId: member.id, isAdmin: false },
    { organizationId: main.organization.id, userId: restricted.id, isAdmin: false, projectIds: [other.id] },
    { organizationId: main.organization.id, userId: scoped.id, isAdmin: false, projectIds: [main.project.id] },
  ])
  seeded = await seedErrors(ctx.deps.database, main.project.id, 40)
  otherErrors = await seedErrors(ctx.deps.database, other.id, 3)
})
afterAll(() => ctx.close())

const db = () => ctx.deps.database.db
const errorPath = (id: string, projectId = main.project.id) => `/api/projects/${projectId}/errors/${id}`

function patch(id: string, body: unknown, token = main.user.token) {
  return ctx.request(errorPath(id), { method: 'PATCH', token, json: body })
}
function bulk(query: string, body: unknown, token = main.user.token) {
  return ctx.request(`/api/projects/${main.project.id}/errors${query}`, { method: 'PATCH', token, json: body })
}
async function history(id: string, token = main.user.token): Promise<ErrorStatusChange[]> {
  const res = await ctx.request(`${errorPath(id)}/status_changes`, { token })
  expect(res.status).toBe(200)
  return (await res.json()) as ErrorStatusChange[]
}
async function expectError(res: Response, status: number, message: string | RegExp) {
  expect(res.status).toBe(status)
  const body = (await res.json()) as { errors: string[] }
  if (typeof message === 'string') expect(body.errors).toContain(message)
  else expect(body.errors.some((m) => message.test(m)), JSON.stringify(body.errors)).toBe(true)
}
const row = async (id: string) => (await db().select().from(errors).where(eq(errors.id, id)))[0]
/** Errors handed out one per test, so no test depends on another's state. */
let next = 0
const fresh = () => seeded[next++]!

describe('PATCH /projects/:projectId/errors/:errorId — status', () => {
  it('fixes, reopens and fixes again, answering the updated error each time', async () => {
    const e = fresh()
    const fixed = await patch(e.id, { operation: 'fix' })
    expect(fixed.status).toBe(200)
    const body = (await fixed.json()) as ErrorGroup
    expect(body).toMatchObject({ id: e.id, status: 'fixed', reopen_rules: null, events: e.eventsCount })
    // The answer is the same resource GET serves.
    expect(body).toEqual(await (await ctx.request(errorPath(e.id), { token: main.user.token })).json())
    expect(((await (await patch(e.id, { operation: 'open' })).json()) as ErrorGroup).status).toBe('open')
    expect(((await (await patch(e.id, { operation: 'fix' })).json()) as ErrorGroup).status).toBe('fixed')
    expect((await row(e.id))!.status).toBe('fixed')

    const changes = await history(e.id)
    expect(changes.map((c) => [c.from_status, c.to_status])).toEqual([
      ['open', 'fixed'],
      ['fixed', 'open'],
      ['open', 'fixed'],
    ])
    for (const change of changes) {
      expect(change).toMatchObject({
        error_id: e.id,
        reason: 'operation',
        reopen_rules: null,
        actor: { id: main.user.id, name: 'Admin Ada', email: main.user.email },
      })
      expect(Math.abs(Date.parse(change.created_at) - Date.now())).toBeLessThan(60_000)
    }
  })

  it('answers a change that changes nothing, and records no history for it', async () => {
    const e = fresh()
    await patch(e.id, { operation: 'fix' })
    const again = await patch(e.id, { operation: 'fix' })
    expect(again.status).toBe(200)
    expect(((await again.json()) as ErrorGroup).status).toBe('fixed')
    const reopen = await patch(e.id, { operation: 'open' })
    const openAgain = await patch(e.id, { operation: 'open' })
    expect([reopen.status, openAgain.status]).toEqual([200, 200])
    expect((await history(e.id)).map((c) => `${c.from_status}>${c.to_status}`)).toEqual(['fixed>open', 'open>fixed'])
  })

  it('records one change when the same fix arrives several times at once', async () => {
    const e = fresh()
    const answers = await Promise.all(Array.from({ length: 5 }, () => patch(e.id, { operation: 'fix' })))
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200])
    expect((await history(e.id)).map((c) => `${c.from_status}>${c.to_status}`)).toEqual(['open>fixed'])
  })

  it('ignores, and ignoring clears a snooze rule', async () => {
    const e = fresh()
    await patch(e.id, { operation: 'snooze', reopen_rules: { reopen_if: 'occurs_after', seconds: 60 } })
    const res = await patch(e.id, { operation: 'ignore' })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ status: 'ignored', reopen_rules: null })
    expect((await row(e.id))!.reopenRules).toBeNull()
    const [latest] = await history(e.id)
    expect(latest).toMatchObject({ from_status: 'snoozed', to_status: 'ignored', reopen_rules: null })
  })

  it('snoozes for N additional occurrences, storing the counter at snooze time', async () => {
    const e = fresh()
    const before = Date.now()
    const res = await patch(e.id, {
      operation: 'snooze',
      reopen_rules: { reopen_if: 'n_additional_occurrences', additional_occurrences: 25 },
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as ErrorGroup
    expect(body.status).toBe('snoozed')
    expect(body.reopen_rules).toEqual({
      reopen_if: 'n_additional_occurrences',
      additional_occurrences: 25,
      snoozed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      events_at_snooze: e.eventsCount,
    })
    expect(Math.abs(Date.parse(body.reopen_rules!.snoozed_at as string) - before)).toBeLessThan(60_000)
    expect((await row(e.id))!.reopenRules).toEqual(body.reopen_rules)
    const [change] = await history(e.id)
    expect(change).toMatchObject({ from_status: 'open', to_status: 'snoozed', reopen_rules: body.reopen_rules })
  })

  it('snoozes for N occurrences in M hours', async () => {
    const e = fresh()
    const res = await patch(e.id, {
      operation: 'snooze',
      reopen_rules: { reopen_if: 'n_occurrences_in_m_hours', occurrences: 10, hours: 3 },
    })
    const body = (await res.json()) as ErrorGroup
    expect(body.reopen_rules).toEqual({
      reopen_if: 'n_occurrences_in_m_hours',
      occurrences: 10,
      hours: 3,
      snoozed_at: expect.any(String),
    })
    expect(Number.isNaN(Date.parse(body.reopen_rules!.snoozed_at as string))).toBe(false)
  })

  it('snoozes until a time, storing reopen_after = snoozed_at + seconds', async () => {
    const e = fresh()
    const res = await patch(e.id, { operation: 'snooze', reopen_rules: { reopen_if: 'occurs_after', seconds: 7200 } })
    const rules = ((await res.json()) as ErrorGroup).reopen_rules!
    expect(Object.keys(rules).sort()).toEqual(['reopen_after', 'reopen_if', 'seconds', 'snoozed_at'])
    expect(storedReopenRulesSchema.parse(rules)).toMatchObject({ reopen_if: 'occurs_after', seconds: 7200 })
    if (rules.reopen_if !== 'occurs_after') throw new Error('expected an occurs_after rule')
    expect(Date.parse(rules.reopen_after) - Date.parse(rules.snoozed_at)).toBe(7_200_000)
  })

  it('replaces the rule when snoozing a snoozed error, and records that; open clears it', async () => {
    const e = fresh()
    await patch(e.id, { operation: 'snooze', reopen_rules: { reopen_if: 'occurs_after', seconds: 60 } })
    const res = await patch(e.id, {
      operation: 'snooze',
      reopen_rules: { reopen_if: 'n_additional_occurrences', additional_occurrences: 5 },
    })
    expect(((await res.json()) as ErrorGroup).reopen_rules).toMatchObject({
      reopen_if: 'n_additional_occurrences',
      additional_occurrences: 5,
    })
    expect((await row(e.id))!.reopenRules).not.toHaveProperty('seconds')
    const opened = (await (await patch(e.id, { operation: 'open' })).json()) as ErrorGroup
    expect(opened).toMatchObject({ status: 'open', reopen_rules: null })
    expect((await history(e.id)).map((c) => [c.from_status, c.to_status, c.reopen_rules?.reopen_if ?? null])).toEqual([
      ['snoozed', 'open', null],
      ['snoozed', 'snoozed', 'n_additional_occurrences'],
      ['open', 'snoozed', 'occurs_after'],
    ])
  })
})

describe('PATCH /projects/:projectId/errors/:errorId — assign and severity', () => {
  it('assigns to a collaborator and unassigns with null or ""', async () => {
    const e = fresh()
    const assigned = await patch(e.id, { operation: 'assign', assigned_collaborator_id: member.id })
    expect(assigned.status).toBe(200)
    expect(((await assigned.json()) as ErrorGroup).assigned_collaborator_id).toBe(member.id)
    expect((await row(e.id))!.assignedCollaboratorId).toBe(member.id)
    const cleared = await patch(e.id, { operation: 'assign', assigned_collaborator_id: '' })
    expect(((await cleared.json()) as ErrorGroup).assigned_collaborator_id).toBeNull()
    await patch(e.id, { operation: 'assign', assigned_collaborator_id: scoped.id })
    const nulled = await patch(e.id, { operation: 'assign', assigned_collaborator_id: null })
    expect(((await nulled.json()) as ErrorGroup).assigned_collaborator_id).toBeNull()
    // Assignment is not a status change.
    expect(await history(e.id)).toEqual([])
  })

  it('assigns to a collaborator restricted to this project, or an admin', async () => {
    const e = fresh()
    const res = await patch(e.id, { operation: 'assign', assigned_collaborator_id: scoped.id })
    expect(((await res.json()) as ErrorGroup).assigned_collaborator_id).toBe(scoped.id)
    const admin = await patch(e.id, { operation: 'assign', assigned_collaborator_id: main.user.id })
    expect(((await admin.json()) as ErrorGroup).assigned_collaborator_id).toBe(main.user.id)
  })

  it('refuses someone outside the organization, a collaborator of other projects only, or an unknown id', async () => {
    const e = fresh()
    await patch(e.id, { operation: 'assign', assigned_collaborator_id: member.id })
    for (const id of [outsider.id, restricted.id, 'nobody']) {
      await expectError(
        await patch(e.id, { operation: 'assign', assigned_collaborator_id: id }),
        400,
        `assigned_collaborator_id: ${id} is not a collaborator of this project`,
      )
    }
    expect((await row(e.id))!.assignedCollaboratorId).toBe(member.id)
  })

  it('overrides the severity: severity shows the override, severity_override says it is one', async () => {
    const e = fresh()
    const res = await patch(e.id, { operation: 'override_severity', severity: 'info' })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ severity: 'info', severity_override: 'info', status: 'open' })
    const stored = (await row(e.id))!
    expect([stored.severity, stored.severityOverride]).toEqual(['error', 'info'])
    expect(await history(e.id)).toEqual([])
  })
})

describe('PATCH /projects/:projectId/errors/:errorId — access', () => {
  it('lets any collaborator who sees the project operate', async () => {
    const e = fresh()
    const res = await patch(e.id, { operation: 'fix' }, member.token)
    expect(res.status).toBe(200)
    expect((await patch(e.id, { operation: 'open' }, scoped.token)).status).toBe(200)
    const [reopened, fixed] = await history(e.id, member.token)
    expect(fixed!.actor).toEqual({ id: member.id, name: 'Member Max', email: member.email })
    expect(reopened!.actor).toEqual({ id: scoped.id, name: 'Scoped Sam', email: scoped.email })
  })

  it('answers 404 to outsiders and to collaborators who cannot see the project, changing nothing', async () => {
    const e = fresh()
    for (const token of [outsider.token, restricted.token]) {
      await expectError(await patch(e.id, { operation: 'fix' }, token), 404, 'Project not found')
      await expectError(await bulk(`?error_ids=${e.id}`, { operation: 'fix' }, token), 404, 'Project not found')
      expect((await ctx.request(`${errorPath(e.id)}/status_changes`, { token })).status).toBe(404)
    }
    expect((await row(e.id))!.status).toBe('open')
  })

  it('answers 404 for an unknown error and for an error of another project', async () => {
    await expectError(await patch('000000000000000000000000', { operation: 'fix' }), 404, 'Error not found')
    await expectError(await patch(otherErrors[0]!.id, { operation: 'fix' }), 404, 'Error not found')
    await expectError(await patch(otherErrors[0]!.id, { operation: 'delete' }), 404, 'Error not found')
    expect((await row(otherErrors[0]!.id))!.status).toBe('open')
    const missing = await ctx.request(`${errorPath('000000000000000000000000')}/status_changes`, {
      token: main.user.token,
    })
    await expectError(missing, 404, 'Error not found')
  })
})

describe('PATCH /projects/:projectId/errors/:errorId — validation', () => {
  const cases: [string, unknown, string][] = [
    ['no operation', {}, 'operation: must be one of fix, open, ignore, snooze, assign, override_severity, discard, undiscard, link_issue, unlink_issue, revert_status, merge, unmerge, delete'],
    ['unknown operation', { operation: 'resolve' }, 'operation: must be one of fix, open, ignore, snooze, assign, override_severity, discard, undiscard, link_issue, unlink_issue, revert_status, merge, unmerge, delete'],
    ['a body that is not an object', [{ operation: 'fix' }], 'request body: expected a JSON object'],
    ['snooze without a rule', { operation: 'snooze' }, 'reopen_rules: required for snooze: {"reopen_if": …} with its numbers'],
    [
      'an unknown rule',
      { operation: 'snooze', reopen_rules: { reopen_if: 'forever' } },
      'reopen_rules.reopen_if: must be one of n_additional_occurrences, n_additional_users, n_occurrences_in_m_hours, occurs_after',
    ],
    [
      'zero occurrences',
      { operation: 'snooze', reopen_rules: { reopen_if: 'n_additional_occurrences', additional_occurrences: 0 } },
      'reopen_rules.additional_occurrences: must be at least 1',
    ],
    [
      'a fractional count',
      { operation: 'snooze', reopen_rules: { reopen_if: 'n_occurrences_in_m_hours', occurrences: 2.5, hours: 1 } },
      'reopen_rules.occurrences: must be a whole number',
    ],
    [
      'a missing hours',
      { operation: 'snooze', reopen_rules: { reopen_if: 'n_occurrences_in_m_hours', occurrences: 2 } },
      'reopen_rules.hours: must be a whole number',
    ],
    [
      'too many hours',
      { operation: 'snooze', reopen_rules: { reopen_if: 'n_occurrences_in_m_hours', occurrences: 2, hours: 9000 } },
      'reopen_rules.hours: must be at most 8760',
    ],
    [
      'seconds as a string',
      { operation: 'snooze', reopen_rules: { reopen_if: 'occurs_after', seconds: '60' } },
      'reopen_rules.seconds: must be a whole number',
    ],
    ['assign without a collaborator', { operation: 'assign' }, "assigned_collaborator_id: must be a collaborator's user id, or null to unassign"],
    ['an unknown severity', { operation: 'override_severity', severity: 'fatal' }, 'severity: Invalid option: expected one of "error"|"warning"|"info"'],
    // Another operation's field is a mistake the caller should hear about, not a silent 200.
    ['a severity with fix', { operation: 'fix', severity: 'info' }, 'severity: is only taken by operation override_severity, not fix'],
    ['a collaborator with ignore', { operation: 'ignore', assigned_collaborator_id: null }, 'assigned_collaborator_id: is only taken by operation assign, not ignore'],
    [
      'reopen rules with open',
      { operation: 'open', reopen_rules: { reopen_if: 'occurs_after', seconds: 60 } },
      'reopen_rules: is only taken by operation snooze, not open',
    ],
  ]
  it.each(cases)('answers 400 naming the field for %s', async (_name, body, message) => {
    const e = seeded[seeded.length - 1]!
    await expectError(await patch(e.id, body), 400, message)
    expect((await row(e.id))!.status).toBe('open')
  })

  it('answers 400 for a body that is not JSON', async () => {
    const res = await ctx.request(errorPath(seeded[0]!.id), {
      method: 'PATCH',
      token: main.user.token,
      headers: { 'Content-Type': 'application/json' },
      body: '{"operation": ',
    })
    await expectError(res, 400, 'request body is not valid JSON')
  })
})

/** An error with events, created by ingestion so its rollups exist. */
async function ingestedError(errorClass: string, count: number): Promise<string> {
  const events = Array.from({ length: count }, (_, i) => ({
    exceptions: [
      {
        errorClass,
        errorMessage: `${errorClass} happened`,
        type: 'nodejs',
        stacktrace: [{ file: 'src/app.js', method: 'run', lineNumber: 3, columnNumber: 7, inProject: true }],
      },
    ],
    app: { releaseStage: 'production', version: '2.0.0' },
    user: { id: `user-${errorClass}-${i}` },
  }))
  await notify(events)
  const found = await db()
    .select({ id: errors.id })
    .from(errors)
    .where(and(eq(errors.projectId, main.project.id), eq(errors.errorClass, errorClass)))
  expect(found).toHaveLength(1)
  return found[0]!.id
}

async function notify(events: unknown[]) {
  const res = await ctx.request('/notify', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Bugsnag-Api-Key': main.project.api_key, 'Bugsnag-Payload-Version': '4' },
    body: JSON.stringify({ payloadVersion: '4', events }),
  })
  expect(res.status).toBe(200)
}

const oneEvent = (errorClass: string) => [
  {
    exceptions: [
      {
        errorClass,
        errorMessage: `${errorClass} happened`,
        type: 'nodejs',
        stacktrace: [{ file: 'src/app.js', method: 'run', lineNumber: 3, columnNumber: 7, inProject: true }],
      },
    ],
    app: { releaseStage: 'production', version: '2.0.0' },
  },
]

const countWhere = async (query: ReturnType<typeof sql>) =>
  Number((await queryRows<{ n: number | string }>(db(), query))[0]!.n)

describe('PATCH /projects/:projectId/errors/:errorId — delete', () => {
  it('is admin-only: 403 for a member, 404 for an outsider', async () => {
    const e = fresh()
    await expectError(await patch(e.id, { operation: 'delete' }, member.token), 403, 'only organization admins may do this')
    await expectError(await patch(e.id, { operation: 'delete' }, outsider.token), 404, 'Project not found')
    expect(await row(e.id)).toBeDefined()
  })

  it('deletes the error with its events, history and rollups, answering 204', async () => {
    const id = await ingestedError('DoomedError', 3)
    const keep = await ingestedError('KeptError', 2)
    await patch(id, { operation: 'fix' })
    const projectEvents = () =>
      countWhere(sql`SELECT coalesce(sum(events), 0) AS n FROM project_hourly_counts WHERE project_id = ${main.project.id}`)
    const versionPivot = () =>
      countWhere(sql`SELECT coalesce(sum(events), 0) AS n FROM pivot_counts
        WHERE project_id = ${main.project.id} AND error_id = '' AND field = 'app.version' AND value = '2.0.0'`)
    const eventsBefore = await projectEvents()
    const pivotBefore = await versionPivot()

    const res = await patch(id, { operation: 'delete' })
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
    expect(await row(id)).toBeUndefined()
    expect((await ctx.request(errorPath(id), { token: main.user.token })).status).toBe(404)
    for (const table of ['events', 'error_hourly_counts', 'error_status_changes', 'error_users']) {
      expect(await countWhere(sql`SELECT count(*) AS n FROM ${sql.identifier(table)} WHERE error_id = ${id}`), table).toBe(0)
    }
    expect(await countWhere(sql`SELECT count(*) AS n FROM pivot_counts WHERE error_id = ${id}`)).toBe(0)
    expect(await projectEvents()).toBe(eventsBefore - 3)
    expect(await versionPivot()).toBe(pivotBefore - 3)
    expect(await row(keep)).toBeDefined()
    await expectError(await patch(id, { operation: 'delete' }), 404, 'Error not found')
  })
})

describe('PATCH /projects/:projectId/errors?error_ids=… (bulk)', () => {
  it('answers per error in the order given: updated or not_found, with one history row per change', async () => {
    const [a, b, c] = [fresh(), fresh(), fresh()]
    await patch(b.id, { operation: 'fix' })
    const ids = [c.id, 'ffffffffffffffffffffffff', a.id, otherErrors[1]!.id, b.id, a.id]
    const res = await bulk(`?error_ids=${ids.join(',')}`, { operation: 'fix' })
    expect(res.status).toBe(200)
    const results = (await res.json()) as BulkErrorResult[]
    expect(results.map((r) => [r.id, r.status])).toEqual([
      [c.id, 'updated'],
      ['ffffffffffffffffffffffff', 'not_found'],
      [a.id, 'updated'],
      [otherErrors[1]!.id, 'not_found'],
      [b.id, 'updated'],
    ])
    expect(results[0]!.error).toMatchObject({ id: c.id, status: 'fixed' })
    expect(results[0]!.errors).toEqual([])
    expect(results[1]).toMatchObject({ error: null, errors: ['Error not found'] })
    expect((await row(otherErrors[1]!.id))!.status).toBe('open')
    // b was already fixed: no second row.
    expect((await history(a.id)).map((h) => h.to_status)).toEqual(['fixed'])
    expect((await history(c.id)).map((h) => h.to_status)).toEqual(['fixed'])
    expect((await history(b.id)).map((h) => h.to_status)).toEqual(['fixed'])
  })

  it('takes the ids repeated (error_ids=a&error_ids=b) and bracketed (error_ids[]=a) as HTTP clients write lists', async () => {
    const [a, b, c] = [fresh(), fresh(), fresh()]
    const repeated = await bulk(`?error_ids=${a.id}&error_ids=${b.id}`, { operation: 'ignore' })
    expect(((await repeated.json()) as BulkErrorResult[]).map((r) => [r.id, r.status])).toEqual([
      [a.id, 'updated'],
      [b.id, 'updated'],
    ])
    const bracketed = await bulk(`?error_ids%5B%5D=${c.id}&error_ids%5B%5D=${a.id}`, { operation: 'open' })
    expect(((await bracketed.json()) as BulkErrorResult[]).map((r) => [r.id, r.status])).toEqual([
      [c.id, 'updated'],
      [a.id, 'updated'],
    ])
    expect([(await row(a.id))!.status, (await row(b.id))!.status, (await row(c.id))!.status]).toEqual(['open', 'ignored', 'open'])
  })

  it('snoozes many, each with its own counter at snooze time', async () => {
    const [a, b] = [fresh(), fresh()]
    const res = await bulk(`?error_ids=${a.id},${b.id}`, {
      operation: 'snooze',
      reopen_rules: { reopen_if: 'n_additional_occurrences', additional_occurrences: 3 },
    })
    const results = (await res.json()) as BulkErrorResult[]
    const eventsAtSnooze = (rules: StoredReopenRules | null | undefined) =>
      rules?.reopen_if === 'n_additional_occurrences' ? rules.events_at_snooze : undefined
    expect(results.map((r) => eventsAtSnooze(r.error!.reopen_rules))).toEqual([a.eventsCount, b.eventsCount])
    expect(eventsAtSnooze((await history(b.id))[0]!.reopen_rules)).toBe(b.eventsCount)
  })

  it('assigns many, and refuses the whole request for a non-collaborator', async () => {
    const [a, b] = [fresh(), fresh()]
    const ok = (await (await bulk(`?error_ids=${a.id},${b.id}`, { operation: 'assign', assigned_collaborator_id: member.id })).json()) as BulkErrorResult[]
    expect(ok.map((r) => r.error!.assigned_collaborator_id)).toEqual([member.id, member.id])
    await expectError(
      await bulk(`?error_ids=${a.id},${b.id}`, { operation: 'assign', assigned_collaborator_id: restricted.id }),
      400,
      `assigned_collaborator_id: ${restricted.id} is not a collaborator of this project`,
    )
    expect((await row(b.id))!.assignedCollaboratorId).toBe(member.id)
  })

  it('overrides severity for many', async () => {
    const [a, b] = [fresh(), fresh()]
    const results = (await (await bulk(`?error_ids=${a.id},${b.id}`, { operation: 'override_severity', severity: 'warning' })).json()) as BulkErrorResult[]
    expect(results.map((r) => r.error!.severity)).toEqual(['warning', 'warning'])
  })

  it('deletes many as an admin (deleted / not_found); 403 for a member', async () => {
    const [a, b] = [fresh(), fresh()]
    await expectError(await bulk(`?error_ids=${a.id}`, { operation: 'delete' }, member.token), 403, 'only organization admins may do this')
    const res = await bulk(`?error_ids=${a.id},nope,${b.id}`, { operation: 'delete' })
    expect(res.status).toBe(200)
    expect(((await res.json()) as BulkErrorResult[]).map((r) => [r.id, r.status, r.error])).toEqual([
      [a.id, 'deleted', null],
      ['nope', 'not_found', null],
      [b.id, 'deleted', null],
    ])
    expect(await row(a.id)).toBeUndefined()
    expect(await row(b.id)).toBeUndefined()
  })

  it(`answers 400 for more than ${MAX_BULK_ERROR_IDS} ids, none, or a malformed one`, async () => {
    const many = Array.from({ length: MAX_BULK_ERROR_IDS + 1 }, (_, i) => `e${i}`).join(',')
    await expectError(await bulk(`?error_ids=${many}`, { operation: 'fix' }), 400, `error_ids: at most ${MAX_BULK_ERROR_IDS} error ids per request`)
    await expectError(await bulk('', { operation: 'fix' }), 400, 'error_ids: required: comma-separated error ids, e.g. ?error_ids=a,b')
    await expectError(await bulk('?error_ids=', { operation: 'fix' }), 400, 'error_ids: must name at least one error id')
    await expectError(await bulk('?error_ids=,,', { operation: 'fix' }), 400, 'error_ids: must name at least one error id')
    await expectError(await bulk('?error_ids=a,b%00c', { operation: 'fix' }), 400, 'error_ids: must not contain NUL characters (\\u0000)')
    await expectError(await bulk('?error_ids=a,b%2Fc', { operation: 'fix' }), 400, 'error_ids.1: is not an error id')
    await expectError(await bulk(`?error_ids=${seeded[0]!.id}`, { operation: 'nap' }), 400, /^operation: must be one of/)
    // Exactly the maximum is fine.
    const exactly = Array.from({ length: MAX_BULK_ERROR_IDS }, (_, i) => `e${i}`).join(',')
    const res = await bulk(`?error_ids=${exactly}`, { operation: 'ignore' })
    expect(res.status).toBe(200)
    expect(((await res.json()) as BulkErrorResult[]).every((r) => r.status === 'not_found')).toBe(true)
  })
})

describe('GET /projects/:projectId/errors/:errorId/status_changes', () => {
  it(`lists the newest ${MAX_STATUS_CHANGES}, newest first, with actor null when nobody did it`, async () => {
    const e = fresh()
    const base = Date.now() - 10 * 24 * 3_600_000
    const rows = Array.from({ length: MAX_STATUS_CHANGES + 5 }, (_, i) => ({
      id: newId(base + i * 60_000),
      errorId: e.id,
      actorId: i % 2 === 0 ? main.user.id : null,
      fromStatus: i % 2 === 0 ? 'open' : 'fixed',
      toStatus: i % 2 === 0 ? 'fixed' : 'open',
      reason: i % 2 === 0 ? 'operation' : 'event',
      createdAt: new Date(base + i * 60_000),
    }))
    await db().insert(errorStatusChanges).values(rows)
    const list = await history(e.id)
    expect(list).toHaveLength(MAX_STATUS_CHANGES)
    expect(list[0]!.created_at).toBe(rows[rows.length - 1]!.createdAt.toISOString())
    expect(list.map((c) => c.id)).toEqual(rows.slice(5).reverse().map((r) => r.id))
    // The newest (i = 104) was someone's operation; the one before it (i = 103) an event's.
    expect(list[0]).toMatchObject({ actor: { id: main.user.id, name: 'Admin Ada' }, reason: 'operation' })
    expect(list[1]).toMatchObject({ actor: null, reason: 'event', from_status: 'fixed', to_status: 'open' })
  })
})

describe('status changes through ingestion', () => {
  const reload = async (id: string) => (await row(id))!

  it('reopens a fixed error on its next event, recorded with no actor', async () => {
    const id = await ingestedError('FixedThenSeen', 1)
    await patch(id, { operation: 'fix' })
    await notify(oneEvent('FixedThenSeen'))
    expect((await reload(id)).status).toBe('open')
    const [latest] = await history(id)
    expect(latest).toMatchObject({ from_status: 'fixed', to_status: 'open', reason: 'event', actor: null })
  })

  it('keeps an ignored error ignored', async () => {
    const id = await ingestedError('IgnoredForever', 1)
    await patch(id, { operation: 'ignore' })
    await notify(oneEvent('IgnoredForever'))
    expect((await reload(id)).status).toBe('ignored')
    expect((await history(id)).map((h) => h.to_status)).toEqual(['ignored'])
  })

  it('reopens a snoozed error after N additional occurrences', async () => {
    const id = await ingestedError('SnoozedForTwo', 3)
    await patch(id, { operation: 'snooze', reopen_rules: { reopen_if: 'n_additional_occurrences', additional_occurrences: 2 } })
    await notify(oneEvent('SnoozedForTwo'))
    expect((await reload(id)).status).toBe('snoozed')
    await notify(oneEvent('SnoozedForTwo'))
    const reopened = await reload(id)
    expect([reopened.status, reopened.reopenRules, reopened.eventsCount]).toEqual(['open', null, 5])
    expect((await history(id))[0]).toMatchObject({ from_status: 'snoozed', to_status: 'open', reason: 'snooze_rule', actor: null })
  })

  it('reopens a snoozed error after N occurrences within M hours', async () => {
    const id = await ingestedError('SnoozedPerHour', 1)
    await patch(id, { operation: 'snooze', reopen_rules: { reopen_if: 'n_occurrences_in_m_hours', occurrences: 2, hours: 1 } })
    await notify(oneEvent('SnoozedPerHour'))
    expect((await reload(id)).status).toBe('snoozed')
    await notify(oneEvent('SnoozedPerHour'))
    expect((await reload(id)).status).toBe('open')
  })

  it('reopens a snoozed error on an event after the snooze time', async () => {
    const id = await ingestedError('SnoozedUntil', 1)
    await patch(id, { operation: 'snooze', reopen_rules: { reopen_if: 'occurs_after', seconds: 3600 } })
    await notify(oneEvent('SnoozedUntil'))
    expect((await reload(id)).status).toBe('snoozed')
    // Pretend the hour has passed.
    await db()
      .update(errors)
      .set({ reopenRules: sql`jsonb_set(${errors.reopenRules}, '{reopen_after}', to_jsonb(${new Date(Date.now() - 1000).toISOString()}::text))` })
      .where(eq(errors.id, id))
    await notify(oneEvent('SnoozedUntil'))
    expect((await reload(id)).status).toBe('open')
  })
})

describe('revert_status: undoing a status change', () => {
  it('puts a snooze back exactly as it was: rule, snoozed_at and counters, so the rule still counts from the first snooze', async () => {
    const id = await ingestedError('UndoSnooze', 2)
    const snoozed = (await (
      await patch(id, { operation: 'snooze', reopen_rules: { reopen_if: 'n_additional_occurrences', additional_occurrences: 2 } })
    ).json()) as ErrorGroup
    await notify(oneEvent('UndoSnooze'))
    expect(((await (await patch(id, { operation: 'fix' })).json()) as ErrorGroup).status).toBe('fixed')
    const reverted = await patch(id, { operation: 'revert_status' })
    expect(reverted.status).toBe(200)
    const body = (await reverted.json()) as ErrorGroup
    expect(body).toMatchObject({ status: 'snoozed', reopen_rules: snoozed.reopen_rules })
    expect((await history(id)).slice(0, 2).map((c) => [c.from_status, c.to_status, c.reopen_rules])).toEqual([
      ['fixed', 'snoozed', snoozed.reopen_rules],
      ['snoozed', 'fixed', null],
    ])
    // One event came while snoozed before the fix; the second meets the rule of the original snooze.
    await notify(oneEvent('UndoSnooze'))
    expect((await row(id))!.status).toBe('open')
  })

  it('takes back fix, ignore and open; a revert of a revert redoes it; the trend rollup follows', async () => {
    const id = await ingestedError('UndoFix', 1)
    const trendByStatus = async () =>
      (
        await queryRows<{ status: string; n: number }>(
          db(),
          sql`SELECT status, sum(events)::int AS n FROM project_hourly_counts WHERE project_id = ${main.project.id} GROUP BY status ORDER BY status`,
        )
      ).map((r) => `${r.status}:${r.n}`)
    const before = await trendByStatus()
    await patch(id, { operation: 'fix' })
    expect((await (await patch(id, { operation: 'revert_status' })).json()) as ErrorGroup).toMatchObject({ status: 'open', reopen_rules: null })
    expect(await trendByStatus()).toEqual(before)
    expect(((await (await patch(id, { operation: 'revert_status' })).json()) as ErrorGroup).status).toBe('fixed')
    await patch(id, { operation: 'ignore' })
    expect(((await (await patch(id, { operation: 'revert_status' })).json()) as ErrorGroup).status).toBe('fixed')
  })

  it('refuses with 409 when there is nothing of the caller’s to revert: no change, another’s change, a reopening by an event', async () => {
    const id = await ingestedError('UndoRefused', 1)
    await expectError(await patch(id, { operation: 'revert_status' }), 409, 'Cannot revert the status: the error has no status change to revert')
    await patch(id, { operation: 'fix' }, member.token)
    await expectError(await patch(id, { operation: 'revert_status' }), 409, /not made by you/)
    expect((await row(id))!.status).toBe('fixed')
    await patch(id, { operation: 'fix' })
    await notify(oneEvent('UndoRefused'))
    expect((await row(id))!.status).toBe('open')
    await expectError(await patch(id, { operation: 'revert_status' }, member.token), 409, /not made by you/)
    expect((await row(id))!.status).toBe('open')
  })

  it('reverts many errors in one bulk request, refusing each one it cannot with why; outsiders get 404', async () => {
    const [a, b, c] = [await ingestedError('UndoBulkA', 1), await ingestedError('UndoBulkB', 1), await ingestedError('UndoBulkC', 1)]
    await bulk(`?error_ids=${a},${b}`, { operation: 'ignore' })
    const res = await bulk(`?error_ids=${a},${b},${c}`, { operation: 'revert_status' })
    expect(res.status).toBe(200)
    const results = (await res.json()) as BulkErrorResult[]
    expect(results.map((r) => [r.id, r.status, r.error?.status ?? null])).toEqual([
      [a, 'updated', 'open'],
      [b, 'updated', 'open'],
      [c, 'failed', null],
    ])
    expect(results[2]!.errors).toEqual(['Cannot revert the status: the error has no status change to revert'])
    expect((await patch(a, { operation: 'revert_status' }, outsider.token)).status).toBe(404)
  })
})
