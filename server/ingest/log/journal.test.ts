// The ingest journal of the embedded database: the file format, and indexing from it across
// restarts and crashes. Always on PGlite with a real data directory (PostgreSQL has no journal).
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { openPglite, queryRows, type Database } from '../../db/client.ts'
import { migrate } from '../../db/migrate.ts'
import { migratedPgliteSnapshot } from '../../db/migrated-template.ts'
import {
  createJournalReader,
  journalLines,
  listSegments,
  openJournalAppender,
  segmentPath,
  type JournalPosition,
} from './journal.ts'
import { acceptedPayload } from '../../test-support/ingest.ts'
import { openIngestion, type IngestOptions } from '../pipeline/open.ts'
import type { JournalRecord } from './journal.ts'

const silent = pino({ level: 'silent' })
const dirs: string[] = []
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'errata-journal-test-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const notifierEvent = (errorClass: string, i: number, extra: Record<string, unknown> = {}) => ({
  exceptions: [{ errorClass, message: `journaled ${i}`, stacktrace: [{ file: 'src/j.js', method: 'run', lineNumber: 1, inProject: true }] }],
  user: { id: `user-${i}` },
  ...extra,
})

/** `n` accepted requests of one event each. */
const requests = (projectId: string, errorClass: string, n = 1, extra: Record<string, unknown> = {}) =>
  Array.from({ length: n }, (_, i) => acceptedPayload(projectId, { events: [notifierEvent(errorClass, i, extra)] }))

const idOf = (record: JournalRecord): string => record.request.eventIds[0]!
const classOf = (record: JournalRecord) =>
  (JSON.parse(record.request.body.toString()) as { events: { exceptions: { errorClass: string }[] }[] }).events[0]!.exceptions[0]!.errorClass

describe('ingest journal files', () => {
  it('reads back every appended event in order, across segments, resuming exactly where a read stopped', async () => {
    const dir = tempDir()
    const appender = await openJournalAppender(dir, 1024) // a few requests per segment
    const events = requests('p1', 'Rotated', 12)
    for (const event of events) await appender.append(journalLines([event]))
    await appender.close()
    expect((await listSegments(dir)).length).toBeGreaterThan(2)

    const reader = createJournalReader(dir)
    const seen: string[] = []
    let at: JournalPosition = { segment: 0, offset: 0 }
    for (;;) {
      const { records, next } = await reader.read(at, 5)
      if (records.length === 0) break
      seen.push(...records.map(idOf))
      expect(records.at(-1)!.end).toEqual(next)
      at = next
    }
    await reader.close()
    expect(seen).toEqual(events.map((e) => e.eventIds[0]))
    const again = createJournalReader(dir)
    const first = (await again.read({ segment: 0, offset: 0 }, 1)).records[0]!
    await again.close()
    expect(first.request).toMatchObject({ eventIds: events[0]!.eventIds, projectId: 'p1', receivedAt: events[0]!.receivedAt })
    expect(first.request!.body.toString()).toBe(events[0]!.body.toString())
  })

  it('waits for an unfinished line in the newest segment, and skips it as torn once a newer segment exists', async () => {
    const dir = tempDir()
    const [a, b] = requests('p1', 'Torn', 2)
    const half = journalLines([b!]).subarray(0, 40)
    await writeFile(segmentPath(dir, 1), Buffer.concat([journalLines([a!]), half]))
    const reader = createJournalReader(dir)
    const first = await reader.read({ segment: 0, offset: 0 }, 10)
    expect(first.records.map(idOf)).toEqual([a!.eventIds[0]])
    // Still the newest segment: the rest of the line may yet arrive.
    expect((await reader.read(first.next, 10)).records).toEqual([])
    // A restarted process appends to a new segment; the torn line is never completed.
    const appender = await openJournalAppender(dir)
    const [c] = requests('p1', 'AfterRestart')
    await appender.append(journalLines([c!]))
    await appender.close()
    const after = await reader.read(first.next, 10)
    expect(after.records.map(idOf)).toEqual([c!.eventIds[0]])
    expect(after.next.segment).toBe(2)
    await reader.close()
  })

  it('reads a line longer than its read chunk (a large event) whole', async () => {
    const dir = tempDir()
    // About 3 MB of payload: three times the reader's first chunk.
    const [big] = requests('p1', 'Large', 1, { metaData: { blob: { text: 'x'.repeat(3 * 1024 * 1024) } } })
    const [after] = requests('p1', 'Large', 1)
    const appender = await openJournalAppender(dir)
    await appender.append(journalLines([big!, after!]))
    await appender.close()
    const reader = createJournalReader(dir)
    const { records, damaged } = await reader.read({ segment: 0, offset: 0 }, 10)
    await reader.close()
    expect(damaged).toEqual([])
    expect(records.map(idOf)).toEqual([big!.eventIds[0], after!.eventIds[0]])
    const body = JSON.parse(records[0]!.request!.body.toString()) as { events: { metaData: { blob: { text: string } } }[] }
    expect(body.events[0]!.metaData.blob.text).toHaveLength(3 * 1024 * 1024)
  })

  it('reports a damaged line and reads on past it', async () => {
    const dir = tempDir()
    const [a, b] = requests('p1', 'Damaged', 2)
    await writeFile(segmentPath(dir, 1), Buffer.concat([journalLines([a!]), Buffer.from('not json at all\t{}\n'), journalLines([b!])]))
    const reader = createJournalReader(dir)
    const { records, damaged } = await reader.read({ segment: 0, offset: 0 }, 10)
    await reader.close()
    expect(records.map(idOf)).toEqual([a!.eventIds[0], b!.eventIds[0]])
    expect(damaged).toHaveLength(1)
    expect(damaged[0]!.message).toMatch(/unreadable ingest journal line/)
  })

  it('keeps concurrent appends whole, counts what is left, and deletes segments once read past', async () => {
    const dir = tempDir()
    const appender = await openJournalAppender(dir, 8192)
    const batches = Array.from({ length: 30 }, (_, i) => requests('p1', `Concurrent${i}`, 2))
    await Promise.all(batches.map((batch) => appender.append(journalLines(batch))))
    await appender.close()
    const reader = createJournalReader(dir)
    expect(await reader.count({ segment: 0, offset: 0 }, 1000)).toBe(60)
    expect(await reader.count({ segment: 0, offset: 0 }, 25)).toBe(25)
    const all = await reader.read({ segment: 0, offset: 0 }, 1000)
    expect(all.damaged).toEqual([])
    expect(new Set(all.records.map(idOf))).toEqual(new Set(batches.flat().map((e) => e.eventIds[0])))

    const segments = await listSegments(dir)
    await reader.release({ segment: segments.at(-1)!, offset: 0 })
    expect(await listSegments(dir)).toEqual([segments.at(-1)])
    expect(existsSync(segmentPath(dir, segments[0]!))).toBe(false)
    await reader.close()
  })

  it('on a full disk: never writes over what the indexer may have read, and makes no file per refusal', async () => {
    const dir = tempDir()
    const appender = await openJournalAppender(dir)
    const reader = createJournalReader(dir)
    await appender.append(journalLines(requests('p1', 'BeforeFull', 2)))
    // As a filling disk does: one write takes all but the last bytes of a batch (its first line is
    // complete), the next write fails; then every write fails with nothing written.
    const probe = await open(join(dir, 'probe'), 'w')
    const handlePrototype = Object.getPrototypeOf(probe) as {
      write: (this: unknown, buffer: unknown, offset: number, length: number, position: number) => Promise<{ bytesWritten: number }>
    }
    await probe.close()
    await rm(join(dir, 'probe'))
    const realWrite = handlePrototype.write
    let calls = 0
    let first: Awaited<ReturnType<typeof reader.read>> | undefined
    const full = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' })
    handlePrototype.write = async function (this: unknown, buffer: unknown, offset: number, length: number, position: number) {
      calls += 1
      if (calls === 1) return realWrite.call(this, buffer, offset, length - 10, position)
      // The indexer (another thread) reads while the append is failing: the refused batch's
      // complete first line too (indexed, it is a duplicate at worst once the notifier retries).
      if (calls === 2) first = await reader.read({ segment: 0, offset: 0 }, 100)
      throw full()
    }
    try {
      for (let i = 0; i < 3; i++) await expect(appender.append(journalLines(requests('p1', `Refused${i}`, 2)))).rejects.toThrow('ENOSPC')
    } finally {
      handlePrototype.write = realWrite
    }
    expect(first!.records.map(classOf)).toEqual(['BeforeFull', 'BeforeFull', 'Refused0'])
    await appender.append(journalLines(requests('p1', 'AfterFull', 2)))
    await appender.close()
    // What was acknowledged after the refusal is read from where the indexer stopped.
    const rest = await reader.read(first!.next, 100)
    await reader.close()
    expect(rest.damaged).toEqual([])
    expect(rest.records.map(classOf)).toEqual(['AfterFull', 'AfterFull'])
    // One new segment for the partly written batch, none for the refusals with nothing written.
    expect(await listSegments(dir)).toHaveLength(2)
  })

  it('keeps no segment open after counting, so a deleted segment\'s space comes back at once', async () => {
    const dir = tempDir()
    const appender = await openJournalAppender(dir, 8192)
    for (let i = 0; i < 10; i++) await appender.append(journalLines(requests('p1', `Counted${i}`, 2)))
    await appender.close()
    // The health check counts with its own reader; the indexer's reader deletes what it has read.
    const counter = createJournalReader(dir)
    expect(await counter.count({ segment: 0, offset: 0 }, 1000)).toBe(20)
    // A later process start writes a new segment; every segment before it is then read and deleted.
    const next = await openJournalAppender(dir, 8192)
    await next.append(journalLines(requests('p1', 'Later', 1)))
    await next.close()
    const indexer = createJournalReader(dir)
    await indexer.release({ segment: (await listSegments(dir)).at(-1)!, offset: 0 })
    const { readdirSync, readlinkSync } = await import('node:fs')
    const held = readdirSync('/proc/self/fd')
      .map((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`)
        } catch {
          return ''
        }
      })
      .filter((target) => target.startsWith(dir) && target.endsWith('(deleted)'))
    expect(held).toEqual([])
    await counter.close()
    await indexer.close()
  })
})

// Each test opens the embedded database up to three times: minutes on a loaded machine.
describe('indexing from the journal', { timeout: 180_000 }, () => {
  /** The database as the server opens it, and where its journal is. */
  async function openMigrated(dataDir: string): Promise<Database & { dataDir: string }> {
    // A new directory starts from the migrated snapshot (what initdb and the migrations would make).
    const created = existsSync(join(dataDir, 'PG_VERSION'))
    const database = await openPglite(dataDir, 'silent', created ? undefined : await migratedPgliteSnapshot())
    await migrate(database)
    return Object.assign(database, { dataDir })
  }
  async function seedProjects(database: Database, ...ids: string[]) {
    await database.db.execute(sql`INSERT INTO organizations (id, name, slug) VALUES ('journal-org', 'Journal', 'journal')`)
    for (const id of ids) {
      await database.db.execute(sql`
        INSERT INTO projects (id, organization_id, name, slug, type, api_key)
        VALUES (${id}, 'journal-org', ${id}, ${id}, 'node', ${`key-${id}`})`)
    }
  }
  const eventCount = async (database: Database, errorClass: string) => {
    const [row] = await queryRows<{ n: number | string; payloads: number | string }>(
      database.db,
      sql`SELECT count(*) AS n, count(p.event_id) AS payloads FROM events e
        LEFT JOIN event_payloads p ON p.event_id = e.id WHERE e.error_class = ${errorClass}`,
    )
    return { events: Number(row!.n), payloads: Number(row!.payloads) }
  }
  /** Ingestion beside the database, as the server opens it. */
  const writerFor = (database: Database & { dataDir: string }, options: Partial<IngestOptions> = {}) =>
    openIngestion(database, { batchSize: 100, flushMs: 1, indexBatchSize: 100, indexLingerMs: 0, ...options }, silent, { journalDir: join(database.dataDir, 'ingest-journal') })
  // No pass but the one at start (awaited) until a caller waits on indexed(): only the appends wake it, and they linger.
  const lingering = { indexLingerMs: 60_000, indexPollMs: 600_000 }

  it('indexes what a crashed process left in the journal at the next start, exactly once across restarts', async () => {
    const dataDir = tempDir()
    const first = await openMigrated(dataDir)
    await seedProjects(first, 'crash-project')
    await first.close()

    // What a process that crashed after acknowledging three events, mid-way through a fourth, leaves behind.
    const journalDir = join(dataDir, 'ingest-journal')
    const events = requests('crash-project', 'CrashLeftover', 4)
    await mkdir(journalDir, { recursive: true })
    await writeFile(segmentPath(journalDir, 1), Buffer.concat([journalLines(events.slice(0, 3)), journalLines(events.slice(3)).subarray(0, 100)]))

    const second = await openMigrated(dataDir)
    const writer = await writerFor(second)
    await writer.indexed()
    expect(await eventCount(second, 'CrashLeftover')).toEqual({ events: 3, payloads: 3 })
    expect(existsSync(segmentPath(journalDir, 1))).toBe(false) // read past, so deleted
    const errors = await queryRows<{ events_count: number | string; users_count: number | string }>(
      second.db,
      sql`SELECT events_count, users_count FROM errors WHERE error_class = 'CrashLeftover'`,
    )
    expect(errors.map((e) => [Number(e.events_count), Number(e.users_count)])).toEqual([[3, 3]])
    await writer.close()
    await second.close()

    const third = await openMigrated(dataDir)
    const again = await writerFor(third)
    await again.indexed()
    expect(await eventCount(third, 'CrashLeftover')).toEqual({ events: 3, payloads: 3 })
    await again.close()
    await third.close()
  })

  it('answers once the events are durable in the journal, and indexes them in the background', async () => {
    const database = await openMigrated(tempDir())
    await seedProjects(database, 'ack-project')
    const writer = await writerFor(database, lingering)
    await writer.indexed()
    await Promise.all(requests('ack-project', 'Acknowledged', 2).map((r) => writer.write(r)))
    const journaled = (await readFile(segmentPath(writer.logDir!, (await listSegments(writer.logDir!)).at(-1)!), 'utf8'))
      .split('\n')
      .filter(Boolean)
    expect(journaled).toHaveLength(2)
    expect(await eventCount(database, 'Acknowledged')).toEqual({ events: 0, payloads: 0 })
    expect((await writer.backlog(100)).pending).toBe(2)
    await writer.indexed()
    expect(await eventCount(database, 'Acknowledged')).toEqual({ events: 2, payloads: 2 })
    expect((await writer.backlog(100)).pending).toBe(0)
    await writer.close()
    await database.close()
  })

  it('drops the journaled events of a project deleted before they were indexed', async () => {
    const database = await openMigrated(tempDir())
    await seedProjects(database, 'kept-project', 'doomed-project')
    const writer = await writerFor(database, lingering)
    await writer.indexed()
    // The deleted project's requests last in the batch: the journal moves past them all the same.
    await Promise.all([...requests('kept-project', 'KeptJournal', 1), ...requests('doomed-project', 'DoomedJournal', 2)].map((r) => writer.write(r)))
    await database.db.execute(sql`DELETE FROM projects WHERE id = 'doomed-project'`)
    await writer.indexed()
    expect(await eventCount(database, 'DoomedJournal')).toEqual({ events: 0, payloads: 0 })
    expect(await eventCount(database, 'KeptJournal')).toEqual({ events: 1, payloads: 1 })
    expect(await writer.backlog(100)).toEqual({ pending: 0, failed: 0 })
    const [failed] = await queryRows<{ n: number | string }>(database.db, sql`SELECT count(*) AS n FROM ingest_log`)
    expect(Number(failed!.n)).toBe(0)
    await writer.close()
    await database.close()
  })

  it('sets aside a request that cannot be processed in ingest_log, with the reason, and indexes its neighbours', async () => {
    const dataDir = tempDir()
    const seeded = await openMigrated(dataDir)
    await seedProjects(seeded, 'bad-project')
    await seeded.close()
    const [good1, bad, good2] = requests('bad-project', 'BesideBadRequest', 3)
    bad!.body = Buffer.from('{"events": [{"exceptions": "not a list"}]}')
    await mkdir(join(dataDir, 'ingest-journal'), { recursive: true })
    await writeFile(segmentPath(join(dataDir, 'ingest-journal'), 1), journalLines([good1!, bad!, good2!]))
    const database = await openMigrated(dataDir)
    const writer = await writerFor(database)
    await writer.indexed()
    expect(await eventCount(database, 'BesideBadRequest')).toEqual({ events: 2, payloads: 2 })
    const [kept] = await queryRows<{ event_ids: string[]; failure: string | null; failed_at: Date | null }>(
      database.db,
      sql`SELECT event_ids, failure, failed_at FROM ingest_log`,
    )
    expect(kept).toMatchObject({ event_ids: bad!.eventIds })
    expect(kept!.failed_at).not.toBeNull()
    expect(kept!.failure).toMatch(/exceptions/)
    expect((await writer.backlog(100)).pending).toBe(0)
    await writer.close()
    await database.close()
  })

  it('sets aside a request whose events cannot be indexed, with the reason, and indexes its neighbours', async () => {
    const dataDir = tempDir()
    const seeded = await openMigrated(dataDir)
    await seedProjects(seeded, 'poison-project')
    await seeded.close()
    const [good1, poison, good2] = [
      ...requests('poison-project', 'BesidePoison', 1),
      ...requests('poison-project', 'Poison', 1),
      ...requests('poison-project', 'BesidePoison', 1),
    ]
    await mkdir(join(dataDir, 'ingest-journal'), { recursive: true })
    await writeFile(segmentPath(join(dataDir, 'ingest-journal'), 1), journalLines([good1!, poison!, good2!]))

    const database = await openMigrated(dataDir)
    // Indexing this one request's event fails, however it is batched, for a reason that is not the database being away.
    await database.execScript(`
      CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'poisoned event'; END $$;
      CREATE TRIGGER refuse_poison BEFORE INSERT ON events FOR EACH ROW WHEN (NEW.error_class = 'Poison') EXECUTE FUNCTION refuse_poison();`)
    const writer = await writerFor(database)
    await writer.indexed()
    expect(await eventCount(database, 'BesidePoison')).toEqual({ events: 2, payloads: 2 })
    expect(await eventCount(database, 'Poison')).toEqual({ events: 0, payloads: 0 })
    const [kept] = await queryRows<{ event_ids: string[]; failure: string | null; failed_at: Date | null }>(
      database.db,
      sql`SELECT event_ids, failure, failed_at FROM ingest_log`,
    )
    expect(kept).toMatchObject({ event_ids: poison!.eventIds })
    expect(kept!.failed_at).not.toBeNull()
    expect(kept!.failure).toMatch(/poisoned event/)
    expect((await writer.backlog(100)).pending).toBe(0)
    await writer.close()
    await database.close()
  })
})
