import { existsSync } from 'node:fs'
import { statfs } from 'node:fs/promises'
import type { PGlite } from '@electric-sql/pglite'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import type { SQL } from 'drizzle-orm'
import type { Logger } from 'pino'
import pg from 'pg'
import { lockDataDir } from './data-dir-lock.ts'
import { makePrivate, secureDataDir } from './data-dir-permissions.ts'
import { installPgTransactionFix } from './pg-transaction.ts'
import { startPgliteThread, type BackupAlongside, type ThreadPlugin } from './pglite-thread.ts'
import { PGLITE_CAPABILITIES, POSTGRES_CAPABILITIES, type Capabilities } from './capabilities.ts'
import { schema } from './schema.ts'

/** The typed query layer; the same queries run on PGlite and PostgreSQL. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>

/** How busy the engine is with this process's queries, where it can tell (PGlite: one connection). */
export interface EngineActivity {
  /**
   * How long the engine has had no statement or transaction of this process's queries in flight
   * (0 while one is; plug-ins' own work is not counted). A long background job steps aside while
   * it is 0: on one connection, every request would wait behind the job's transaction.
   */
  idleForMs(): number
  /**
   * How long ago the engine last answered this process (a statement's result or failure, a
   * plug-in's reply). While other requests' statements keep a readiness probe's query waiting on
   * the one connection, this says whether the engine is still getting through them.
   */
  sinceLastAnswerMs(): number
}

export interface Database extends Capabilities {
  /** For logs and health output only: features read the capabilities. */
  readonly engine: 'pglite' | 'postgres'
  readonly db: Db
  /** Runs a multi-statement SQL script (migrations) with no parameters. */
  execScript(text: string): Promise<void>
  /**
   * Where the engine has a thread of its own (PGlite): runs a module there, beside its only
   * connection, where its transactions do not wait for the main thread between statements (the
   * ingest pipeline, a privacy deletion's steps). Closed with the database at the latest.
   */
  loadThreadPlugin?(module: URL, data: unknown): Promise<ThreadPlugin>
  /**
   * PGlite only: writes the whole database to `path` as a tarball that `openPglite` can start from
   * (test fixtures start from a migrated snapshot rather than from initdb and every migration).
   */
  saveSnapshot?(path: string): Promise<void>
  /**
   * PGlite only: a consistent copy of the cluster's files into `into`/pgdata, with the files of
   * each `alongside` directory put into `into`/`to` at the same moment, between two transactions
   * (server/backup/backup.ts). `into` must be on the same file system as those directories.
   */
  stageBackup?(into: string, alongside: readonly BackupAlongside[]): Promise<void>
  /** Where the engine can tell how busy it is (PGlite). */
  readonly busy?: EngineActivity
  /** PostgreSQL only: the connection string, for threads that open a pool of their own. */
  readonly url?: string
  /** Runs `fn` holding a database-wide advisory lock (one migrator at a time across processes). */
  withExclusiveLock<T>(key: number, fn: () => Promise<T>): Promise<T>
  close(): Promise<void>
}

/**
 * Runs `fn` in one transaction on `db` (or a savepoint, when `db` is already a transaction),
 * handing it a `Db`: every query Errata writes takes one, inside a transaction or not.
 */
export function withTransaction<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction((tx) => fn(tx))
}

/** What a thread plug-in module exports: `attach`, called on the database's thread with `data`. */
export interface ThreadPluginModule {
  attach(database: Database, data: unknown, logger: Logger): Promise<ThreadPluginHandler> | ThreadPluginHandler
}

export interface ThreadPluginHandler {
  handle(request: unknown): Promise<unknown>
  close(): Promise<void>
}

// node-postgres returns bigint/numeric as strings; counts fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))

/**
 * The embedded database: PGlite (PostgreSQL in WebAssembly) on its own thread, so that its
 * work overlaps with the HTTP thread's (server/db/pglite-thread.ts). Callers may run their
 * own modules on that thread too (`loadThreadPlugin`).
 */
export async function openPglite(dataDir?: string, logLevel = 'silent', snapshotPath?: string): Promise<Database> {
  // Owner-only, and refused when another user owns it (data-dir-permissions.ts).
  if (dataDir) secureDataDir(dataDir)
  // Before anything in the directory is touched: one process per DATA_DIR (data-dir-lock.ts).
  const lock = dataDir ? lockDataDir(dataDir) : null
  let client: Awaited<ReturnType<typeof startPgliteThread>>
  try {
    client = await startPgliteThread(dataDir, logLevel, snapshotPath)
    // PGlite sets its catalog files' modes itself (0666) when it creates a cluster.
    if (dataDir) makePrivate(dataDir, true)
  } catch (err) {
    lock?.release()
    throw await explainStartFailure(err, dataDir)
  }
  const db = drizzlePglite({ client: client as unknown as PGlite, schema })
  return {
    engine: 'pglite',
    ...PGLITE_CAPABILITIES,
    db,
    execScript: async (text) => {
      await client.exec(text)
    },
    // PGlite is a single connection: its thread already serializes.
    withExclusiveLock: async (_key, fn) => fn(),
    loadThreadPlugin: (module, data) => client.loadPlugin(module, data),
    saveSnapshot: (path) => client.saveSnapshot(path),
    stageBackup: (into, alongside) => client.stageBackup(into, alongside),
    busy: { idleForMs: () => client.idleForMs(), sinceLastAnswerMs: () => client.sinceLastAnswerMs() },
    async close() {
      await client.close()
      lock?.release()
    },
  }
}

/**
 * PGlite reports a full disk at start-up as a bare "RuntimeError: Aborted()": say so when the
 * data directory's disk is (nearly) full.
 */
export async function explainStartFailure(err: unknown, dataDir: string | undefined, minFreeBytes = 16 * 1024 * 1024): Promise<unknown> {
  if (!dataDir) return err
  try {
    const { bavail, bsize } = await statfs(dataDir)
    const free = Number(bavail) * Number(bsize)
    if (free >= minFreeBytes) return err
    const message = `the embedded database could not start, and the disk of DATA_DIR ${dataDir} has only ${free} bytes free: free some space and start again`
    return new Error(message, { cause: err })
  } catch {
    return err
  }
}

export async function openPostgres(
  connectionString: string,
  { maxConnections = 10 }: { maxConnections?: number } = {},
): Promise<Database> {
  installPgTransactionFix()
  // A database that does not answer a connection attempt within 10 s is reported as unavailable (503)
  // rather than holding requests until their clients give up.
  // jit=off: Errata's queries are short and index-driven, but the planner's cost of a filter that
  // may fall back to an events scan passes the JIT threshold, and compiling took longer than
  // running (measured: 190 ms of JIT on a 20 ms free-text search at 1,000,000 events).
  const pool = new pg.Pool({ connectionString, max: maxConnections, connectionTimeoutMillis: 10_000, options: '-c jit=off' })
  // A connection that the server closes (restart, failover, an admin terminating it) reports an
  // 'error' event: idle ones through the pool, checked-out ones (a transaction between two
  // statements) on the client itself. The query in flight fails on its own, and the pool drops
  // the connection and connects again on demand. Without these listeners Node would treat the
  // event as uncaught and stop the process.
  pool.on('error', () => {})
  pool.on('connect', (client) => client.on('error', () => {}))
  // Fail fast on a wrong DATABASE_URL rather than on the first request.
  const probe = await pool.connect()
  probe.release()
  const db = drizzlePg({ client: pool, schema })
  return {
    engine: 'postgres',
    ...POSTGRES_CAPABILITIES,
    db,
    url: connectionString,
    execScript: async (text) => {
      await pool.query(text)
    },
    withExclusiveLock: async (key, fn) => {
      const conn = await pool.connect()
      try {
        await conn.query('SELECT pg_advisory_lock($1)', [key])
        try {
          return await fn()
        } finally {
          await conn.query('SELECT pg_advisory_unlock($1)', [key])
        }
      } finally {
        conn.release()
      }
    },
    async close() {
      await pool.end()
    },
  }
}

export async function openDatabase(options: { databaseUrl?: string; dataDir?: string; logLevel?: string }): Promise<Database> {
  if (!options.databaseUrl) return openPglite(options.dataDir, options.logLevel)
  // PostgreSQL keeps its data elsewhere, but DATA_DIR may hold this process's ingest journal:
  // owner-only too, when it exists (a setup with no use for it need not have it).
  if (options.dataDir && existsSync(options.dataDir)) secureDataDir(options.dataDir)
  return openPostgres(options.databaseUrl)
}

/**
 * Runs a raw `sql` query and returns its rows. Both drivers answer `{ rows }`; the
 * driver-neutral Db type does not know that, so the cast lives here, once.
 */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] }
  return result.rows
}
