// Liveness and readiness apart: a database busy with heavy queries must not fail the liveness
// probe (an orchestrator would restart a healthy server), nor readiness while it is alive and
// getting through them; a database that is gone fails readiness, saying why in a few words (not
// the statement). Filtered searches wait for a slot, and a 503 with Retry-After when none frees up.
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../app.ts'
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
    readiness: { timeoutMs: 300, stallMs: 60_000, maxBacklog: 3 },
    filteredQueries: { concurrency: 1, waitMs: 100 },
  })
  owner = await ctx.createUser('Health Owner')
  projectId = (await seedProject(ctx, { user: owner, project: 'Health' })).project.id
})
afterAll(() => ctx.close())

const get = (path: string, token?: string) =>
  ctx.app.request(`http://errata.test${path}`, { headers: token ? { Authorization: `token ${token}`, 'X-Version': '2' } : {} })

/**
 * Keeps `context`'s database busy for `seconds`: one long statement on the embedded database (one
 * query at a time), on PostgreSQL one per pooled connection (5 in tests) and one more.
 */
function busyDatabase(seconds: number, context = ctx): { done: boolean; finished: Promise<unknown> } {
  const n = context.deps.database.engine === 'pglite' ? 1 : 6
  const state = { done: false, finished: Promise.resolve() as Promise<unknown> }
  state.finished = Promise.all(Array.from({ length: n }, () => context.deps.database.db.execute(sql`SELECT pg_sleep(${seconds})`))).finally(() => {
    state.done = true
  })
  return state
}

describe('health', () => {
  it('answers liveness without the database, and readiness within its bound while long queries hold the database', async () => {
    expect((await get('/readyz')).status).toBe(200)
    const busy = busyDatabase(4)
    try {
      const live = await get('/healthz')
      expect(live.status).toBe(200)
      expect(await live.json()).toEqual({ status: 'ok' })
      expect(busy.done).toBe(false)

      const ready = await get('/readyz')
      expect(await ready.json()).toMatchObject({ status: 'ok', database: ctx.deps.database.engine, ingest_queue: { pending: 0, failed: 0 } })
      expect(ready.status).toBe(200)
      // Answered within the bound, not when the database got to it.
      expect(busy.done).toBe(false)
    } finally {
      await busy.finished
    }
    expect((await get('/readyz')).status).toBe(200)
  })

  it('is not ready when the database is gone, and says so without the statement', async () => {
    const gone = await createTestContext({ readiness: { timeoutMs: 2000, stallMs: 60_000, maxBacklog: 10 } })
    const { database } = gone.deps
    try {
      expect((await gone.app.request('http://errata.test/readyz')).status).toBe(200)
      if (database.engine === 'pglite') {
        // Its thread stops.
        await gone.close()
      } else {
        // The server drops the database, and its connections with it (the app's background work stopped first).
        await gone.jobs.stop()
        await gone.deps.ingestWriter.close()
        const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
        await admin.connect()
        try {
          await admin.query(`DROP DATABASE ${new URL(database.url!).pathname.slice(1)} WITH (FORCE)`)
        } finally {
          await admin.end()
        }
      }
      const ready = await gone.app.request('http://errata.test/readyz')
      expect(ready.status).toBe(503)
      const body = await ready.json()
      expect(body).toMatchObject({ status: 'unavailable', database: database.engine })
      expect(body.problem).toMatch(/^the database did not answer: \S/)
      expect(body.problem).not.toMatch(/select|ingest_log|failed query|params/i)
    } finally {
      if (database.engine === 'postgres') await database.close()
    }
  })

  it('on the embedded database, is not ready once no query has been answered for ERRATA_READY_STALL_MS; PostgreSQL\'s probe has its own connection', async () => {
    const stalled = await createTestContext({ readiness: { timeoutMs: 200, stallMs: 1000, maxBacklog: 10 } })
    const ready = () => stalled.app.request('http://errata.test/readyz')
    try {
      expect((await ready()).status).toBe(200)
      // On PostgreSQL the probe has a connection of its own: the pool's long queries never hold it.
      const busy = busyDatabase(stalled.deps.database.engine === 'pglite' ? 6 : 2, stalled)
      try {
        if (stalled.deps.database.engine === 'pglite') {
          let answer: Response
          do answer = await ready()
          while (answer.status === 200 && !busy.done)
          expect(busy.done).toBe(false)
          expect(answer.status).toBe(503)
          expect(await answer.json()).toMatchObject({ problem: expect.stringMatching(/^the database did not answer: no answer within 200 ms, none to any query for \d+ s$/) })
        } else {
          expect((await ready()).status).toBe(200)
        }
      } finally {
        await busy.finished
      }
      expect((await ready()).status).toBe(200)
    } finally {
      await stalled.close()
    }
  })

  it('is not ready while the ingest backlog is at its bound', async () => {
    // A server whose accepted events wait to be indexed (until 500 have gathered): a backlog builds up.
    const lagging = await createTestContext({
      readiness: { timeoutMs: 5000, stallMs: 60_000, maxBacklog: 3 },
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
    } finally {
      release()
    }
    expect(filteredQueryGate(ctx.deps).running).toBe(0)

    // A search that waits for a slot that frees up in time runs. The app of this part waits a
    // minute for a slot (a gate of its own), so the release below is in time however slow the machine.
    const patient = { ...ctx.deps, config: { ...ctx.deps.config, filteredQueries: { concurrency: 1, waitMs: 60_000 } } }
    const gate = filteredQueryGate(patient)
    const taken = await gate.enter(0)
    try {
      const waiting = createApp(patient).request(`http://errata.test${filtered}`, { headers: { Authorization: `token ${owner.token}`, 'X-Version': '2' } })
      await expect.poll(() => gate.waiting).toBe(1)
      taken()
      expect((await waiting).status).toBe(200)
    } finally {
      taken()
    }
    expect(gate.running).toBe(0)
  })
})
