import { startThread } from '../../thread.ts'
import { pipelineClient } from './client.ts'

/** The pipeline's thread on PostgreSQL (worker.ts), with its indexers. */
export async function startPipelineThread(databaseUrl: string, logLevel: string) {
  const thread = await startThread(new URL('./worker.ts', import.meta.url), { databaseUrl, logLevel }, 'pipeline')
  const client = pipelineClient((request) => thread.send(request))
  return {
    startIndexer: client.startIndexer,
    async close() {
      await thread.send({ op: 'close' })
      await thread.terminate()
    },
  }
}
