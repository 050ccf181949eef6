import { sql } from 'drizzle-orm'
import pino from 'pino'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { queryRows, withTransaction, type Database, type Db } from '../db/client.ts'
import { createTestDatabase } from '../test-support/test-app.ts'
import { JobRunner, type JobRunnerOptions } from './job-runner.ts'
import { enqueueJob, JobDeferredError, LeaseLostError, wakeJobsWhere, type JobHandler } from './jobs.ts'

let database: Database
const logger = pino({ level: 'silent' })

beforeAll(async () => {
  database = await createTestDatabase()
})
afterAll(() => database.close())
beforeEach(async () => {
  await database.db.execute(sql`DELETE FROM jobs`)
})

interface JobRow {
  id: string
  state: string
  attempts: number
  last_error: string | null
  run_at: Date
}
interface RawJobRow extends Omit<JobRow, 'run_at'> {
  run_at: string | Date
}
const jobRow = async (id: string): Promise<JobRow> => {
  const row = (await queryRows<RawJobRow>(database.db, sql`SELECT id, state, attempts, last_error, run_at FROM jobs WHERE id = ${id}`))[0]!
  return { ...row, run_at: new Date(row.run_at) }
}

const runner = (handlers: JobHandler<never>[], options: Partial<JobRunnerOptions> = {}) =>
  new JobRunner({ database, logger, handlers, pollMs: 20, retryBaseMs: 1, retryMaxMs: 1, ...options })

describe('the job runner', () => {
  it('runs a queued job once and records it completed', async () => {
    const seen: unknown[] = []
    const handler: JobHandler<{ n: number }> = { kind: 'test.once', run: async (job) => void seen.push(job.payload) }
    const id = (await enqueueJob(database.db, 'test.once', { n: 1 }, new Date()))!
    const jobs = runner([handler as JobHandler<never>])
    await jobs.drain()
    expect(seen).toEqual([{ n: 1 }])
    expect(await jobRow(id)).toMatchObject({ state: 'completed', attempts: 1, last_error: null })
  })

  it('retries a failing job with backoff, keeping attempts and the last error, until it succeeds', async () => {
    let calls = 0
    const handler: JobHandler = {
      kind: 'test.flaky',
      run: async () => {
        calls += 1
        if (calls < 3) throw new Error(`boom ${calls}`)
      },
    }
    let now = new Date('2030-01-01T00:00:00Z')
    const jobs = runner([handler as JobHandler<never>], { clock: () => now, retryBaseMs: 60_000, retryMaxMs: 600_000 })
    const id = (await enqueueJob(database.db, 'test.flaky', {}, now))!
    await jobs.drain()
    // Not due again until its backoff has passed (about a minute, ±20 %).
    let row = await jobRow(id)
    expect(row).toMatchObject({ state: 'queued', attempts: 1, last_error: 'boom 1' })
    expect(row.run_at.getTime() - now.getTime()).toBeGreaterThanOrEqual(48_000)
    expect(row.run_at.getTime() - now.getTime()).toBeLessThanOrEqual(72_000)
    now = new Date(now.getTime() + 73_000)
    await jobs.drain()
    row = await jobRow(id)
    // The second wait doubles.
    expect(row).toMatchObject({ state: 'queued', attempts: 2, last_error: 'boom 2' })
    expect(row.run_at.getTime() - now.getTime()).toBeGreaterThanOrEqual(96_000)
    now = new Date(now.getTime() + 145_000)
    await jobs.drain()
    expect(await jobRow(id)).toMatchObject({ state: 'completed', attempts: 3, last_error: 'boom 2' })
    expect(calls).toBe(3)
  })

  it('puts a deferred job back for later without counting the attempt; waking it makes it due at once', async () => {
    let calls = 0
    const handler: JobHandler<{ n: number }> = {
      kind: 'test.deferred',
      run: async () => {
        calls += 1
        if (calls < 3) throw new JobDeferredError(600_000, 'not yet')
      },
    }
    const now = new Date('2030-01-01T00:00:00Z')
    const jobs = runner([handler as JobHandler<never>], { clock: () => now })
    const id = (await enqueueJob(database.db, 'test.deferred', { n: 7 }, now, { maxAttempts: 2 }))!
    await jobs.drain()
    const row = await jobRow(id)
    expect(row).toMatchObject({ state: 'queued', attempts: 0, last_error: null })
    expect(row.run_at.getTime() - now.getTime()).toBe(600_000)
    // Deferred again: still no attempt counted, so two deferrals do not use up its two attempts.
    await wakeJobsWhere(database.db, 'test.deferred', sql`payload->>'n' = '7'`, now)
    await jobs.drain()
    expect(await jobRow(id)).toMatchObject({ state: 'queued', attempts: 0 })
    await wakeJobsWhere(database.db, 'test.deferred', sql`payload->>'n' = '8'`, now)
    await jobs.drain()
    expect(calls).toBe(2) // another payload's wake-up leaves it waiting
    await wakeJobsWhere(database.db, 'test.deferred', sql`payload->>'n' = '7'`, now)
    await jobs.drain()
    expect(await jobRow(id)).toMatchObject({ state: 'completed', attempts: 1, last_error: null })
    expect(calls).toBe(3)
  })

  it('gives up after the last attempt and lets the handler record the failure in the same transaction', async () => {
    const failures: string[] = []
    const handler: JobHandler<{ tag: string }> = {
      kind: 'test.broken',
      run: async () => {
        throw new Error('always broken')
      },
      failed: async (tx, job) => {
        expect((await queryRows<{ state: string }>(tx, sql`SELECT state FROM jobs WHERE id = ${job.id}`))[0]!.state).toBe('failed')
        failures.push(`${job.payload.tag}: ${job.error}`)
      },
    }
    // The runner's clock moves a minute after each attempt, past the retry's wait.
    let now = new Date()
    const id = (await enqueueJob(database.db, 'test.broken', { tag: 'x' }, now, { maxAttempts: 3 }))!
    const jobs = runner([handler as JobHandler<never>], { clock: () => now })
    for (let i = 0; i < 3; i++) {
      await jobs.drain()
      now = new Date(now.getTime() + 60_000)
    }
    await jobs.drain()
    expect(await jobRow(id)).toMatchObject({ state: 'failed', attempts: 3, last_error: 'always broken' })
    expect(failures).toEqual(['x: always broken'])
  })

  it('enqueues one unfinished job per key', async () => {
    const first = await enqueueJob(database.db, 'test.keyed', {}, new Date(), { key: 'k1' })
    const again = await enqueueJob(database.db, 'test.keyed', {}, new Date(), { key: 'k1' })
    expect(first).not.toBeNull()
    expect(again).toBeNull()
    await runner([{ kind: 'test.keyed', run: async () => {} }]).drain()
    // Finished: the key is free again.
    expect(await enqueueJob(database.db, 'test.keyed', {}, new Date(), { key: 'k1' })).not.toBeNull()
  })

  it('runs each job exactly once with several runners claiming from one database', async () => {
    const runs = new Map<string, number>()
    const handler: JobHandler<{ n: number }> = {
      kind: 'test.many',
      run: async (job) => {
        runs.set(String(job.payload.n), (runs.get(String(job.payload.n)) ?? 0) + 1)
        await new Promise((resolve) => setTimeout(resolve, 2))
      },
    }
    for (let n = 0; n < 30; n++) await enqueueJob(database.db, 'test.many', { n }, new Date())
    const runners = [1, 2, 3].map(() => runner([handler as JobHandler<never>], { concurrency: 3 }))
    await Promise.all(runners.map((r) => r.drain()))
    expect(runs.size).toBe(30)
    expect([...runs.values()].every((count) => count === 1)).toBe(true)
  })

  it('takes over a job whose lease ran out; the worker that lost it can no longer commit', async () => {
    const id = (await enqueueJob(database.db, 'test.lease', {}, new Date()))!
    // A worker that claimed it and then stopped renewing (frozen, or its process died):
    await database.db.execute(sql`UPDATE jobs SET state = 'running', attempts = 1, lock_token = 'stale',
      locked_until = now() - interval '1 second' WHERE id = ${id}`)
    let attemptSeen = 0
    const jobs = runner([{ kind: 'test.lease', run: async (job) => void (attemptSeen = job.attempt) }])
    await jobs.drain()
    expect(attemptSeen).toBe(2)
    expect(await jobRow(id)).toMatchObject({ state: 'completed', attempts: 2 })

    // The stale claim's fence refuses it.
    const staleFence = (tx: Db) =>
      queryRows<{ id: string }>(tx, sql`SELECT id FROM jobs WHERE id = ${id} AND lock_token = 'stale' AND state = 'running' FOR UPDATE`)
    expect(await withTransaction(database.db, (tx) => staleFence(tx))).toEqual([])
  })

  it('leaves the payload of a kind that does not read it in the database; its held row fences in a statement', async () => {
    const id = (await enqueueJob(database.db, 'test.unread', { big: 'x'.repeat(100) }, new Date()))!
    const seen: unknown[] = []
    const handler: JobHandler = {
      kind: 'test.unread',
      readsPayload: false,
      run: async (job) => {
        seen.push(job.payload)
        seen.push(await queryRows<{ id: string; size: number }>(database.db, sql`SELECT id, length(payload->>'big') AS size FROM (${job.heldRow}) held`))
      },
    }
    await runner([handler as JobHandler<never>]).drain()
    expect(seen).toEqual([{}, [{ id, size: 100 }]])
    expect(await jobRow(id)).toMatchObject({ state: 'completed' })
  })

  it('aborts a job whose lease another worker took, and its fence throws', async () => {
    const id = (await enqueueJob(database.db, 'test.stolen', {}, new Date()))!
    let fenceError: unknown
    let heldAfter: unknown[] = []
    let release: () => void = () => {}
    const started = new Promise<void>((resolve) => (release = resolve))
    const handler: JobHandler = {
      kind: 'test.stolen',
      run: async (job) => {
        release()
        await new Promise((resolve) => job.signal.addEventListener('abort', resolve))
        try {
          await withTransaction(database.db, (tx) => job.fence(tx))
        } catch (err) {
          fenceError = err
        }
        heldAfter = await queryRows(database.db, sql`SELECT id FROM (${job.heldRow}) held`)
        job.signal.throwIfAborted()
      },
    }
    // Renewed every 500 ms: the next renewal finds the job taken. A lease much shorter than that
    // could run out on a loaded machine before a renewal, and this runner would claim it again.
    const jobs = runner([handler as JobHandler<never>], { leaseMs: 1500 })
    const drained = jobs.drain()
    await started
    // Another process takes the job (as if this one had been presumed dead).
    await database.db.execute(sql`UPDATE jobs SET lock_token = 'other', attempts = attempts + 1 WHERE id = ${id}`)
    await drained
    expect(fenceError).toBeInstanceOf(LeaseLostError)
    // Its held row is gone too: a statement fenced by it writes nothing.
    expect(heldAfter).toEqual([])
    // Left as the other claim holds it.
    expect(await jobRow(id)).toMatchObject({ state: 'running', attempts: 2 })
  })

  it('on stop, hands a running job back without counting the attempt', async () => {
    const id = (await enqueueJob(database.db, 'test.slow', {}, new Date()))!
    let release: () => void = () => {}
    const started = new Promise<void>((resolve) => (release = resolve))
    const jobs = runner([
      {
        kind: 'test.slow',
        run: async (job) => {
          release()
          await new Promise((resolve) => job.signal.addEventListener('abort', resolve))
          job.signal.throwIfAborted()
        },
      },
    ])
    jobs.start()
    await started
    await jobs.stop()
    expect(await jobRow(id)).toMatchObject({ state: 'queued', attempts: 0 })
  })

  it('on stop, hands back within its grace a job that does not stop when asked', { timeout: 30_000 }, async () => {
    const id = (await enqueueJob(database.db, 'test.stuck', {}, new Date()))!
    let release: () => void = () => {}
    const started = new Promise<void>((resolve) => (release = resolve))
    let finish: () => void = () => {}
    const jobs = runner(
      [
        {
          kind: 'test.stuck',
          // Ignores job.signal: a call without a deadline, a statement that does not end.
          run: () => {
            release()
            return new Promise<void>((resolve) => (finish = resolve))
          },
        },
      ],
      { stopGraceMs: 200 },
    )
    jobs.start()
    await started
    await jobs.stop()
    expect(await jobRow(id)).toMatchObject({ state: 'queued', attempts: 0 })
    // Taken again at once (by this process's next start, or another process), and its lease is new.
    const again = runner([{ kind: 'test.stuck', run: async () => {} }])
    await again.drain()
    expect(await jobRow(id)).toMatchObject({ state: 'completed', attempts: 1 })
    finish()
  })

  /** A job that a process left running, its lease an hour from now. */
  const leftRunning = async () => {
    const id = (await enqueueJob(database.db, 'test.orphan', {}, new Date()))!
    await database.db.execute(sql`UPDATE jobs SET state = 'running', attempts = 1, lock_token = 'dead',
      locked_until = now() + interval '1 hour' WHERE id = ${id}`)
    return id
  }

  it('on a database no other process uses, queues again at start what a killed process left running', async () => {
    const id = await leftRunning()
    await runner([{ kind: 'test.orphan', run: async () => {} }], { database: { ...database, sharedByProcesses: false } }).drain()
    expect(await jobRow(id)).toMatchObject({ state: 'completed', attempts: 2 })
  })

  it('on a database other processes share, leaves a running job to its lease (its process may be alive)', async () => {
    const id = await leftRunning()
    await runner([{ kind: 'test.orphan', run: async () => {} }], { database: { ...database, sharedByProcesses: true } }).drain()
    expect(await jobRow(id)).toMatchObject({ state: 'running', attempts: 1 })
  })
})
