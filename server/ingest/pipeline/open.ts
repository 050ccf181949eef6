// Ingestion as the HTTP thread holds it: the log's appending half behind group commit, and the
// pipeline's thread (PGlite's own thread, or a thread with a PostgreSQL pool of its own) where
// the log is read, processed and indexed (docs/ingestion.md).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Logger } from 'pino'
import type { IngestWriter } from '../../context.ts'
import type { Database } from '../../db/client.ts'
import type { LogAppender } from '../log/accepted-log.ts'
import { createGroupCommit, type GroupCommitOptions } from '../log/group-commit.ts'
import { journalAppender } from '../log/journal-log.ts'
import { tableAppender } from '../log/table-log.ts'
import { pipelineClient } from './client.ts'
import type { PipelineSetup } from './host.ts'
import type { IndexerOptions } from './indexer.ts'
import { startPipelineThread } from './thread.ts'

export interface IngestOptions extends GroupCommitOptions {
  /** The indexer's batching rule (indexer.ts). */
  indexBatchSize: number
  indexLingerMs: number
  /** How often the indexer looks for requests it was not woken for; 1 s by default. */
  indexPollMs?: number
}

interface OpenOptions {
  /** The journal's directory (DATA_DIR/ingest-journal) on PGlite; without one (tests) a temporary one, removed by close(). */
  journalDir?: string
  logLevel?: string
}

/** The pipeline's thread: how to call it and stop it. */
interface PipelineThread {
  call<T>(request: unknown): Promise<T>
  close(): Promise<void>
}

/** Ingestion beside `database`: the journal on PGlite, ingest_log on PostgreSQL. */
export async function openIngestion(database: Database, options: IngestOptions, logger: Logger, { journalDir, logLevel = 'silent' }: OpenOptions = {}): Promise<IngestWriter> {
  const indexer: IndexerOptions = { batchSize: options.indexBatchSize, lingerMs: options.indexLingerMs, pollMs: options.indexPollMs }
  let appender: LogAppender
  let thread: PipelineThread
  let removeDir = () => {}
  if (database.loadThreadPlugin) {
    const dir = journalDir ?? mkdtempSync(join(tmpdir(), 'errata-journal-'))
    if (!journalDir) removeDir = () => rmSync(dir, { recursive: true, force: true })
    try {
      appender = await journalAppender(dir)
    } catch (err) {
      removeDir()
      throw err
    }
    const setup: PipelineSetup = { journalDir: dir, indexer }
    try {
      thread = await database.loadThreadPlugin(new URL('./database-thread.ts', import.meta.url), setup)
    } catch (err) {
      await appender.close().catch(() => undefined)
      removeDir()
      throw err
    }
  } else {
    if (!database.url) throw new Error(`a ${database.engine} database offers no thread for the ingest pipeline`)
    appender = tableAppender(database)
    thread = await startPipelineThread(database.url, logLevel, { indexer })
  }
  const pipeline = pipelineClient((request) => thread.call(request))
  const groupCommit = createGroupCommit(appender, options, logger, pipeline.wake)
  return {
    write: (request) => groupCommit.write(request),
    indexed: pipeline.idle,
    backlog: pipeline.backlog,
    logDir: appender.dir,
    async close() {
      await groupCommit.close()
      await thread.close()
      await appender.close()
      removeDir()
    },
  }
}
