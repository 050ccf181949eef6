import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BulkErrorResult, ErrorGroup, ErrorStatusChange } from '../../contract/errors.ts'
import type { PivotValue } from '../../contract/pivots.ts'
import type { TrendBucket } from '../../contract/trends.ts'
import { queryRows } from '../db/client.ts'
import { fieldValuePairs, hasProjectRows } from '../rollups/fold.ts'
import { projectHoursCheck } from '../rollups/rollups.ts'
import { ingestAt, notifierEvent } from '../test-support/ingest.ts'
import { seedMember, seedProject, type SeededProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

// Merging errors (docs/errors-workflow.md#merging), through real ingestion: counts, users and
// every rollup exact after a merge, after later events and after the unmerge.

const HOUR = 3_600_000
const T0 = Date.UTC(2026, 3, 1, 10, 15)
let ctx: TestContext
let main: SeededProject
let otherProjectError: string
let member: TestUser

beforeAll(async () => {
  ctx = await createTestContext()
  main = await seedProject(ctx, { user: 'Admin Ada', organization: 'Merge Org', project: 'Main' })
  member = await seedMember(ctx, main.organization.id, 'Member Max')
  const other = await seedProject(ctx, { user: 'Other Olga', organization: 'Other Org', project: 'Other' })
  await send(other.project.id, 'Elsewhere', [{ hour: 0, user: 'x' }])
  otherProjectError = (await errorsOf(other.project.id)).Elsewhere!
})
afterAll(() => ctx.close())

const db = () => ctx.deps.database.db
const api = (path: string, init: { method?: string; json?: unknown; token?: string } = {}) =>
  ctx.request(`/api/projects/${main.project.id}${path}`, { token: main.user.token, ...init })

interface Sent {
  hour: number
  user?: string
  stage?: string
  version?: string
}

/** Events of `errorClass`, each at T0 + hour hours, with the user, release stage and version given. */
async function send(projectId: string, errorClass: string, events: Sent[]) {
  await ingestAt(
    ctx,
    projectId,
    events.map((e) => ({
      at: new Date(T0 + e.hour * HOUR),
      event: notifierEvent(errorClass, {
        ...(e.user && { user: { id: e.user, email: `${e.user}@example.com` } }),
        app: { releaseStage: e.stage ?? 'production', ...(e.version && { version: e.version }) },
      }),
    })),
  )
}

async function errorsOf(projectId = main.project.id): Promise<Record<string, string>> {
  const rows = await queryRows<{ id: string; error_class: string }>(
    db(),
    sql`SELECT id, error_class FROM errors WHERE project_id = ${projectId}`,
  )
  return Object.fromEntries(rows.map((r) => [r.error_class, r.id]))
}

async function getError(id: string): Promise<ErrorGroup> {
  const res = await api(`/errors/${id}`)
  expect(res.status).toBe(200)
  return (await res.json()) as ErrorGroup
}

const merge = (ids: string[], token = main.user.token) =>
  api(`/errors?error_ids=${ids.join(',')}`, { method: 'PATCH', json: { operation: 'merge' }, token })
const unmerge = (id: string, token = main.user.token) => api(`/errors/${id}`, { method: 'PATCH', json: { operation: 'unmerge' }, token })

async function expectError(res: Response, status: number, message: RegExp) {
  expect(res.status).toBe(status)
  const body = (await res.json()) as { errors: string[] }
  expect(body.errors.some((m) => message.test(m)), JSON.stringify(body.errors)).toBe(true)
}

/** Each error's counters, next to what its events and users say they should be. */
async function countersCheck() {
  return queryRows<{ id: string; events_count: number; events: number; users_count: number; users: number; first_ok: boolean; last_ok: boolean }>(
    db(),
    sql`SELECT e.id, e.events_count::int AS events_count, (SELECT count(*)::int FROM events g WHERE g.error_id = e.id) AS events,
          e.users_count::int AS users_count,
          (SELECT count(DISTINCT coalesce(g.user_id, g.user_email))::int FROM events g WHERE g.error_id = e.id) AS users,
          e.first_seen = (SELECT min(received_at) FROM events g WHERE g.error_id = e.id) AS first_ok,
          e.last_seen = (SELECT max(received_at) FROM events g WHERE g.error_id = e.id) AS last_ok
        FROM errors e WHERE e.project_id = ${main.project.id} AND e.merged_into_id IS NULL ORDER BY e.id`,
  )
}

/** Every rollup of the project, stored and as recomputed from the events (first and last seen included). */
async function rollupsCheck() {
  const p = main.project.id
  const [pivots, expectedPivots, hours, expectedHours] = await Promise.all([
    queryRows(db(), sql`SELECT error_id, field, value, events::int AS events, first_seen::text AS f, last_seen::text AS l
      FROM pivot_counts WHERE project_id = ${p} ORDER BY 1, 2, 3`),
    queryRows(db(), sql`SELECT k.error_id, f.field, f.value, count(*)::int AS events, min(g.received_at)::text AS f, max(g.received_at)::text AS l
      FROM events g CROSS JOIN LATERAL ${fieldValuePairs} AS f(field, value) CROSS JOIN LATERAL (VALUES (g.error_id), ('')) AS k(error_id)
      WHERE g.project_id = ${p} AND (k.error_id <> '' OR ${hasProjectRows('f.field', 'f.value')}) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`),
    queryRows(db(), sql`SELECT error_id, hour::text AS hour, events::int AS events FROM error_hourly_counts WHERE project_id = ${p} ORDER BY 1, 2`),
    queryRows(db(), sql`SELECT error_id, date_bin('1 hour', received_at, timestamptz '1970-01-01 00:00:00+00')::text AS hour, count(*)::int AS events
      FROM events WHERE project_id = ${p} GROUP BY 1, 2 ORDER BY 1, 2`),
  ])
  const project = await projectHoursCheck(db(), p)
  return { stored: { pivots, hours, project: project.stored }, expected: { pivots: expectedPivots, hours: expectedHours, project: project.expected } }
}

async function expectExact() {
  for (const row of await countersCheck()) {
    expect(row.events_count, `events of ${row.id}`).toBe(row.events)
    expect(row.users_count, `users of ${row.id}`).toBe(row.users)
    expect(row.first_ok && row.last_ok, `first and last seen of ${row.id}`).toBe(true)
  }
  const { stored, expected } = await rollupsCheck()
  expect(stored).toEqual(expected)
}

async function trendTotal(errorId: string): Promise<number> {
  const res = await api(`/errors/${errorId}/trend?resolution=1h&filters[event.since][][type]=eq&filters[event.since][][value]=${new Date(T0 - 2 * HOUR).toISOString()}&filters[event.before][][type]=eq&filters[event.before][][value]=${new Date(T0 + 10 * HOUR).toISOString()}`)
  expect(res.status).toBe(200)
  return ((await res.json()) as TrendBucket[]).reduce((sum, b) => sum + b.events_count, 0)
}

async function pivotUsers(errorId: string): Promise<Record<string, number>> {
  const res = await api(`/errors/${errorId}/pivots/user.id/values`)
  expect(res.status).toBe(200)
  return Object.fromEntries(((await res.json()) as PivotValue[]).map((v) => [v.event_field_value, v.events]))
}

async function listedClasses(): Promise<{ classes: string[]; total: number }> {
  const res = await api('/errors?per_page=100')
  expect(res.status).toBe(200)
  const list = (await res.json()) as ErrorGroup[]
  return { classes: list.map((e) => e.error_class).sort(), total: Number(res.headers.get('X-Total-Count')) }
}

describe('merge and unmerge', () => {
  let ids: Record<string, string>

  it('merges errors into the first: events, users, rollups, trends, pivots and lists follow', async () => {
    await send(main.project.id, 'Alpha', [
      { hour: 0, user: 'u1', version: '1.0' },
      { hour: 1, user: 'u2', version: '1.0' },
    ])
    await send(main.project.id, 'Beta', [
      { hour: 0, user: 'u2', stage: 'staging', version: '1.1' },
      { hour: 2, user: 'u3', version: '1.1' },
      { hour: 3, user: 'u3' },
    ])
    await send(main.project.id, 'Gamma', [{ hour: -1, user: 'u4' }])
    await send(main.project.id, 'Delta', [{ hour: 0, user: 'u5' }])
    ids = await errorsOf()
    await api(`/errors/${ids.Alpha}`, { method: 'PATCH', json: { operation: 'fix' } })
    await expectExact()
    const before = await listedClasses()
    expect(before).toEqual({ classes: ['Alpha', 'Beta', 'Delta', 'Gamma'], total: 4 })

    const res = await merge([ids.Alpha!, ids.Beta!, ids.Gamma!], member.token)
    expect(res.status).toBe(200)
    const results = (await res.json()) as BulkErrorResult[]
    expect(results.map((r) => [r.id, r.status, r.error?.merged_into_id])).toEqual([
      [ids.Alpha, 'updated', null],
      [ids.Beta, 'merged', ids.Alpha],
      [ids.Gamma, 'merged', ids.Alpha],
    ])

    const alpha = await getError(ids.Alpha!)
    expect(alpha).toMatchObject({
      events: 6,
      users: 4,
      status: 'fixed',
      first_seen: new Date(T0 - HOUR).toISOString(),
      last_seen: new Date(T0 + 3 * HOUR).toISOString(),
      merged_into_id: null,
    })
    expect(alpha.release_stages.sort()).toEqual(['production', 'staging'])
    expect(alpha.merged_errors?.map((m) => [m.id, m.error_class, m.events]).sort()).toEqual(
      [
        [ids.Beta, 'Beta', 3],
        [ids.Gamma, 'Gamma', 1],
      ].sort(),
    )
    expect((await getError(ids.Beta!)).merged_into_id).toBe(ids.Alpha)
    await expectExact()
    expect(await trendTotal(ids.Alpha!)).toBe(6)
    expect(await pivotUsers(ids.Alpha!)).toEqual({ u1: 1, u2: 2, u3: 2, u4: 1 })
    expect(await listedClasses()).toEqual({ classes: ['Alpha', 'Delta'], total: 2 })
    const counts = await (await api('/error_status_counts')).json()
    expect(counts).toMatchObject({ counts: { open: 1, fixed: 1 }, total: 2 })

    // Both histories say so; the comments and status history of the merged errors stay theirs.
    const alphaHistory = (await (await api(`/errors/${ids.Alpha}/status_changes`)).json()) as ErrorStatusChange[]
    expect(alphaHistory.filter((h) => h.reason === 'merge').map((h) => h.merge?.merged.id).sort()).toEqual([ids.Beta, ids.Gamma].sort())
    expect(alphaHistory.find((h) => h.reason === 'merge')?.actor?.name).toBe('Member Max')
    expect(alphaHistory.some((h) => h.reason === 'operation' && h.to_status === 'fixed')).toBe(true)
    const betaHistory = (await (await api(`/errors/${ids.Beta}/status_changes`)).json()) as ErrorStatusChange[]
    expect(betaHistory.map((h) => [h.reason, h.merge?.into.id])).toEqual([['merge', ids.Alpha]])
  })

  it('sends later events of a merged group to the error it is merged into, making no new error', async () => {
    await send(main.project.id, 'Beta', [
      { hour: 4, user: 'u6', version: '1.2' },
      { hour: 4, user: 'u1' },
    ])
    expect(await errorsOf()).toEqual(ids)
    const alpha = await getError(ids.Alpha!)
    // Received (by their times) before the fix: they do not reopen it, as its own would not.
    expect(alpha).toMatchObject({ events: 8, users: 5, status: 'fixed' })
    expect(alpha.merged_errors?.find((m) => m.id === ids.Beta)?.events).toBe(5)
    expect(alpha.app_versions.sort()).toEqual(['1.0', '1.1', '1.2'])
    await expectExact()
    expect(await trendTotal(ids.Alpha!)).toBe(8)
  })

  it('refuses what cannot be merged: 400 naming the field, 404 for errors it cannot see, 409 for merged ones', async () => {
    await expectError(await merge([ids.Delta!]), 400, /^error_ids: a merge takes at least two error ids/)
    await expectError(await merge([ids.Delta!, ids.Delta!]), 400, /^error_ids: names an error more than once/)
    await expectError(await merge([ids.Delta!, otherProjectError]), 404, /^Error not found/)
    await expectError(await merge([ids.Delta!, 'nope']), 404, /^Error not found/)
    await expectError(await merge([ids.Delta!, ids.Beta!]), 409, /error_ids: error .* is already merged into error/)
    await expectError(await merge([ids.Beta!, ids.Delta!]), 409, /already merged/)
    await expectError(await unmerge(ids.Beta!), 409, /^operation: this error is merged into error/)
    await expectError(await unmerge(ids.Delta!), 409, /^operation: no error is merged into this one/)
    await expectError(await api(`/errors/${ids.Delta}`, { method: 'PATCH', json: { operation: 'merge' } }), 400, /^operation: merge takes several errors/)
    await expectError(
      await api(`/errors?error_ids=${ids.Delta},${ids.Alpha}`, { method: 'PATCH', json: { operation: 'unmerge' } }),
      400,
      /^operation: unmerge is made on one error/,
    )
    // Nothing changed.
    expect((await getError(ids.Delta!)).merged_into_id).toBeNull()
    await expectExact()
  })

  it('unmerges: every merged error gets its own events back, later ones included, and every count follows', async () => {
    const res = await unmerge(ids.Alpha!, member.token)
    expect(res.status).toBe(200)
    const alpha = (await res.json()) as ErrorGroup
    expect(alpha).toMatchObject({ events: 2, users: 2, last_seen: new Date(T0 + HOUR).toISOString(), status: 'fixed' })
    expect(alpha.app_versions).toEqual(['1.0'])
    const beta = await getError(ids.Beta!)
    expect(beta).toMatchObject({ events: 5, users: 4, merged_into_id: null, merged_errors: [] })
    expect(beta.app_versions.sort()).toEqual(['1.1', '1.2'])
    expect(await getError(ids.Gamma!)).toMatchObject({ events: 1, users: 1, merged_into_id: null })
    await expectExact()
    expect(await trendTotal(ids.Alpha!)).toBe(2)
    expect(await trendTotal(ids.Beta!)).toBe(5)
    expect(await pivotUsers(ids.Alpha!)).toEqual({ u1: 1, u2: 1 })
    expect(await listedClasses()).toEqual({ classes: ['Alpha', 'Beta', 'Delta', 'Gamma'], total: 4 })
    const betaHistory = (await (await api(`/errors/${ids.Beta}/status_changes`)).json()) as ErrorStatusChange[]
    expect(betaHistory.map((h) => h.reason)).toEqual(['unmerge', 'merge'])

    // Their new events are theirs again.
    await send(main.project.id, 'Beta', [{ hour: 5, user: 'u7' }])
    expect((await getError(ids.Beta!)).events).toBe(6)
    expect((await getError(ids.Alpha!)).events).toBe(2)
    await expectExact()
  })

  it('merges an error that has merged errors: they all go to the new one, and come back apart', async () => {
    expect((await merge([ids.Beta!, ids.Gamma!])).status).toBe(200)
    expect((await getError(ids.Beta!)).events).toBe(7)
    await expectExact()
    expect((await merge([ids.Delta!, ids.Beta!])).status).toBe(200)
    const delta = await getError(ids.Delta!)
    expect(delta.events).toBe(1 + 6 + 1)
    expect(delta.merged_errors?.map((m) => m.id).sort()).toEqual([ids.Beta, ids.Gamma].sort())
    expect((await getError(ids.Gamma!)).merged_into_id).toBe(ids.Delta)
    await expectExact()
    expect((await unmerge(ids.Delta!)).status).toBe(200)
    expect((await getError(ids.Beta!)).events).toBe(6)
    expect((await getError(ids.Gamma!)).events).toBe(1)
    expect((await getError(ids.Delta!)).events).toBe(1)
    await expectExact()
  })

  it('takes turns with the indexer: a merge during ingestion leaves every count exact', async () => {
    const sending = (async () => {
      for (let i = 0; i < 6; i++) await send(main.project.id, i % 2 ? 'Beta' : 'Alpha', [{ hour: 6 + i, user: `c${i}` }])
    })()
    const merged = await merge([ids.Alpha!, ids.Beta!])
    await sending
    expect(merged.status).toBe(200)
    const alpha = await getError(ids.Alpha!)
    expect(alpha.events).toBe(2 + 6 + 6)
    await expectExact()
    expect((await unmerge(ids.Alpha!)).status).toBe(200)
    expect((await getError(ids.Beta!)).events).toBe(6 + 3)
    await expectExact()
  })
})
