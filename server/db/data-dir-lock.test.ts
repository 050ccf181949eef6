import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DataDirInUseError, LOCK_FILE, lockDataDir, processStartTime, removeStaleLock } from './data-dir-lock.ts'

const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'errata-lock-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'])
  return Number(child.stdout.toString())
}

describe('lockDataDir', () => {
  it('holds the directory until released, with this process as the owner', () => {
    const dir = tempDir()
    const lock = lockDataDir(dir)
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').split('\n')[0]).toBe(String(process.pid))
    expect(() => lockDataDir(dir)).toThrow(DataDirInUseError)
    lock.release()
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false)
    lockDataDir(dir).release()
  })

  it('refuses a directory a running process holds, naming it and the way out', () => {
    const dir = tempDir()
    // The parent of this test process is certainly running.
    writeFileSync(join(dir, LOCK_FILE), `${process.ppid}\n`)
    expect(() => lockDataDir(dir)).toThrow(
      `DATA_DIR ${dir} is in use by another Errata process (pid ${process.ppid}). Stop that process first, ` +
        `or set DATA_DIR to another directory. If no Errata process is running, delete ${join(dir, LOCK_FILE)}.`,
    )
    // Refused without touching the owner's file.
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.ppid))
  })

  it('takes over the lock of a process that crashed, an unreadable one, and its own pid from an earlier run', () => {
    for (const leftover of [`${deadPid()}\n`, 'garbage', `${process.pid}\n`]) {
      const dir = tempDir()
      writeFileSync(join(dir, LOCK_FILE), leftover)
      const lock = lockDataDir(dir)
      expect(readFileSync(join(dir, LOCK_FILE), 'utf8').split('\n')[0]).toBe(String(process.pid))
      lock.release()
    }
  })

  it('takes over a lock whose pid now belongs to another, later started process (a reboot, a restarted container)', () => {
    const dir = tempDir()
    const parentStarted = processStartTime(process.ppid)
    expect(parentStarted).not.toBeNull() // Linux: /proc is there
    // The parent runs, but not since the time the lock file says its owner started.
    writeFileSync(join(dir, LOCK_FILE), `${process.ppid}\n${Number(parentStarted) + 1}\n`)
    lockDataDir(dir).release()
    // The same pid with its real start time is a running owner.
    writeFileSync(join(dir, LOCK_FILE), `${process.ppid}\n${parentStarted}\n`)
    expect(() => lockDataDir(dir)).toThrow(DataDirInUseError)
  })

  it('does not remove a fresh lock that another process wrote after the stale one was read', () => {
    // Two processes read the same dead pid; the other one took the lock over first (its pid
    // here is our parent's, certainly running). Removing "the stale lock" now must not remove theirs.
    const dir = tempDir()
    const stale = deadPid()
    writeFileSync(join(dir, LOCK_FILE), `${process.ppid}\n`)
    expect(() => removeStaleLock(dir, stale)).toThrow(`in use by another Errata process (pid ${process.ppid})`)
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.ppid))
    // The stale file itself is removed.
    writeFileSync(join(dir, LOCK_FILE), `${stale}\n`)
    removeStaleLock(dir, stale)
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false)
  })

  it('leaves a lock that another process took meanwhile in place when releasing', () => {
    const dir = tempDir()
    const lock = lockDataDir(dir)
    writeFileSync(join(dir, LOCK_FILE), `${process.ppid}\n`)
    lock.release()
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.ppid))
  })
})
