// One process per DATA_DIR. The embedded database and the ingest journal assume they are
// alone: a second process on the same directory would write the same database files and
// delete journal segments the first is still appending to, losing acknowledged events.
// Like PostgreSQL's postmaster.pid, a file holds the owner's pid; a pid that no longer runs
// is a crashed owner, and its lock is taken over. On Linux the file also holds the owner's
// start time (/proc/<pid>/stat): after a crash and a reboot, or in a restarted container, the
// pid may belong to an unrelated process, which is then told apart by its start time.
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

/** When a process started (clock ticks since boot), where /proc tells; null elsewhere or if it is gone. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name, which is in parentheses and may hold spaces: state is field 3, starttime 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[19] ?? null
  } catch {
    return null
  }
}

/** The owner a lock file names: its pid and, when written on Linux, its start time. */
function ownerRecord(path: string): { pid: number | null; startTime: string | null } {
  try {
    const [pidLine, startLine] = readFileSync(path, 'utf8').split('\n')
    const pid = Number.parseInt(pidLine?.trim() ?? '', 10)
    return { pid: Number.isSafeInteger(pid) && pid > 0 ? pid : null, startTime: startLine?.trim() || null }
  } catch {
    return { pid: null, startTime: null } // gone meanwhile, or unreadable: treat as stale
  }
}

/** Whether a lock file's owner is no longer there: no pid, this process, not running, or another process now has its pid. */
function isStale(owner: { pid: number | null; startTime: string | null }): boolean {
  if (owner.pid === null || owner.pid === process.pid || !isRunning(owner.pid)) return true
  const now = owner.startTime ? processStartTime(owner.pid) : null
  return now !== null && now !== owner.startTime
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const ownerOf = (path: string): number | null => ownerRecord(path).pid

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
      const fd = openSync(path, 'wx', 0o600)
      try {
        writeSync(fd, `${process.pid}\n${processStartTime(process.pid) ?? ''}\n`)
      } finally {
        closeSync(fd)
      }
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const owner = ownerRecord(path)
      // Our own pid from an earlier run (a container restarts with the same pid) is stale too.
      if (!isStale(owner) || attempt >= 2) throw new DataDirInUseError(dir, owner.pid ?? 0)
      removeStaleLock(dir, owner.pid)
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
