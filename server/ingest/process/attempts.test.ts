import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../db/client.ts'
import { acceptedPayload, notifierEvent } from '../../test-support/ingest.ts'
import { seedProject, type SeededProject } from '../../test-support/seed.ts'
import { createTestContext, type TestContext } from '../../test-support/test-app.ts'
import type { AcceptedRequest } from '../payload/accepted-request.ts'
import pino from 'pino'
import { BatchEndedAProcessError, createAttemptGuard } from './attempts.ts'
import { createProcessor, ENDED_A_PROCESS } from './process.ts'

// What a process that ended while processing a batch leaves behind is its note in
// ingest_attempts: these tests leave such a note, as that process would have, and let the real
// pipeline take the batch up again.

let ctx: TestContext
let seeded: SeededProject
// No process holds this key's advisory lock: its notes are a dead process's.
const DEAD_OWNER = 42

beforeAll(async () => {
  ctx = await createTestContext()
  seeded = await seedProject(ctx, { user: 'Crash', organization: 'Crash', project: 'Replays' })
})
afterAll(async () => {
  await ctx?.close()
})

const request = (errorClass: string) => acceptedPayload(seeded.project.id, { payloadVersion: '4', events: [notifierEvent(errorClass)] })

async function leaveNote(first: AcceptedRequest, batchSize: number, { owner = DEAD_OWNER, crashes = 0 } = {}): Promise<void> {
  await ctx.deps.database.db.execute(
    sql`INSERT INTO ingest_attempts (request_key, batch_size, owner, crashes) VALUES (${first.eventIds[0]!}, ${batchSize}, ${owner}::bigint, ${crashes})`,
  )
}

async function ingest(...requests: AcceptedRequest[]): Promise<void> {
  for (const accepted of requests) await ctx.deps.ingestWriter.write(accepted)
  await ctx.deps.ingestWriter.indexed()
}

async function indexed(...requests: AcceptedRequest[]): Promise<boolean[]> {
  const ids = requests.map((r) => r.eventIds[0]!)
  const rows = await queryRows<{ id: string }>(ctx.deps.database.db, sql`SELECT id FROM events WHERE id = ANY(${`{${ids.join(',')}}`}::text[])`)
  const found = new Set(rows.map((row) => row.id))
  return ids.map((id) => found.has(id))
}

const notes = async () => queryRows<{ request_key: string }>(ctx.deps.database.db, sql`SELECT request_key FROM ingest_attempts`)

describe('a batch whose processing ended the process that ran it', () => {
  it('is processed one request at a time when taken up again: every event is indexed, and no note is left', async () => {
    const first = request('FirstOfBatch')
    const second = request('SecondOfBatch')
    await leaveNote(first, 3)
    await ingest(first, second)
    expect(await indexed(first, second)).toEqual([true, true])
    expect(await notes()).toEqual([])
  })

  it('throws for a batch of several, which the log sources then take one request at a time', async () => {
    const guard = await createAttemptGuard(ctx.deps.database, pino({ level: 'silent' }))
    try {
      const processor = createProcessor([], guard)
      const [first, second] = [request('NotedFirst'), request('NotedSecond')]
      await leaveNote(first, 2)
      await expect(processor.process([first, second])).rejects.toBeInstanceOf(BatchEndedAProcessError)
      expect((await processor.process([first])).events.map((event) => event.id)).toEqual(first.eventIds)
      expect((await processor.process([second])).events.map((event) => event.id)).toEqual(second.eventIds)
      expect(await notes()).toEqual([])
    } finally {
      await guard.close()
    }
  })

  it('processes once more a request that ended one process while processed alone (an operator may have killed it)', async () => {
    const once = request('EndedOneProcess')
    await leaveNote(once, 1)
    await ingest(once)
    expect(await indexed(once)).toEqual([true])
    expect(await notes()).toEqual([])
  })

  it('sets aside a request that ended two processes while processed alone, and indexes the others', async () => {
    const poison = request('EndsTheProcess')
    const after = request('AfterThePoison')
    await leaveNote(poison, 1, { crashes: 1 })
    await ingest(poison, after)
    expect(await indexed(poison, after)).toEqual([false, true])
    const [setAside] = await queryRows<{ failure: string }>(
      ctx.deps.database.db,
      sql`SELECT failure FROM ingest_log WHERE failed_at IS NOT NULL AND ${poison.eventIds[0]!} = ANY(event_ids)`,
    )
    expect(setAside?.failure).toBe(ENDED_A_PROCESS)
    expect(await notes()).toEqual([])
  })

  if (process.env.TEST_DATABASE_URL) {
    it('is not taken for a crash while the process that noted it still runs (PostgreSQL: several processes)', async () => {
      const LIVE_OWNER = 4242
      const busy = request('StillBeingProcessed')
      let release!: () => void
      let locked!: () => void
      const holding = new Promise<void>((resolve) => (locked = resolve))
      const held = ctx.deps.database.withExclusiveLock(LIVE_OWNER, () => {
        locked()
        return new Promise<void>((resolve) => (release = resolve))
      })
      await holding
      try {
        await leaveNote(busy, 1, { owner: LIVE_OWNER, crashes: 1 })
        await ingest(busy)
        expect(await indexed(busy)).toEqual([true])
      } finally {
        release()
        await held
      }
    })
  }
})
