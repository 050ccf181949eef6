import { startThread } from '../../thread.ts'
import type { PipelineSetup } from './host.ts'

/** The pipeline's thread on PostgreSQL (worker.ts). */
export async function startPipelineThread(databaseUrl: string, logLevel: string, setup: PipelineSetup) {
  const thread = await startThread(new URL('./worker.ts', import.meta.url), { databaseUrl, logLevel, setup }, 'pipeline')
  return {
    call: <T>(request: unknown) => thread.send<T>(request as object),
    async close() {
      await thread.send({ op: 'close' })
      await thread.terminate()
    },
  }
}
