// Liveness and readiness apart: a database busy with heavy queries must not fail the liveness
// probe (an orchestrator would restart a healthy server), while readiness reports it within its
// bound; filtered searches wait for a slot, and a 503 with Retry-After when none frees up.
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { filteredQueryGate } from '../http/filtered-query-gate.ts'
import { acceptedPayload, notifierEvent } from '../test-support/ingest.ts'
import { seedProject } from '../test-support/seed.ts'
import { createTestContext, type TestContext, type TestUser } from '../test-support/test-app.ts'

let ctx: TestContext
let owner: TestUser
let projectId: string

beforeAll(async () => {
  ctx = await createTestContext({
    readiness: { timeoutMs: 300, maxBacklog: 3 },
    filteredQueries: { concurrency: 1, waitMs: 100 },
  })
  owner = await ctx.createUser('Health Owner')
  projectId = (await seedProject(ctx, { user: owner, project: 'Health' })).project.id
})
afterAll(() => ctx.close())

const get = (path: string, token?: string) =>
  ctx.app.request(`http://errata.test${path}`, { headers: token ? { Authorization: `token ${token}`, 'X-Version': '2' } : {} })

/**
 * Keeps the database busy for `seconds`: one long statement on the embedded database (one
 * query at a time), on PostgreSQL one per pooled connection (5 in tests) and one more.
 */
function busyDatabase(seconds: number): { done: boolean; finished: Promise<unknown> } {
  const n = ctx.deps.database.engine === 'pglite' ? 1 : 6
  const state = { done: false, finished: Promise.resolve() as Promise<unknown> }
  state.finished = Promise.all(Array.from({ length: n }, () => ctx.deps.database.db.execute(sql`SELECT pg_sleep(${seconds})`))).finally(() => {
    state.done = true
  })
  return state
}

describe('health', () => {
  it('answers liveness without the database and readiness within its bound while the database is busy', async () => {
    expect((await get('/readyz')).status).toBe(200)
    const busy = busyDatabase(3)
    try {
      const live = await get('/healthz')
      expect(live.status).toBe(200)
      expect(await live.json()).toEqual({ status: 'ok' })
      expect(busy.done).toBe(false)

      const ready = await get('/readyz')
      expect(ready.status).toBe(503)
      expect(await ready.json()).toMatchObject({ status: 'unavailable', problem: 'no answer from the database within 300 ms' })
      // Answered within the bound, not when the database got to it.
      expect(busy.done).toBe(false)
    } finally {
      await busy.finished
    }
    expect((await get('/readyz')).status).toBe(200)
  })

  it('is not ready while the ingest backlog is at its bound', async () => {
    // A server whose accepted events wait to be indexed (until 500 have gathered): a backlog builds up.
    const lagging = await createTestContext({
      readiness: { timeoutMs: 5000, maxBacklog: 3 },
      ingest: { ...loadConfig({}).ingest, indexLingerMs: 60_000 },
    })
    try {
      const { project } = await seedProject(lagging, { project: 'Lagging' })
      const ready = () => lagging.app.request('http://errata.test/readyz')
      await lagging.deps.ingestWriter.write(acceptedPayload(project.id, { events: [notifierEvent('Backlog')] }))
      const below = await ready()
      expect(below.status).toBe(200)
      expect(await below.json()).toMatchObject({ status: 'ok', ingest_queue: { pending: 1 } })
      for (let i = 0; i < 2; i++) await lagging.deps.ingestWriter.write(acceptedPayload(project.id, { events: [notifierEvent('Backlog')] }))
      const behind = await ready()
      expect(behind.status).toBe(503)
      expect(await behind.json()).toMatchObject({
        status: 'unavailable',
        ingest_queue: { pending: 3, failed: 0 },
        problem: 'ingest backlog of 3 events is at or above 3 (ERRATA_READY_MAX_BACKLOG)',
      })
      expect((await lagging.app.request('http://errata.test/healthz')).status).toBe(200)
    } finally {
      await lagging.close()
    }
  })

  it('bounds filtered searches running at once: past the bound and its wait, 503 with Retry-After', async () => {
    const filtered = `/api/projects/${projectId}/events?filters[event.message][][type]=eq&filters[event.message][][value]=happened`
    // The one slot taken, as by a long search in progress.
    const release = await filteredQueryGate(ctx.deps).enter(0)
    try {
      const refused = await get(filtered, owner.token)
      expect(refused.status).toBe(503)
      expect(refused.headers.get('Retry-After')).toBe('5')
      expect(await refused.json()).toEqual({ errors: ['too many filtered searches are running; retry shortly'] })
      // Without filters a request takes no slot.
      expect((await get(`/api/projects/${projectId}/events`, owner.token)).status).toBe(200)
      // A search that waits for a slot that frees up in time runs.
      const waiting = get(filtered, owner.token)
      setTimeout(release, 20)
      expect((await waiting).status).toBe(200)
    } finally {
      release()
    }
    expect(filteredQueryGate(ctx.deps).running).toBe(0)
  })
})
