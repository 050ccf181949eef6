// The data directory holds raw events (emails, addresses, request headers) in the ingest journal
// and the database, and the embedded database's configuration: owner-only, like PostgreSQL's own
// data directory (0700 directories, 0600 files). PGlite writes its catalog as 0666 whatever the
// umask (it copies an initialized cluster and sets each file's mode), so its files are set right
// after it opens; files created later get the process's umask (0077, set by server/main.ts), and
// Errata's own files (journal segments, the pid file, retrieval files) an explicit mode.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

const PRIVATE_DIR_MODE = 0o700
const PRIVATE_FILE_MODE = 0o600

/** DATA_DIR belongs to another user: Errata refuses to start rather than write there. */
export class DataDirOwnerError extends Error {}

/**
 * Creates `dir` owner-only if it does not exist; refuses (DataDirOwnerError) a directory owned by
 * another user; takes group and other permissions off everything inside (symbolic links are
 * left alone, never followed). Returns how many entries it changed.
 */
export function secureDataDir(dir: string): number {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  const uid = process.getuid?.()
  const stat = lstatSync(dir)
  if (uid !== undefined && stat.uid !== uid) {
    throw new DataDirOwnerError(
      `DATA_DIR ${dir} is owned by another user (uid ${stat.uid}), not by the user Errata runs as (uid ${uid}); ` +
        `run Errata as the directory's owner, or give it a directory of its own (chown ${uid} ${dir})`,
    )
  }
  if (!stat.isDirectory()) throw new DataDirOwnerError(`DATA_DIR ${dir} is not a directory`)
  return makePrivate(dir, true)
}

/** Takes group and other permissions off `path` and, for a directory, everything below it. */
export function makePrivate(path: string, isDirectory: boolean): number {
  let changed = 0
  const mode = lstatSync(path).mode & 0o777
  const wanted = isDirectory ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE
  // Owner bits stay as they are except that directories stay searchable and files readable and
  // writable by the owner; group and other get nothing.
  if (mode !== wanted) {
    chmodSync(path, wanted)
    changed += 1
  }
  if (!isDirectory) return changed
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue
    if (entry.isDirectory()) changed += makePrivate(join(path, entry.name), true)
    else if (entry.isFile()) changed += makePrivate(join(path, entry.name), false)
  }
  return changed
}
