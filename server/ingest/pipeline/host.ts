// The pipeline's side of its thread: the log's reading half, the process stage and the indexer,
// over a database opened on that thread (PGlite's own instance, or a PostgreSQL pool of its
// own), driven by messages from the HTTP thread (client.ts). Keeping them here keeps
// normalization, the database driver's work and the index transactions off the HTTP thread.
import type { Logger } from 'pino'
import type { Database } from '../../db/client.ts'
import type { AcceptedLog } from '../log/accepted-log.ts'
import { journalLog } from '../log/journal-log.ts'
import { tableLog } from '../log/table-log.ts'
import { createAttemptGuard } from '../process/attempts.ts'
import { createProcessor } from '../process/process.ts'
import { processStages } from '../process/stages.ts'
import { loadConfig } from '../../config.ts'
import { Indexer, type IndexerOptions } from './indexer.ts'

/** What the HTTP thread tells the pipeline's thread when it starts it. */
export interface PipelineSetup {
  /** The journal's directory on PGlite; absent on PostgreSQL, whose log is ingest_log. */
  journalDir?: string
  indexer: IndexerOptions
}

export type PipelineRequest = { op: 'wake'; appendedEvents: number } | { op: 'idle' } | { op: 'backlog'; cap: number }

export async function createPipelineHost(local: Database, setup: PipelineSetup, logger: Logger) {
  const guard = await createAttemptGuard(local, logger)
  // The same settings as the HTTP thread's: both read them from the process's environment.
  const processor = createProcessor(processStages({ database: local, logger, config: loadConfig() }), guard)
  const log: AcceptedLog = setup.journalDir ? journalLog(local.db, setup.journalDir, logger) : tableLog(local.db)
  const indexer = new Indexer(local, log, processor, setup.indexer, logger)

  return {
    async handle(request: PipelineRequest): Promise<unknown> {
      switch (request.op) {
        case 'wake':
          indexer.wake(request.appendedEvents)
          return null
        case 'idle':
          return indexer.idle()
        case 'backlog':
          return log.backlog(request.cap)
      }
    },
    async close() {
      await indexer.close()
      await log.close()
      await processor.close()
      await guard.close()
    },
  }
}
