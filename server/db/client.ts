import { mkdtempSync, rmSync } from 'node:fs'
import { statfs } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import type { SQL } from 'drizzle-orm'
import pg from 'pg'
import type { IndexerOptions, IngestIndexer } from '../ingest/index/indexer.ts'
import { openJournalAppender } from '../ingest/log/journal.ts'
import { startPipelineThread } from '../ingest/pipeline/thread.ts'
import { lockDataDir } from './data-dir-lock.ts'
import { makePrivate, secureDataDir } from './data-dir-permissions.ts'
import { installPgTransactionFix } from './pg-transaction.ts'
import { startPgliteThread } from './pglite-thread.ts'
import { schema } from './schema.ts'

/** The typed query layer; the same queries run on PGlite and PostgreSQL. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>

export interface Database {
  readonly engine: 'pglite' | 'postgres'
  readonly db: Db
  /** Runs a multi-statement SQL script (migrations) with no parameters. */
  execScript(text: string): Promise<void>
  /**
   * Starts an ingest indexer on the pipeline's thread (server/ingest/pipeline/): PGlite's own
   * thread, where its transactions do not wait for the HTTP thread between statements; on
   * PostgreSQL a thread with a connection pool of its own, started on first use.
   */
  startIndexer(options: IndexerOptions): IngestIndexer
  /**
   * PGlite only: the ingest journal, where accepted requests wait instead of ingest_log
   * (server/ingest/log/journal.ts).
   */
  journal?: IngestJournal
  /** Runs `fn` holding a database-wide advisory lock (one migrator at a time across processes). */
  withExclusiveLock<T>(key: number, fn: () => Promise<T>): Promise<T>
  close(): Promise<void>
}

export interface IngestJournal {
  /** Its directory (beside the database files). */
  readonly dir: string
  /** Appends journal lines and makes them durable; concurrent calls take turns. */
  append(lines: Buffer): Promise<void>
  /** Events not yet indexed, counted up to `cap`. */
  pending(cap: number): Promise<number>
}

// node-postgres returns bigint/numeric as strings; counts fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value))

/**
 * The embedded database: PGlite (PostgreSQL in WebAssembly) on its own thread, so that its
 * work overlaps with the HTTP thread's (server/db/pglite-thread.ts). The ingest indexer
 * runs on that thread too (`startIndexer`).
 */
export async function openPglite(dataDir?: string, logLevel = 'silent'): Promise<Database> {
  // Owner-only, and refused when another user owns it (data-dir-permissions.ts).
  if (dataDir) secureDataDir(dataDir)
  // Before anything in the directory is touched: one process per DATA_DIR (data-dir-lock.ts).
  const lock = dataDir ? lockDataDir(dataDir) : null
  // An in-memory database (tests) keeps its journal in a temporary directory, removed at close.
  const journalDir = dataDir ? join(dataDir, 'ingest-journal') : mkdtempSync(join(tmpdir(), 'errata-journal-'))
  let client: Awaited<ReturnType<typeof startPgliteThread>> | undefined
  let appender: Awaited<ReturnType<typeof openJournalAppender>>
  try {
    client = await startPgliteThread(dataDir, journalDir, logLevel)
    appender = await openJournalAppender(journalDir)
    // PGlite sets its catalog files' modes itself (0666) when it creates a cluster.
    if (dataDir) makePrivate(dataDir, true)
  } catch (err) {
    await client?.close().catch(() => undefined)
    lock?.release()
    throw await explainStartFailure(err, dataDir)
  }
  const db = drizzlePglite({ client: client as unknown as PGlite, schema }) as unknown as Db
  return {
    engine: 'pglite',
    db,
    execScript: async (text) => {
      await client.exec(text)
    },
    // PGlite is a single connection: its thread already serializes.
    withExclusiveLock: async (_key, fn) => fn(),
    startIndexer: (options) => client.startIndexer(options),
    journal: { dir: journalDir, append: (lines) => appender.append(lines), pending: (cap) => client.journalPending(cap) },
    async close() {
      await appender.close()
      await client.close()
      lock?.release()
      if (!dataDir) rmSync(journalDir, { recursive: true, force: true })
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
  { maxConnections = 10, logLevel = 'silent' }: { maxConnections?: number; logLevel?: string } = {},
): Promise<Database> {
  installPgTransactionFix()
  // A database that does not answer a connection attempt within 10 s is reported as unavailable (503)
  // rather than holding requests until their clients give up.
  const pool = new pg.Pool({ connectionString, max: maxConnections, connectionTimeoutMillis: 10_000 })
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
  const db = drizzlePg({ client: pool, schema }) as unknown as Db
  // The pipeline's thread, started by the first indexer (the pipeline thread's own pool has none).
  let pipeline: Promise<Awaited<ReturnType<typeof startPipelineThread>>> | null = null
  return {
    engine: 'postgres',
    db,
    startIndexer(options) {
      pipeline ??= startPipelineThread(connectionString, logLevel)
      const indexer = pipeline.then((thread) => thread.startIndexer(options))
      return {
        wake: (appendedEvents) => void indexer.then((i) => i.wake(appendedEvents)).catch(() => undefined),
        idle: () => indexer.then((i) => i.idle()),
        close: () => indexer.then((i) => i.close()),
      }
    },
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
      if (pipeline) await (await pipeline).close()
      await pool.end()
    },
  }
}

export function openDatabase(options: { databaseUrl?: string; dataDir?: string; logLevel?: string }): Promise<Database> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, { logLevel: options.logLevel })
    : openPglite(options.dataDir, options.logLevel)
}

/**
 * Runs a raw `sql` query and returns its rows. Both drivers answer `{ rows }`; the
 * driver-neutral Db type does not know that, so the cast lives here, once.
 */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] }
  return result.rows
}
