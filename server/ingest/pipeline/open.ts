import { randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Database } from '../../db/client.ts'
import { lockDataDir } from '../../db/data-dir-lock.ts'
import type { IndexerOptions, IngestIndexer } from '../index/indexer.ts'
import { openJournalAppender, type JournalAppender } from '../log/journal.ts'
import { EMBEDDED_JOURNAL_ID, openJournalRow, type JournalPlace } from '../log/journal-source.ts'
import { pipelineClient } from './client.ts'
import { startPipelineThread } from './thread.ts'

/** The ingest journal this process appends accepted requests to (log/journal.ts), when it journals. */
interface IngestJournal {
  /** Its directory (DATA_DIR/ingest-journal). */
  readonly dir: string
  /** Its row in ingest_journals. */
  readonly id: string
  /** Appends journal lines and makes them durable; concurrent calls take turns. */
  append(lines: Buffer): Promise<void>
  /** Events not yet indexed, counted up to `cap`. */
  pending(cap: number): Promise<number>
}

/** The process, index and fold stages of ingestion, on a thread of their own, for one database. */
export interface IngestPipeline {
  /**
   * Starts an indexer on the pipeline's thread: PGlite's own thread, where its transactions do
   * not wait for the HTTP thread between statements; on PostgreSQL a thread with a connection
   * pool of its own, started on first use.
   */
  startIndexer(options: IndexerOptions): IngestIndexer
  /** The journal accepted requests are appended to; absent when they go to ingest_log (PostgreSQL's `database` log). */
  readonly journal?: IngestJournal
  /** Stops the pipeline's indexers and its thread; before the database is closed. */
  close(): Promise<void>
}

interface PipelineOptions {
  /**
   * Where the journal lives (DATA_DIR/ingest-journal). PGlite always journals: without a
   * directory (an in-memory database in tests) it uses a temporary one, removed by close().
   */
  journalDir?: string
  /** On PostgreSQL, the accepted-event log: ingest_log (`database`, the default) or a journal in `journalDir`. */
  log?: 'database' | 'journal'
  logLevel?: string
}

/** The pipeline beside `database` (docs/ingestion.md, "The accepted-event log"). */
export async function openPipeline(database: Database, { journalDir, log = 'database', logLevel = 'silent' }: PipelineOptions = {}): Promise<IngestPipeline> {
  if (database.loadThreadPlugin) return openPglitePipeline(database, database.loadThreadPlugin, journalDir)
  if (!database.url) throw new Error(`a ${database.engine} database offers no thread for the ingest pipeline`)
  if (log === 'journal') {
    if (!journalDir) throw new Error('the ingest journal on PostgreSQL needs a directory')
    return openPostgresJournalPipeline(database, database.url, logLevel, journalDir)
  }
  return openPostgresPipeline(database.url, logLevel)
}

async function openPglitePipeline(
  database: Database,
  loadThreadPlugin: NonNullable<Database['loadThreadPlugin']>,
  journalDir?: string,
): Promise<IngestPipeline> {
  const dir = journalDir ?? mkdtempSync(join(tmpdir(), 'errata-journal-'))
  const removeDir = () => {
    if (!journalDir) rmSync(dir, { recursive: true, force: true })
  }
  const place: JournalPlace = { dir, id: EMBEDDED_JOURNAL_ID, location: `${hostname()}:${resolve(dir)}` }
  let appender: JournalAppender | undefined
  let plugin: Awaited<ReturnType<typeof loadThreadPlugin>> | undefined
  try {
    await openJournalRow(database.db, place)
    appender = await openJournalAppender(dir)
    plugin = await loadThreadPlugin(new URL('./database-thread.ts', import.meta.url), { journal: place })
  } catch (err) {
    await appender?.close().catch(() => undefined)
    removeDir()
    throw err
  }
  const journalAppender = appender
  const thread = plugin
  const client = pipelineClient((request) => thread.call(request))
  return {
    startIndexer: client.startIndexer,
    journal: { dir, id: place.id, append: (lines) => journalAppender.append(lines), pending: client.journalPending },
    async close() {
      await journalAppender.close()
      await thread.close()
      removeDir()
    },
  }
}

/** The indexer's handle on a thread that starts asynchronously. */
function deferredIndexer(thread: Promise<{ startIndexer(options: IndexerOptions): IngestIndexer }>, options: IndexerOptions): IngestIndexer {
  const indexer = thread.then((started) => started.startIndexer(options))
  return {
    wake: (appendedEvents) => void indexer.then((i) => i.wake(appendedEvents)).catch(() => undefined),
    idle: () => indexer.then((i) => i.idle()),
    close: () => indexer.then((i) => i.close()),
  }
}

function openPostgresPipeline(url: string, logLevel: string): IngestPipeline {
  // Started by the first indexer: a process that never ingests opens no second pool.
  let thread: ReturnType<typeof startPipelineThread> | null = null
  return {
    startIndexer(options) {
      thread ??= startPipelineThread(url, logLevel)
      return deferredIndexer(thread, options)
    },
    async close() {
      if (thread) await (await thread).close()
    },
  }
}

/** This journal directory's id in ingest_journals, made when the directory is first used. */
function journalIdOf(dir: string): string {
  const path = join(dir, 'journal-id')
  try {
    const id = readFileSync(path, 'utf8').trim()
    if (id) return id
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  const id = randomUUID()
  writeFileSync(path, `${id}\n`, { mode: 0o600 })
  return id
}

/**
 * PostgreSQL with this process's own journal: each process appends to a journal in its own
 * DATA_DIR (one process per directory, data-dir-lock.ts) and its pipeline thread indexes it
 * into the shared database, so what every process accepted becomes visible to all.
 */
async function openPostgresJournalPipeline(database: Database, url: string, logLevel: string, dir: string): Promise<IngestPipeline> {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const lock = lockDataDir(dir)
  let appender: JournalAppender | undefined
  let thread: Awaited<ReturnType<typeof startPipelineThread>> | undefined
  try {
    const place: JournalPlace = { dir, id: journalIdOf(dir), location: `${hostname()}:${resolve(dir)}` }
    await openJournalRow(database.db, place)
    appender = await openJournalAppender(dir)
    thread = await startPipelineThread(url, logLevel, place)
    const [journalAppender, started] = [appender, thread]
    return {
      startIndexer: (options) => started.startIndexer(options),
      journal: { dir, id: place.id, append: (lines) => journalAppender.append(lines), pending: started.journalPending },
      async close() {
        await journalAppender.close()
        await started.close()
        lock.release()
      },
    }
  } catch (err) {
    await appender?.close().catch(() => undefined)
    await thread?.close().catch(() => undefined)
    lock.release()
    throw err
  }
}
