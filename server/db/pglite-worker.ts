// The PGlite database engine on its own thread (see pglite-thread.ts), with the plug-ins that
// callers load beside it (the ingest pipeline's indexer): WASM execution no longer competes
// with HTTP parsing on the main thread, and a plug-in's transactions run without waiting for
// the main thread between statements (they hold PGlite's only connection while they run).
import { copyFile, cp, link, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite, type Transaction } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { drizzle } from 'drizzle-orm/pglite'
import { createLogger } from '../logger.ts'
import { describeError } from '../thread.ts'
import { PGLITE_CAPABILITIES } from './capabilities.ts'
import { LOCK_FILE } from './data-dir-lock.ts'
import type { Database, ThreadPluginModule } from './client.ts'
import type { BackupAlongside, WorkerReply, WorkerRequest } from './pglite-thread.ts'
import { schema } from './schema.ts'

const port = parentPort!
const { dataDir, logLevel, snapshotPath } = workerData as { dataDir?: string; logLevel: string; snapshotPath?: string }
// A snapshot (saveSnapshot) is unpacked in place of initdb, which takes seconds of WebAssembly.
// pg_trgm: the trigram index behind substring filters (migration 0004), as on PostgreSQL.
const extensions = { pg_trgm }
const pglite = snapshotPath
  ? await PGlite.create(dataDir, { loadDataDir: new Blob([await readFile(snapshotPath)]), extensions })
  : await PGlite.create(dataDir, { extensions })
const logger = createLogger(logLevel, 'database')

/** The same Database the main thread has for PGlite, over the instance on this thread. */
const local: Database = {
  engine: 'pglite',
  ...PGLITE_CAPABILITIES,
  db: drizzle({ client: pglite, schema }),
  execScript: async (text) => {
    await pglite.exec(text)
  },
  withExclusiveLock: async (_key, fn) => fn(),
  close: () => pglite.close(),
}

/** Plug-ins loaded by the main thread (Database.loadThreadPlugin), by id. */
const plugins = new Map<number, Awaited<ReturnType<ThreadPluginModule['attach']>>>()
const plugin = (pluginId: number) => {
  const loaded = plugins.get(pluginId)
  if (!loaded) throw new Error(`thread plug-in ${pluginId} is not loaded`)
  return loaded
}

/** Transactions the main thread has open: each holds PGlite's connection until it ends. */
const transactions = new Map<number, { tx: Transaction; end: (commit: boolean) => void; finished: Promise<void> }>()
class RolledBack extends Error {}

const identity = (value: unknown) => value
const runner = (txId?: number) => {
  if (txId === undefined) return pglite
  const open = transactions.get(txId)
  if (!open) throw new Error(`transaction ${txId} is not open`)
  return open.tx
}

async function begin(txId: number): Promise<void> {
  let opened!: () => void
  const isOpen = new Promise<void>((resolve) => (opened = resolve))
  let end!: (commit: boolean) => void
  const ended = new Promise<boolean>((resolve) => (end = resolve))
  const finished = pglite
    .transaction(async (tx) => {
      transactions.set(txId, { tx, end, finished })
      opened()
      if (!(await ended)) throw new RolledBack()
    })
    .catch((err: unknown) => {
      if (!(err instanceof RolledBack)) throw err
    })
    .finally(() => transactions.delete(txId))
  // BEGIN may fail (closed database): report that rather than wait forever.
  await Promise.race([isOpen, finished])
}

/**
 * Puts the files of `from` (if it exists; those ending in `suffix`, when given) into `to`: copied
 * as they are now when `copy` (files still appended to), else hard-linked (instant; files that
 * no longer change).
 */
async function stageFiles({ from, to, copy, suffix }: BackupAlongside, into: string): Promise<void> {
  const target = join(into, to)
  await mkdir(target, { recursive: true, mode: 0o700 })
  const entries = await readdir(from, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return []
    throw err
  })
  for (const entry of entries) {
    if (!entry.isFile() || (suffix && !entry.name.endsWith(suffix))) continue
    try {
      // node-tar 7 fails on an empty file with several links: an empty one is copied too.
      if (copy || (await stat(join(from, entry.name))).size === 0) await copyFile(join(from, entry.name), join(target, entry.name))
      else await link(join(from, entry.name), join(target, entry.name))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err // removed meanwhile (a journal segment the indexer passed)
    }
  }
}

/**
 * See Database.stageBackup (client.ts). Every statement, autocommit or not, takes PGlite's
 * transaction lock: holding it (an empty transaction) nothing runs meanwhile, so the cluster's
 * files are checkpointed and copied, and the files beside them linked, at one moment between
 * transactions. The ingest journal's position (a row) and its segments (files) then agree: the
 * indexer cannot pass a segment, nor delete it, meanwhile. The cluster's files are copied
 * rather than dumped (PGlite's dumpDataDir): that reads the whole directory into memory,
 * Errata's own files included, and fails on the server's socket.
 */
async function stageBackup(into: string, alongside: readonly BackupAlongside[]): Promise<void> {
  if (!dataDir) throw new Error('an in-memory database has no files to back up')
  const root = resolve(dataDir)
  const own = new Set([resolve(into), ...alongside.map((dir) => resolve(dir.from))])
  await pglite.transaction(async (tx) => {
    // Dirty pages to the data files: the copy starts with next to nothing to replay.
    await tx.exec('CHECKPOINT')
    // PostgreSQL's files only: not Errata's beside them (the pid file, the socket, this copy).
    for (const entry of await readdir(root, { withFileTypes: true })) {
      const source = join(root, entry.name)
      if (own.has(source) || entry.name === LOCK_FILE || !(entry.isFile() || entry.isDirectory())) continue
      await cp(source, join(into, 'pgdata', entry.name), { recursive: true })
    }
    for (const dir of alongside) await stageFiles(dir, into)
  })
}

async function handle(request: WorkerRequest): Promise<unknown> {
  switch (request.op) {
    case 'query': {
      const parsers = request.identityParsers
        ? Object.fromEntries(request.identityParsers.map((oid) => [oid, identity]))
        : undefined
      const result = await runner(request.txId).query(request.sql, request.params, { rowMode: request.rowMode, parsers })
      return { rows: result.rows, fields: result.fields, affectedRows: result.affectedRows }
    }
    case 'exec': {
      const results = await runner(request.txId).exec(request.sql)
      return results.map((r) => ({ rows: r.rows, fields: r.fields, affectedRows: r.affectedRows }))
    }
    case 'begin':
      return begin(request.txId)
    case 'end': {
      const open = transactions.get(request.txId)
      if (!open) throw new Error(`transaction ${request.txId} is not open`)
      open.end(request.commit)
      return open.finished
    }
    case 'plugin.load': {
      const module = (await import(request.module)) as ThreadPluginModule
      plugins.set(request.pluginId, await module.attach(local, request.data, logger))
      return null
    }
    case 'plugin.call':
      return plugin(request.pluginId).handle(request.request)
    case 'plugin.close':
      await plugin(request.pluginId).close()
      plugins.delete(request.pluginId)
      return null
    case 'snapshot':
      await writeFile(request.path, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()))
      return null
    case 'backup':
      await stageBackup(request.into, request.alongside)
      return null
    case 'close':
      await Promise.all([...plugins.values()].map((loaded) => loaded.close()))
      plugins.clear()
      await pglite.close()
      return null
  }
}

port.on('message', (request: WorkerRequest) => {
  handle(request).then(
    (result) => port.postMessage({ id: request.id, result } satisfies WorkerReply),
    (err: unknown) => port.postMessage({ id: request.id, error: describeError(err) } satisfies WorkerReply),
  )
})
port.postMessage({ id: 0, result: 'ready' } satisfies WorkerReply)
