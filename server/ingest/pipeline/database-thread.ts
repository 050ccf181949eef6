// The pipeline on PGlite: a plug-in of the database's thread (Database.loadThreadPlugin), so
// that normalization and the index transactions run beside the engine's only connection.
import type { Logger } from 'pino'
import type { Database, ThreadPluginHandler } from '../../db/client.ts'
import { createPipelineHost, type PipelineRequest, type PipelineSetup } from './host.ts'

export async function attach(database: Database, data: unknown, logger: Logger): Promise<ThreadPluginHandler> {
  const host = await createPipelineHost(database, data as PipelineSetup, logger)
  return { handle: (request) => host.handle(request as PipelineRequest), close: () => host.close() }
}
