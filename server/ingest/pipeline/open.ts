import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Database } from '../../db/client.ts'
import type { IndexerOptions, IngestIndexer } from '../index/indexer.ts'
import { openJournalAppender } from '../log/journal.ts'
import { pipelineClient } from './client.ts'
import { startPipelineThread } from './thread.ts'

/** PGlite's accepted-event log: the ingest journal, where accepted requests wait instead of ingest_log (log/journal.ts). */
export interface IngestJournal {
  /** Its directory (beside the database files). */
  readonly dir: string
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
  /** PGlite only: the journal accepted requests are appended to. */
  readonly journal?: IngestJournal
  /** Stops the pipeline's indexers and its thread; before the database is closed. */
  close(): Promise<void>
}

/**
 * The pipeline beside `database`. On PGlite, `journalDir` is where the journal lives (beside
 * the database files); without one (an in-memory database in tests) it is a temporary
 * directory, removed by close().
 */
export async function openPipeline(database: Database, { journalDir, logLevel = 'silent' }: { journalDir?: string; logLevel?: string } = {}): Promise<IngestPipeline> {
  if (database.loadThreadPlugin) return openPglitePipeline(database.loadThreadPlugin, journalDir)
  if (!database.url) throw new Error(`a ${database.engine} database offers no thread for the ingest pipeline`)
  return openPostgresPipeline(database.url, logLevel)
}

async function openPglitePipeline(loadThreadPlugin: NonNullable<Database['loadThreadPlugin']>, journalDir?: string): Promise<IngestPipeline> {
  const dir = journalDir ?? mkdtempSync(join(tmpdir(), 'errata-journal-'))
  const removeDir = () => {
    if (!journalDir) rmSync(dir, { recursive: true, force: true })
  }
  let appender: Awaited<ReturnType<typeof openJournalAppender>> | undefined
  let plugin: Awaited<ReturnType<typeof loadThreadPlugin>> | undefined
  try {
    appender = await openJournalAppender(dir)
    plugin = await loadThreadPlugin(new URL('./database-thread.ts', import.meta.url), { journalDir: dir })
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
    journal: { dir, append: (lines) => journalAppender.append(lines), pending: client.journalPending },
    async close() {
      await journalAppender.close()
      await thread.close()
      removeDir()
    },
  }
}

function openPostgresPipeline(url: string, logLevel: string): IngestPipeline {
  // Started by the first indexer: a process that never ingests opens no second pool.
  let thread: ReturnType<typeof startPipelineThread> | null = null
  return {
    startIndexer(options) {
      thread ??= startPipelineThread(url, logLevel)
      const indexer = thread.then((started) => started.startIndexer(options))
      return {
        wake: (appendedEvents) => void indexer.then((i) => i.wake(appendedEvents)).catch(() => undefined),
        idle: () => indexer.then((i) => i.idle()),
        close: () => indexer.then((i) => i.close()),
      }
    },
    async close() {
      if (thread) await (await thread).close()
    },
  }
}
