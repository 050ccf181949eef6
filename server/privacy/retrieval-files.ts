// Where retrieval output files live: gzip'd JSON lines, written as a stream and read back as
// one. On a database that one process uses (the embedded one), files in DATA_DIR/event-data; on
// one that processes share (PostgreSQL), rows of event_data_files, so that any process behind a
// load balancer can serve a download that another one prepared.
import { createReadStream, createWriteStream, mkdirSync } from 'node:fs'
import { open, readdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { finished, pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import { sql } from 'drizzle-orm'
import { queryRows, type Database } from '../db/client.ts'
import { eventDataDir, RETRIEVAL_FILE_SUFFIX } from '../db/data-dir-layout.ts'

/** An output file being written: lines in, gzip'd on the way. */
interface RetrievalFileWriter {
  /** Appends text (whole JSON lines); waits when the file cannot keep up. */
  write(text: string): Promise<void>
  /** Makes the file complete and durable; its size in bytes. */
  finish(): Promise<number>
  /** Drops what was written. */
  abort(): Promise<void>
}

export interface RetrievalFileStore {
  create(requestId: string, key: string): Promise<RetrievalFileWriter>
  /** The gzip'd bytes of a finished file, or null when it is not there. */
  open(requestId: string, key: string): Promise<ReadableStream<Uint8Array> | null>
  remove(requestId: string, key: string): Promise<void>
  /** Removes every file of the request but `keep` (parts left by runs that were cut off). */
  removeOthers(requestId: string, keep: string | null): Promise<void>
  /**
   * Removes files no request points at any more (the request or its organization was deleted,
   * or the process stopped between a database change and the file's removal).
   */
  sweep(): Promise<void>
}

/** Keys name files: made by this module, never from input, but checked all the same. */
const SAFE_KEY = /^[0-9a-zA-Z_-]{1,100}$/
function checkKey(key: string): string {
  if (!SAFE_KEY.test(key)) throw new Error(`not a retrieval file key: ${key}`)
  return key
}

/** Gzip in front of a sink; write() respects the sink's pace. */
function gzipInto(sink: Writable): { write(text: string): Promise<void>; end(): Promise<void>; destroy(): void } {
  const gzip = createGzip({ level: 6 })
  const done = pipeline(gzip, sink)
  let failure: unknown
  done.catch((err: unknown) => (failure = err))
  return {
    async write(text) {
      if (failure) throw failure
      if (!gzip.write(text)) {
        await new Promise<void>((resolve, reject) => {
          const onDrain = () => {
            gzip.off('error', onError)
            resolve()
          }
          const onError = (err: unknown) => {
            gzip.off('drain', onDrain)
            reject(err)
          }
          gzip.once('drain', onDrain)
          gzip.once('error', onError)
        })
      }
    },
    async end() {
      gzip.end()
      await done
    },
    destroy() {
      gzip.destroy()
      done.catch(() => undefined)
    },
  }
}

/** Files in `dir` (DATA_DIR/event-data): `<key>.partial` while written, renamed to `<key>.jsonl.gz` once durable. */
function directoryFileStore(database: Database, dir: string): RetrievalFileStore {
  const finalPath = (key: string) => join(dir, `${checkKey(key)}${RETRIEVAL_FILE_SUFFIX}`)
  const partialPath = (key: string) => join(dir, `${checkKey(key)}.partial`)
  const ensureDir = () => mkdirSync(dir, { recursive: true, mode: 0o700 })
  return {
    async create(_requestId, key) {
      ensureDir()
      const file = createWriteStream(partialPath(key), { mode: 0o600 })
      const gzip = gzipInto(file)
      return {
        write: (text) => gzip.write(text),
        async finish() {
          await gzip.end()
          await finished(file)
          const handle = await open(partialPath(key), 'r+')
          try {
            await handle.sync()
          } finally {
            await handle.close()
          }
          await rename(partialPath(key), finalPath(key))
          return (await stat(finalPath(key))).size
        },
        async abort() {
          gzip.destroy()
          await rm(partialPath(key), { force: true })
        },
      }
    },
    async open(_requestId, key) {
      try {
        await stat(finalPath(key))
      } catch {
        return null
      }
      return Readable.toWeb(createReadStream(finalPath(key))) as ReadableStream<Uint8Array>
    },
    async remove(_requestId, key) {
      await rm(finalPath(key), { force: true })
      await rm(partialPath(key), { force: true })
    },
    async removeOthers(requestId, keep) {
      ensureDir()
      for (const name of await readdir(dir)) {
        if (name.startsWith(`${requestId}-`) && (keep === null || !name.startsWith(`${keep}.`))) {
          await rm(join(dir, name), { force: true })
        }
      }
    },
    async sweep() {
      let names: string[]
      try {
        names = await readdir(dir)
      } catch {
        return
      }
      const rows = await queryRows<{ file_key: string }>(
        database.db,
        sql`SELECT file_key FROM event_data_requests WHERE file_key IS NOT NULL`,
      )
      const kept = new Set(rows.map((r) => r.file_key))
      for (const name of names) {
        const key = name.replace(/\.(jsonl\.gz|partial)$/, '')
        // Sweeping runs at start, before any export of this process: a partial file is left over.
        if (!kept.has(key)) await rm(join(dir, name), { force: true })
      }
    },
  }
}

/** Pieces of about this size, one row each. */
const CHUNK_BYTES = 1024 * 1024

/** Rows of event_data_files (PostgreSQL): a file is its pieces in seq order. */
function databaseFileStore(database: Database): RetrievalFileStore {
  const db = database.db
  return {
    async create(requestId, key) {
      checkKey(key)
      let seq = 0
      let bytes = 0
      let pending: Buffer[] = []
      let pendingBytes = 0
      const flush = async () => {
        if (pendingBytes === 0) return
        const data = Buffer.concat(pending)
        pending = []
        pendingBytes = 0
        await db.execute(sql`INSERT INTO event_data_files (request_id, file_key, seq, data) VALUES (${requestId}, ${key}, ${seq}, ${data})`)
        seq += 1
        bytes += data.length
      }
      const sink = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          pending.push(chunk)
          pendingBytes += chunk.length
          if (pendingBytes < CHUNK_BYTES) return callback()
          flush().then(() => callback(), callback)
        },
        final(callback) {
          flush().then(() => callback(), callback)
        },
      })
      const gzip = gzipInto(sink)
      return {
        write: (text) => gzip.write(text),
        async finish() {
          await gzip.end()
          return bytes
        },
        async abort() {
          gzip.destroy()
          await db.execute(sql`DELETE FROM event_data_files WHERE file_key = ${key}`)
        },
      }
    },
    async open(_requestId, key) {
      const first = await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM event_data_files WHERE file_key = ${key}`)
      const pieces = first[0]?.n ?? 0
      if (pieces === 0) return null
      let seq = 0
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (seq >= pieces) return controller.close()
          const rows = await queryRows<{ data: Uint8Array }>(
            db,
            sql`SELECT data FROM event_data_files WHERE file_key = ${key} AND seq = ${seq}`,
          )
          seq += 1
          const data = rows[0]?.data
          // Removed while being read (expired, or a deletion): end the download as a failure.
          if (!data) return controller.error(new Error('the file was removed while it was being downloaded'))
          controller.enqueue(new Uint8Array(data.buffer, data.byteOffset, data.byteLength))
        },
      })
    },
    async remove(_requestId, key) {
      await db.execute(sql`DELETE FROM event_data_files WHERE file_key = ${key}`)
    },
    async removeOthers(requestId, keep) {
      await db.execute(
        sql`DELETE FROM event_data_files WHERE request_id = ${requestId} ${keep === null ? sql`` : sql`AND file_key <> ${keep}`}`,
      )
    },
    async sweep() {
      // Removed with their request by foreign key; pieces of a file no request names are left by an
      // export cut off by a crash.
      await db.execute(sql`DELETE FROM event_data_files f WHERE NOT EXISTS (
        SELECT 1 FROM event_data_requests r WHERE r.file_key = f.file_key)
        AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.state = 'running' AND j.kind = 'privacy.retrieve'
          AND j.payload->>'requestId' = f.request_id)`)
    },
  }
}

/**
 * The store for this database: rows of the database where other processes share it (any of them
 * may serve a download), else files in DATA_DIR, which this process alone uses.
 */
export function retrievalFileStore(database: Database, dataDir: string): RetrievalFileStore {
  return database.sharedByProcesses ? databaseFileStore(database) : directoryFileStore(database, eventDataDir(dataDir))
}
