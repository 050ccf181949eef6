// The pipeline's thread on PostgreSQL (on PGlite it shares the database engine's thread,
// db/pglite-worker.ts): a connection pool of its own and the pipeline host (host.ts), so
// normalization, the pg client's work and the index transactions stay off the HTTP thread.
import { parentPort, workerData } from 'node:worker_threads'
import { openPostgres } from '../../db/client.ts'
import { createLogger } from '../../logger.ts'
import { describeError } from '../../thread.ts'
import { createPipelineHost, type PipelineRequest, type PipelineSetup } from './host.ts'

const port = parentPort!
const { databaseUrl, logLevel, setup } = workerData as { databaseUrl: string; logLevel: string; setup: PipelineSetup }
const logger = createLogger(logLevel, 'pipeline')
// Four for the pipeline's work, one held while it runs (attempts.ts: other processes see it is alive).
const database = await openPostgres(databaseUrl, { maxConnections: 5 })
const host = await createPipelineHost(database, setup, logger)

port.on('message', (request: (PipelineRequest | { op: 'close' }) & { id: number }) => {
  const work = request.op === 'close' ? host.close().then(() => database.close()).then(() => null) : host.handle(request)
  work.then(
    (result) => port.postMessage({ id: request.id, result }),
    (err: unknown) => port.postMessage({ id: request.id, error: describeError(err) }),
  )
})
port.postMessage({ id: 0, result: 'ready' })
