// The pipeline's side of its thread: process and index stages over a database opened on that
// thread (PGlite's own instance, or a PostgreSQL pool of its own), driven by messages from the
// HTTP thread (client.ts). Keeping them here keeps normalization, the database driver's
// work and the index transactions off the HTTP thread, on both engines.
import type { Logger } from 'pino'
import type { Database } from '../../db/client.ts'
import { createIngestIndexer, type IndexerOptions, type IngestIndexer } from '../index/indexer.ts'
import { createJournalSource, type JournalPlace } from '../log/journal-source.ts'
import { createLogSource } from '../log/table-source.ts'
import { createAttemptGuard } from '../process/attempts.ts'
import { createProcessor } from '../process/process.ts'
import { processStages } from '../process/stages.ts'
import { loadConfig } from '../../config.ts'

export type PipelineRequest =
  | { op: 'indexer.start'; indexerId: number; options: IndexerOptions }
  | { op: 'indexer.wake'; indexerId: number; appendedEvents?: number }
  | { op: 'indexer.idle' | 'indexer.close'; indexerId: number }
  | { op: 'journal.pending'; cap: number }

/** `journalPlace`: the journal this process appends accepted requests to, if it journals. */
export async function createPipelineHost(local: Database, journalPlace: JournalPlace | undefined, logger: Logger) {
  // The same settings as the HTTP thread's: both read them from the process's environment.
  const guard = await createAttemptGuard(local, logger)
  const processor = createProcessor(processStages({ database: local, logger, config: loadConfig() }), guard)
  // Read by every indexer on this thread in turn.
  const journal = journalPlace ? createJournalSource(local, journalPlace, processor, logger) : undefined
  // ingest_log is PostgreSQL's database log; it is read whichever log this process appends to
  // (nearly free when empty), so processes of either kind, and an earlier run's rows, are all indexed.
  const log = createLogSource(local, processor, logger)
  const indexers = new Map<number, IngestIndexer>()

  return {
    async handle(request: PipelineRequest): Promise<unknown> {
      switch (request.op) {
        case 'indexer.start':
          indexers.set(request.indexerId, createIngestIndexer(local, request.options, logger, { journal, log }))
          return null
        case 'indexer.wake':
          indexers.get(request.indexerId)?.wake(request.appendedEvents)
          return null
        case 'indexer.idle':
          return indexers.get(request.indexerId)?.idle()
        case 'indexer.close':
          await indexers.get(request.indexerId)?.close()
          indexers.delete(request.indexerId)
          return null
        case 'journal.pending':
          return journal ? journal.pending(request.cap) : 0
      }
    },
    async close() {
      await Promise.all([...indexers.values()].map((indexer) => indexer.close()))
      await journal?.close()
      await processor.close()
      await guard.close()
    },
  }
}
