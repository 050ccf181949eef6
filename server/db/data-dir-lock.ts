// One process per DATA_DIR. The embedded database and the ingest journal assume they are
// alone: a second process on the same directory would write the same database files and
// delete journal segments the first is still appending to, losing acknowledged events.
// Like PostgreSQL's postmaster.pid, a file holds the owner's pid; a pid that no longer runs
// is a crashed owner, and its lock is taken over.
import { closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export const LOCK_FILE = 'errata.pid'

export class DataDirInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `DATA_DIR ${dir} is in use by another Errata process (pid ${pid}). Stop that process first, or set DATA_DIR ` +
        `to another directory. If no Errata process is running, delete ${join(dir, LOCK_FILE)}.`,
    )
  }
}

/** Directories this process holds: a pid file naming this process but not listed here is stale. */
const held = new Set<string>()

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function ownerOf(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10)
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null // gone meanwhile, or unreadable: treat as stale
  }
}

/**
 * Removes the lock file of `dir`, which named `stalePid` (a process no longer running) when it
 * was read. Renamed aside first, not deleted: of two processes finding the same stale file, one
 * renames it. If what was renamed is no longer that stale file (another process took it over
 * between the read and the rename and wrote its own pid), it is put back and the directory is
 * theirs.
 */
export function removeStaleLock(dir: string, stalePid: number | null): void {
  const path = join(dir, LOCK_FILE)
  const aside = `${path}.stale-${process.pid}`
  try {
    renameSync(path, aside)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
    throw err
  }
  const moved = ownerOf(aside)
  if (moved !== null && moved !== stalePid && moved !== process.pid && isRunning(moved)) {
    try {
      linkSync(aside, path) // back in place, unless yet another process has claimed it since
    } catch {
      // that process holds the directory now; the error below names the one we displaced
    }
    rmSync(aside, { force: true })
    throw new DataDirInUseError(dir, moved)
  }
  rmSync(aside, { force: true })
}

/** Claims `dir` for this process, or throws DataDirInUseError. `release` gives it back. */
export function lockDataDir(dir: string): { release(): void } {
  const path = join(dir, LOCK_FILE)
  if (held.has(path)) throw new DataDirInUseError(dir, process.pid)
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, 'wx')
      try {
        writeSync(fd, `${process.pid}\n`)
      } finally {
        closeSync(fd)
      }
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const pid = ownerOf(path)
      // Our own pid from an earlier run (a container restarts with the same pid) is stale too.
      const stale = pid === null || pid === process.pid || !isRunning(pid)
      if (!stale || attempt >= 2) throw new DataDirInUseError(dir, pid ?? 0)
      removeStaleLock(dir, pid)
    }
  }
  held.add(path)
  return {
    release() {
      if (!held.delete(path)) return
      if (ownerOf(path) === process.pid) rmSync(path, { force: true })
    },
  }
}
