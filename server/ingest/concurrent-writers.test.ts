// Indexing, triage and deletions of one project at the same moment, as several Errata processes
// on one PostgreSQL do (on PGlite, one connection, they take turns anyway). Before the project
// write lock (db/project-lock.ts), indexers deadlocked on a snoozed error's row, status changes
// failed with deadlocks, and concurrent deletes of one event took its counts off its trend twice.
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { queryRows } from '../db/client.ts'
import { seedProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'
import { acceptedPayload, appendToIngestLog, tableIndexer } from '../test-support/ingest.ts'

let ctx: TestContext
let owner: TestUser
let projectId: string

beforeAll(async () => {
  ctx = await createTestContext({ ingest: { ...loadConfig({}).ingest, indexLingerMs: 60_000 } })
  owner = await ctx.createUser('Contended Owner')
  projectId = (await seedProject(ctx, { user: owner, organization: 'Contended Org', project: 'Contended' })).project.id
})
afterAll(() => ctx.close())

/** Requests of 10 events of one error (the same class and in-project frame), `n` in all, from `users` different users, into ingest_log. */
function contended(n: number, users: number) {
  const event = (i: number) => ({
    exceptions: [{ errorClass: 'Contended', message: `m${i}`, stacktrace: [{ file: 'src/c.js', method: 'run', lineNumber: 1, inProject: true }] }],
    user: { id: `user-${i % users}` },
    app: { releaseStage: i % 2 ? 'production' : 'staging' },
  })
  const requests = Array.from({ length: n / 10 }, (_, r) =>
    acceptedPayload(projectId, { events: Array.from({ length: 10 }, (_, i) => event(r * 10 + i)) }),
  )
  return appendToIngestLog(ctx.deps.database.db, requests)
}

const api = (path: string, init: { method?: string; json?: unknown } = {}) => ctx.request(`/api${path}`, { token: owner.token, ...init })

async function totals(errorId: string) {
  const [row] = await queryRows<Record<string, number | string>>(
    ctx.deps.database.db,
    sql`SELECT
      (SELECT events_count FROM errors WHERE id = ${errorId}) AS counter,
      (SELECT count(*) FROM events WHERE error_id = ${errorId}) AS events,
      (SELECT coalesce(sum(events), 0) FROM error_hourly_counts WHERE error_id = ${errorId}) AS error_hours,
      (SELECT coalesce(sum(events), 0) FROM project_hourly_counts WHERE project_id = ${projectId}) AS project_hours,
      (SELECT coalesce(sum(events), 0) FROM pivot_counts WHERE error_id = ${errorId} AND field = 'app.release_stage') AS stage_pivot,
      (SELECT count(*) FROM ingest_log WHERE project_id = ${projectId}) AS queued`,
  )
  return Object.fromEntries(Object.entries(row!).map(([key, value]) => [key, Number(value)]))
}

describe('several writers on one project at once', () => {
  it('indexes, changes status and deletes events without deadlocks, and every count stays exact', { timeout: 60_000 }, async () => {
    await contended(20, 5)
    const first = tableIndexer(ctx)
    await first.idle()
    await first.close()
    const [{ id: errorId }] = (await (await api(`/projects/${projectId}/errors`)).json()) as [{ id: string }]
    const snooze = { operation: 'snooze', reopen_rules: { reopen_if: 'n_additional_occurrences', additional_occurrences: 1_000_000 } }
    expect((await api(`/projects/${projectId}/errors/${errorId}`, { method: 'PATCH', json: snooze })).status).toBe(200)

    await contended(600, 40)
    const indexers = [0, 1, 2].map(() => tableIndexer(ctx, { batchSize: 25 }))
    const victims = ((await (await api(`/errors/${errorId}/events?per_page=5`)).json()) as { id: string }[]).map((e) => e.id)
    const [, triage, deletes] = await Promise.all([
      Promise.all(indexers.map((w) => w.idle())),
      Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          api(`/projects/${projectId}/errors/${errorId}`, { method: 'PATCH', json: i % 2 ? snooze : { operation: 'open' } }),
        ),
      ),
      // Each event deleted three times at once: one succeeds, the others find it gone.
      Promise.all(victims.flatMap((id) => [0, 1, 2].map(() => api(`/events/${id}`, { method: 'DELETE' })))),
    ])
    await Promise.all(indexers.map((w) => w.close()))

    expect(triage.map((res) => res.status)).toEqual(Array(12).fill(200))
    const deleteStatuses = deletes.map((res) => res.status)
    expect(deleteStatuses.filter((s) => s === 204)).toHaveLength(victims.length)
    expect(deleteStatuses.filter((s) => s === 404)).toHaveLength(victims.length * 2)
    const expected = 620 - victims.length
    expect(await totals(errorId)).toEqual({
      counter: expected,
      events: expected,
      error_hours: expected,
      project_hours: expected,
      stage_pivot: expected,
      queued: 0,
    })
  })
})
