// PostgreSQL with ERRATA_INGEST_LOG=journal: every Errata process appends to a journal in its
// own DATA_DIR and indexes it into the shared database. Each one's events become visible to
// all; one that stopped with events still in its journal indexes them when it runs again; and
// until it has, a privacy deletion made meanwhile waits for it (it must not miss them).
// PostgreSQL only (vitest.config.ts): the embedded database has one journal and one process.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queryRows } from '../../db/client.ts'
import { DataDirInUseError } from '../../db/data-dir-lock.ts'
import { waitForIngestedBefore } from '../../privacy/wait-for-ingested.ts'
import { seedProject } from '../../test-support/seed.ts'
import { acceptedPayload, notifierEvent } from '../../test-support/ingest.ts'
import { createTestContext, type TestContext } from '../../test-support/test-app.ts'
import { openPipeline, type IngestPipeline } from '../pipeline/open.ts'
import { createIngestWriter, type IngestWriter } from './group-commit.ts'
import { journalLines, listSegments, segmentPath } from './journal.ts'

const silent = pino({ level: 'silent' })
const options = { batchSize: 50, flushMs: 1, indexBatchSize: 500, indexLingerMs: 10 }
let ctx: TestContext
let projectId: string
const dirs: string[] = []
const open: Array<{ writer: IngestWriter; pipeline: IngestPipeline }> = []

beforeAll(async () => {
  ctx = await createTestContext()
  const owner = await ctx.createUser('Journal Owner')
  projectId = (await seedProject(ctx, { user: owner, organization: 'Journals Org', project: 'Journals' })).project.id
})
afterAll(async () => {
  for (const process of open.splice(0)) await closeProcess(process)
  await ctx.close()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** What an Errata process with ERRATA_INGEST_LOG=journal opens on `dir`, on the test's database. */
async function startProcess(dir: string) {
  const pipeline = await openPipeline(ctx.deps.database, { journalDir: dir, log: 'journal' })
  const started = { pipeline, writer: createIngestWriter(ctx.deps.database, pipeline, options, silent) }
  open.push(started)
  return started
}

async function closeProcess(started: { writer: IngestWriter; pipeline: IngestPipeline }) {
  open.splice(open.indexOf(started), 1)
  await started.writer.close()
  await started.pipeline.close()
}

const newDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'errata-pg-journal-'))
  dirs.push(dir)
  return dir
}

const write = (writer: IngestWriter, errorClass: string, n: number) =>
  Promise.all(Array.from({ length: n }, () => writer.write(acceptedPayload(projectId, { events: [notifierEvent(errorClass)] }))))

async function indexedEvents(errorClass: string): Promise<number> {
  const [row] = await queryRows<{ n: number | string }>(
    ctx.deps.database.db,
    sql`SELECT count(*) AS n FROM events WHERE project_id = ${projectId} AND error_class = ${errorClass}`,
  )
  return Number(row!.n)
}

describe('journals of several processes on one PostgreSQL', () => {
  it('indexes what each process journals into the shared database, with a row per journal', async () => {
    const [a, b] = [await startProcess(newDir()), await startProcess(newDir())]
    await Promise.all([write(a.writer, 'FromA', 40), write(b.writer, 'FromB', 30)])
    await Promise.all([a.writer.indexed(), b.writer.indexed()])
    expect([await indexedEvents('FromA'), await indexedEvents('FromB')]).toEqual([40, 30])
    const rows = await queryRows<{ journal_id: string }>(
      ctx.deps.database.db,
      sql`SELECT journal_id FROM ingest_journals WHERE journal_id IN (${a.pipeline.journal!.id}, ${b.pipeline.journal!.id})`,
    )
    expect(rows).toHaveLength(2)
    await closeProcess(a)
    await closeProcess(b)
  })

  it('refuses a second process on the same journal directory', async () => {
    const dir = newDir()
    const first = await startProcess(dir)
    await expect(openPipeline(ctx.deps.database, { journalDir: dir, log: 'journal' })).rejects.toBeInstanceOf(DataDirInUseError)
    await closeProcess(first)
  })

  it('makes a deletion wait for a stopped process until it runs again and indexes what it acknowledged', async () => {
    const a = await startProcess(newDir())
    const bDir = newDir()
    const b = await startProcess(bDir)
    await write(b.writer, 'BeforeStop', 5)
    await b.writer.indexed()
    const bId = b.pipeline.journal!.id
    await closeProcess(b)
    const [stopped] = await queryRows<{ forever: boolean }>(
      ctx.deps.database.db,
      sql`SELECT caught_up_at = 'infinity' AS forever FROM ingest_journals WHERE journal_id = ${bId}`,
    )
    expect(stopped!.forever).toBe(true) // stopped empty: nobody waits for it
    // B acknowledged more, then died before indexing it: lines in a segment of its journal, and
    // its row caught up only as of its last pass (a clean stop says "forever" instead).
    await ctx.deps.database.db.execute(
      sql`UPDATE ingest_journals SET caught_up_at = now() - interval '1 second' WHERE journal_id = ${bId}`,
    )
    const next = ((await listSegments(bDir)).at(-1) ?? 0) + 1
    writeFileSync(
      segmentPath(bDir, next),
      journalLines(Array.from({ length: 7 }, () => acceptedPayload(projectId, { events: [notifierEvent('Unindexed')] }))),
    )

    // A deletion made now waits for B (A's own journal is covered by A's indexer).
    let polls = 0
    const counted = { indexed: () => (polls++, a.writer.indexed()) }
    let settled = false
    const waited = waitForIngestedBefore(ctx.deps.database, counted, a.pipeline.journal!.id, { pollMs: 20 })(new Date()).then(() => {
      settled = true
    })
    await expect.poll(() => polls, { timeout: 30_000 }).toBeGreaterThanOrEqual(3)
    expect(settled).toBe(false)
    expect(await indexedEvents('Unindexed')).toBe(0)

    // B runs again on its directory: it indexes what it left, says it caught up, and the wait ends.
    const again = await startProcess(bDir)
    expect(again.pipeline.journal!.id).toBe(bId)
    await waited
    expect(await indexedEvents('Unindexed')).toBe(7)
    expect(await indexedEvents('BeforeStop')).toBe(5)
    await closeProcess(again)
    await closeProcess(a)
  })
})
