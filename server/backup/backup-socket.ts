// The running server's operator socket: how `npm run errata -- backup` reaches the process that
// holds the embedded database (one process per DATA_DIR: data-dir-lock.ts). HTTP over a Unix
// socket inside DATA_DIR, owner-only (0600), so only the server's user (and root) can connect;
// nothing is exposed on the network. One request: POST /backup answers the archive's bytes.
import { chmodSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { pipeline } from 'node:stream/promises'
import type { Logger } from 'pino'
import type { Database } from '../db/client.ts'
import { operatorSocketPath } from '../db/data-dir-layout.ts'
import { archiveOf, stageBackup } from './backup.ts'

/** Linux's limit on a Unix socket's path (sun_path, 108 bytes with its terminating zero). */
const MAX_SOCKET_PATH_BYTES = 107

/** Listens on DATA_DIR/errata.sock when the database is the embedded one; null otherwise. */
export async function listenForBackups(database: Database, dataDir: string, logger: Logger): Promise<{ close(): Promise<void> } | null> {
  if (!database.stageBackup) return null
  const path = operatorSocketPath(dataDir)
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) {
    logger.warn({ path }, 'DATA_DIR is too long a path for the operator socket: `npm run errata -- backup` works only while Errata is stopped')
    return null
  }
  let running = false
  const server = createServer((req, res) => {
    const fail = (status: number, message: string) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [message] }))
    }
    if (req.method !== 'POST' || req.url !== '/backup') return fail(404, 'the operator socket answers POST /backup only')
    if (running) return fail(409, 'a backup is already being made: wait for it to finish')
    running = true
    void (async () => {
      const started = performance.now()
      let staged: Awaited<ReturnType<typeof stageBackup>>
      try {
        staged = await stageBackup(database, dataDir)
      } catch (err) {
        logger.error({ err }, 'backup failed')
        running = false
        return fail(500, `the backup could not be made: ${(err as Error).message}`)
      }
      try {
        res.writeHead(200, { 'content-type': 'application/gzip' })
        await pipeline(archiveOf(staged.dir), res)
        logger.info({ schema: staged.manifest.schema, ms: Math.round(performance.now() - started) }, 'backup written')
      } catch (err) {
        // The client sees a cut-off answer and says so; the archive it has is not renamed into place.
        logger.error({ err }, 'backup failed while being sent')
        res.destroy()
      } finally {
        rmSync(staged.dir, { recursive: true, force: true })
        running = false
      }
    })()
  })
  // A socket file left by a process that crashed: this process holds DATA_DIR now.
  rmSync(path, { force: true })
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(path, () => {
        server.off('error', reject)
        resolve()
      })
    })
    chmodSync(path, 0o600)
  } catch (err) {
    // Serving goes on without it: a backup is then made with Errata stopped.
    logger.warn({ err, path }, 'cannot listen on the operator socket: `npm run errata -- backup` works only while Errata is stopped')
    server.close()
    return null
  }
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
