import { startThread } from '../../thread.ts'
import type { JournalPlace } from '../log/journal-source.ts'
import { pipelineClient } from './client.ts'

/** The pipeline's thread on PostgreSQL (worker.ts), with its indexers, reading `journal` if this process journals. */
export async function startPipelineThread(databaseUrl: string, logLevel: string, journal?: JournalPlace) {
  const thread = await startThread(new URL('./worker.ts', import.meta.url), { databaseUrl, logLevel, journal }, 'pipeline')
  const client = pipelineClient((request) => thread.send(request))
  return {
    startIndexer: client.startIndexer,
    journalPending: client.journalPending,
    async close() {
      await thread.send({ op: 'close' })
      await thread.terminate()
    },
  }
}
