import { sql } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../db/client.ts'
import { moveErrorsBetweenStatuses, projectHoursCheck } from '../rollups/rollups.ts'
import { ingestAt, notifierEvent } from '../test-support/ingest.ts'
import { seedProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext } from '../test-support/test-app.ts'

// How ingestion honours error statuses (docs/errors-workflow.md). Statuses and snooze
// bookkeeping are set directly here, in the shape the snooze operation stores them.

const HOUR = 3_600_000
let ctx: TestContext
let projectId: string
let token: string

beforeAll(async () => {
  ctx = await createTestContext()
  const seeded = await seedProject(ctx, { organization: 'Reopen Org', project: 'Reopen' })
  projectId = seeded.project.id
  token = seeded.user.token
})
afterAll(() => ctx.close())

// Every reopen moves the error's hourly counts to its new status (the project trend by status).
afterEach(async () => {
  const { stored, expected } = await projectHoursCheck(ctx.deps.database.db, projectId)
  expect(stored).toEqual(expected)
})

const db = () => ctx.deps.database.db

/** Sends `count` events of `errorClass`, received at `at` (default now). */
async function send(errorClass: string, count = 1, at = new Date()) {
  await ingestAt(
    ctx,
    projectId,
    Array.from({ length: count }, () => ({ at, event: notifierEvent(errorClass) })),
  )
}

async function errorOf(errorClass: string) {
  const rows = await queryRows<{ id: string; status: string; reopen_rules: unknown; events_count: number }>(
    db(),
    sql`SELECT id, status, reopen_rules, events_count::int AS events_count FROM errors
        WHERE project_id = ${projectId} AND error_class = ${errorClass}`,
  )
  return rows[0]!
}

async function setStatus(errorClass: string, status: string, rules: Record<string, unknown> | null = null) {
  const { id, status: from } = await errorOf(errorClass)
  await moveErrorsBetweenStatuses(db(), projectId, [{ errorId: id, from, to: status }])
  await db().execute(
    sql`UPDATE errors SET status = ${status}, reopen_rules = ${rules === null ? null : JSON.stringify(rules)}::jsonb WHERE id = ${id}`,
  )
  return id
}

const history = (errorId: string) =>
  queryRows<{ from_status: string; to_status: string; reason: string; actor_id: string | null }>(
    db(),
    sql`SELECT from_status, to_status, reason, actor_id FROM error_status_changes WHERE error_id = ${errorId} ORDER BY created_at`,
  )

/** Changes an error's status through the API, as a person does (history row and all). */
async function operate(errorId: string, body: Record<string, unknown>) {
  const res = await ctx.request(`/api/projects/${projectId}/errors/${errorId}`, { method: 'PATCH', token, json: body })
  expect(res.status).toBe(200)
}

describe('ingestion and error statuses', () => {
  it('reopens a fixed error on its next event and records it as automatic', async () => {
    await send('FixedOne')
    const id = await setStatus('FixedOne', 'fixed')
    await send('FixedOne')
    expect((await errorOf('FixedOne')).status).toBe('open')
    expect(await history(id)).toEqual([{ from_status: 'fixed', to_status: 'open', reason: 'event', actor_id: null }])
  })

  it('keeps a fixed error fixed for an event received before the fix and indexed after it', async () => {
    await send('FixedLate')
    const { id } = await errorOf('FixedLate')
    await operate(id, { operation: 'fix' })
    // Accepted a minute ago, before the fix; the indexer only gets to it now.
    await send('FixedLate', 2, new Date(Date.now() - 60_000))
    expect(await errorOf('FixedLate')).toMatchObject({ status: 'fixed', events_count: 3 })
    await send('FixedLate')
    expect((await errorOf('FixedLate')).status).toBe('open')
    expect((await history(id)).map((change) => change.reason)).toEqual(['operation', 'event'])
  })

  it('keeps an ignored error ignored', async () => {
    await send('Ignored')
    const id = await setStatus('Ignored', 'ignored')
    await send('Ignored', 5)
    expect((await errorOf('Ignored')).status).toBe('ignored')
    expect(await history(id)).toEqual([])
  })

  it('reopens a snoozed error after N additional occurrences, not before', async () => {
    await send('Additional', 2)
    const id = await setStatus('Additional', 'snoozed', {
      reopen_if: 'n_additional_occurrences',
      additional_occurrences: 3,
      snoozed_at: new Date().toISOString(),
      events_at_snooze: 2,
    })
    await send('Additional', 2)
    expect((await errorOf('Additional')).status).toBe('snoozed')
    await send('Additional')
    const row = await errorOf('Additional')
    expect(row).toMatchObject({ status: 'open', reopen_rules: null, events_count: 5 })
    expect(await history(id)).toEqual([{ from_status: 'snoozed', to_status: 'open', reason: 'snooze_rule', actor_id: null }])
  })

  it('counts towards N additional occurrences only events received after the snooze', async () => {
    await send('SnoozedLate')
    const { id } = await errorOf('SnoozedLate')
    await operate(id, { operation: 'snooze', reopen_rules: { reopen_if: 'n_additional_occurrences', additional_occurrences: 2 } })
    // Three events received before the snooze, indexed after it: they count as before it.
    await send('SnoozedLate', 3, new Date(Date.now() - 60_000))
    const late = await errorOf('SnoozedLate')
    expect(late).toMatchObject({ status: 'snoozed', events_count: 4, reopen_rules: { events_at_snooze: 4 } })
    await send('SnoozedLate')
    expect((await errorOf('SnoozedLate')).status).toBe('snoozed')
    await send('SnoozedLate')
    expect(await errorOf('SnoozedLate')).toMatchObject({ status: 'open', events_count: 6 })
  })

  it('reopens a snoozed error when it occurs after the snooze period', async () => {
    await send('After')
    const snoozedAt = new Date(Date.now() - 2 * HOUR)
    await setStatus('After', 'snoozed', {
      reopen_if: 'occurs_after',
      seconds: 3600,
      snoozed_at: snoozedAt.toISOString(),
      reopen_after: new Date(snoozedAt.getTime() + HOUR).toISOString(),
    })
    // Received inside the period: still snoozed.
    await send('After', 1, new Date(snoozedAt.getTime() + HOUR / 2))
    expect((await errorOf('After')).status).toBe('snoozed')
    await send('After')
    expect((await errorOf('After')).status).toBe('open')
  })

  it('reopens a snoozed error when N events arrive within M hours, counting only events after the snooze', async () => {
    await send('PerHour', 5, new Date(Date.now() - 12 * HOUR))
    const snoozedAt = new Date(Date.now() - 10 * HOUR)
    await setStatus('PerHour', 'snoozed', {
      reopen_if: 'n_occurrences_in_m_hours',
      occurrences: 3,
      hours: 1,
      snoozed_at: snoozedAt.toISOString(),
    })
    // Two events 5 hours ago and one now: never 3 within one hour.
    await send('PerHour', 2, new Date(Date.now() - 5 * HOUR))
    await send('PerHour', 1)
    expect((await errorOf('PerHour')).status).toBe('snoozed')
    // Two more now: 3 within the last hour.
    await send('PerHour', 2)
    expect((await errorOf('PerHour')).status).toBe('open')
  })
})
