import { Worker } from 'node:worker_threads'
import type { IndexerOptions, IngestIndexer } from '../ingest/index/indexer.ts'

export type WorkerRequest =
  | { id: number; op: 'query'; txId?: number; sql: string; params: unknown[]; rowMode?: 'array' | 'object'; identityParsers?: number[] }
  | { id: number; op: 'exec'; txId?: number; sql: string }
  | { id: number; op: 'begin'; txId: number }
  | { id: number; op: 'end'; txId: number; commit: boolean }
  | { id: number; op: 'indexer.start'; indexerId: number; options: IndexerOptions }
  | { id: number; op: 'indexer.wake' | 'indexer.idle' | 'indexer.close'; indexerId: number }
  | { id: number; op: 'journal.pending'; cap: number }
  | { id: number; op: 'close' }

export interface WorkerReply {
  id: number
  result?: unknown
  error?: Record<string, unknown>
}

type DistributiveOmitId<T> = T extends unknown ? Omit<T, 'id'> : never
type QueryOptions = { rowMode?: 'array' | 'object'; parsers?: Record<number, (value: string) => unknown> }
type Results = { rows: unknown[]; fields: unknown[]; affectedRows?: number }

/** What drizzle's PGlite driver and client.ts call on a PGlite instance, plus the indexer. */
export interface PgliteThread {
  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results>
  exec(sql: string): Promise<Results[]>
  transaction<T>(fn: (tx: Pick<PgliteThread, 'query' | 'exec'>) => Promise<T>): Promise<T>
  startIndexer(options: IndexerOptions): IngestIndexer
  /** Events in the ingest journal not yet indexed, counted up to `cap`. */
  journalPending(cap: number): Promise<number>
  close(): Promise<void>
}

/**
 * PGlite running in a worker thread (pglite-worker.ts), behind the subset of PGlite's
 * interface that drizzle uses. A transaction opened here is a real PGlite transaction on
 * that thread: it holds the single connection until COMMIT, so other statements wait, as
 * with PGlite in-process. Parsers must be identity functions (drizzle's are): functions
 * cannot cross threads.
 */
export async function startPgliteThread(
  dataDir: string | undefined,
  journalDir: string,
  logLevel: string,
): Promise<PgliteThread> {
  const url = new URL('./pglite-worker.ts', import.meta.url)
  // The worker is TypeScript too: it registers tsx's loader, then imports the module (Node 20
  // does not apply `--import` hooks to a worker's entry module).
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}) })`
  const worker = new Worker(bootstrap, { eval: true, workerData: { dataDir, journalDir, logLevel } })
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: unknown) => void }>()
  let nextId = 1
  let failure: unknown = null

  const ready = new Promise<void>((resolve, reject) => {
    pending.set(0, { resolve: () => resolve(), reject })
  })
  worker.on('message', (reply: WorkerReply) => {
    const waiter = pending.get(reply.id)
    if (!waiter) return
    pending.delete(reply.id)
    if (reply.error) waiter.reject(Object.assign(new Error(String(reply.error.message)), reply.error))
    else waiter.resolve(reply.result)
  })
  const failAll = (err: unknown) => {
    failure = err
    for (const waiter of pending.values()) waiter.reject(err)
    pending.clear()
  }
  worker.on('error', failAll)
  worker.on('exit', (code) => failAll(new Error(`the database thread exited (code ${code})`)))

  function send<T>(request: DistributiveOmitId<WorkerRequest>): Promise<T> {
    if (failure) return Promise.reject(failure)
    const id = nextId++
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject })
      worker.postMessage({ ...request, id })
    })
  }

  const query = (txId: number | undefined, sql: string, params: unknown[] = [], options: QueryOptions = {}) => {
    const identityParsers = options.parsers ? Object.keys(options.parsers).map(Number) : undefined
    return send<Results>({ op: 'query', txId, sql, params, rowMode: options.rowMode, identityParsers })
  }
  let nextTxId = 1
  let nextIndexerId = 1

  await ready
  return {
    query: (sql, params, options) => query(undefined, sql, params, options),
    exec: (sql) => send<Results[]>({ op: 'exec', sql }),
    async transaction(fn) {
      const txId = nextTxId++
      await send({ op: 'begin', txId })
      let result
      try {
        result = await fn({
          query: (sql, params, options) => query(txId, sql, params, options),
          exec: (sql) => send<Results[]>({ op: 'exec', txId, sql }),
        })
      } catch (err) {
        await send({ op: 'end', txId, commit: false }).catch(() => undefined)
        throw err
      }
      await send({ op: 'end', txId, commit: true })
      return result
    },
    startIndexer(options) {
      const indexerId = nextIndexerId++
      const started = send({ op: 'indexer.start', indexerId, options })
      const call = <T>(op: 'indexer.idle' | 'indexer.close') => started.then(() => send<T>({ op, indexerId }))
      return {
        wake: () => void started.then(() => send({ op: 'indexer.wake', indexerId })).catch(() => undefined),
        idle: () => call<number | null>('indexer.idle'),
        close: () => call<void>('indexer.close'),
      }
    },
    journalPending: (cap) => send<number>({ op: 'journal.pending', cap }),
    async close() {
      await send({ op: 'close' })
      await worker.terminate()
    },
  }
}
