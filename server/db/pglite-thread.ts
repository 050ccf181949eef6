import { startThread } from '../thread.ts'

export type WorkerRequest =
  | { id: number; op: 'query'; txId?: number; sql: string; params: unknown[]; rowMode?: 'array' | 'object'; identityParsers?: number[] }
  | { id: number; op: 'exec'; txId?: number; sql: string }
  | { id: number; op: 'begin'; txId: number }
  | { id: number; op: 'end'; txId: number; commit: boolean }
  | { id: number; op: 'plugin.load'; pluginId: number; module: string; data: unknown }
  | { id: number; op: 'plugin.call'; pluginId: number; request: unknown }
  | { id: number; op: 'plugin.close'; pluginId: number }
  | { id: number; op: 'snapshot'; path: string }
  | { id: number; op: 'backup'; into: string; alongside: readonly BackupAlongside[] }
  | { id: number; op: 'close' }

export type { ThreadReply as WorkerReply } from '../thread.ts'

/** A directory of DATA_DIR that a backup holds beside the cluster (Database.stageBackup). */
export interface BackupAlongside {
  from: string
  /** Its name in the backup. */
  to: string
  /** Copied as they are (files still appended to), rather than hard-linked (files that no longer change). */
  copy?: boolean
  /** Only the files whose names end so. */
  suffix?: string
}

type DistributiveOmitId<T> = T extends unknown ? Omit<T, 'id'> : never
type QueryOptions = { rowMode?: 'array' | 'object'; parsers?: Record<number, (value: string) => unknown> }
type Results = { rows: unknown[]; fields: unknown[]; affectedRows?: number }

/** The main thread's handle on a module running on PGlite's thread (Database.loadThreadPlugin in client.ts). */
export interface ThreadPlugin {
  /** Sends a request to the module's `handle` and resolves with its answer. */
  call<T>(request: unknown): Promise<T>
  close(): Promise<void>
}

/** What drizzle's PGlite driver and client.ts call on a PGlite instance, plus thread plug-ins. */
interface PgliteThread {
  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results>
  exec(sql: string): Promise<Results[]>
  transaction<T>(fn: (tx: Pick<PgliteThread, 'query' | 'exec'>) => Promise<T>): Promise<T>
  /** Runs `module` on the database's thread (see ThreadPlugin above). */
  loadPlugin(module: URL, data: unknown): Promise<ThreadPlugin>
  /** Writes the whole cluster to `path` as a tarball that `startPgliteThread` can start from. */
  saveSnapshot(path: string): Promise<void>
  /** See Database.stageBackup (client.ts). */
  stageBackup(into: string, alongside: readonly BackupAlongside[]): Promise<void>
  /** See EngineActivity.idleForMs (client.ts). */
  idleForMs(): number
  /** See EngineActivity.sinceLastAnswerMs (client.ts). */
  sinceLastAnswerMs(): number
  close(): Promise<void>
}

/**
 * PGlite running in a worker thread (pglite-worker.ts), behind the subset of PGlite's
 * interface that drizzle uses. A transaction opened here is a real PGlite transaction on
 * that thread: it holds the single connection until COMMIT, so other statements wait, as
 * with PGlite in-process. Parsers must be identity functions (drizzle's are): functions
 * cannot cross threads.
 */
export async function startPgliteThread(dataDir: string | undefined, logLevel: string, snapshotPath?: string): Promise<PgliteThread> {
  const thread = await startThread(new URL('./pglite-worker.ts', import.meta.url), { dataDir, logLevel, snapshotPath }, 'database')
  let answeredAt = performance.now()
  const send = <T>(request: DistributiveOmitId<WorkerRequest>) =>
    thread.send<T>(request).finally(() => {
      answeredAt = performance.now()
    })
  let nextPluginId = 1

  // Statements and transactions of this thread's callers in flight on the engine, and when the
  // last of them ended: a background job reads it to step aside while requests are being served.
  let inFlight = 0
  let idleSince = performance.now()
  const tracked = async <T>(work: () => Promise<T>): Promise<T> => {
    inFlight += 1
    try {
      return await work()
    } finally {
      inFlight -= 1
      if (inFlight === 0) idleSince = performance.now()
    }
  }

  const query = (txId: number | undefined, sql: string, params: unknown[] = [], options: QueryOptions = {}) => {
    const identityParsers = options.parsers ? Object.keys(options.parsers).map(Number) : undefined
    return send<Results>({ op: 'query', txId, sql, params, rowMode: options.rowMode, identityParsers })
  }
  let nextTxId = 1

  return {
    query: (sql, params, options) => tracked(() => query(undefined, sql, params, options)),
    exec: (sql) => tracked(() => send<Results[]>({ op: 'exec', sql })),
    transaction: (fn) => tracked(async () => {
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
    }),
    async loadPlugin(module, data) {
      const pluginId = nextPluginId++
      await send({ op: 'plugin.load', pluginId, module: module.href, data })
      return {
        call: <T>(request: unknown) => send<T>({ op: 'plugin.call', pluginId, request }),
        close: () => send<void>({ op: 'plugin.close', pluginId }),
      }
    },
    async saveSnapshot(path) {
      await send({ op: 'snapshot', path })
    },
    async stageBackup(into, alongside) {
      await send({ op: 'backup', into, alongside })
    },
    idleForMs: () => (inFlight > 0 ? 0 : performance.now() - idleSince),
    sinceLastAnswerMs: () => performance.now() - answeredAt,
    async close() {
      await send({ op: 'close' })
      await thread.terminate()
    },
  }
}
