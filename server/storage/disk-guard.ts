// The low disk guard: while DATA_DIR's file system has less free space than ERRATA_MIN_FREE_DISK,
// events are refused with 503 (notifiers retry later) and uploads with 507, before anything of
// theirs is written, so a full disk never fails half way through a write and what was
// acknowledged stays readable. Free space is looked at every ERRATA_DISK_CHECK_MS, not per request
// (docs/operations.md, "Disk space").
import { statfs as fsStatfs } from 'node:fs/promises'
import type { Logger } from 'pino'
import { InsufficientStorageError, ServiceBusyError } from '../failures.ts'
import { minFreeBytes, type MinFreeDisk } from './min-free-disk.ts'

/** What the last look at DATA_DIR's file system found. */
export interface DiskState {
  /** Free space Errata's user may fill. */
  freeBytes: number
  totalBytes: number
  /** The threshold on this file system (ERRATA_MIN_FREE_DISK). */
  minFreeBytes: number
  low: boolean
  /** Epoch ms. */
  checkedAt: number
}

export interface DiskGuard {
  readonly dir: string
  /** The last look; null when DATA_DIR cannot be looked at (it does not exist: PostgreSQL with nothing in DATA_DIR). */
  current(): DiskState | null
  /** Throws the 503 notifiers retry while space is low. */
  admitEvents(): void
  /** Throws the 507 while space is low. */
  admitUpload(): void
  /** Looks again now (the interval does it on its own). */
  refresh(): Promise<DiskState | null>
  close(): void
}

/** Free space refused events wait for before their notifier tries again. */
export const LOW_DISK_RETRY_AFTER_SECONDS = 60
/** While space is low, the log says so this often (not once per refused request). */
export const LOW_DISK_LOG_INTERVAL_MS = 60_000

interface GuardOptions {
  dir: string
  minFree: MinFreeDisk
  checkMs: number
  logger: Logger
  statfs?: (dir: string) => Promise<{ bavail: number | bigint; bsize: number | bigint; blocks: number | bigint }>
}

/** Starts looking at `dir`'s file system every `checkMs`; resolves after the first look. */
export async function startDiskGuard({ dir, minFree, checkMs, logger, statfs = fsStatfs }: GuardOptions): Promise<DiskGuard> {
  let state: DiskState | null = null
  let lowLoggedAt = -Infinity
  let failureLoggedAt = -Infinity
  const refused = { events: 0, uploads: 0 }

  const look = async (): Promise<DiskState | null> => {
    try {
      const fs = await statfs(dir)
      const totalBytes = Number(fs.blocks) * Number(fs.bsize)
      const freeBytes = Number(fs.bavail) * Number(fs.bsize)
      const threshold = minFreeBytes(minFree, totalBytes)
      return { freeBytes, totalBytes, minFreeBytes: threshold, low: freeBytes < threshold, checkedAt: Date.now() }
    } catch (err) {
      // No DATA_DIR (PostgreSQL keeps everything in the database): nothing of Errata's to guard here.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && Date.now() - failureLoggedAt >= LOW_DISK_LOG_INTERVAL_MS) {
        failureLoggedAt = Date.now()
        logger.warn({ err, dir }, 'cannot read the free space of DATA_DIR; the low disk guard is off until it can')
      }
      return null
    }
  }

  const refresh = async () => {
    const was = state
    state = await look()
    if (state?.low) {
      if (Date.now() - lowLoggedAt >= LOW_DISK_LOG_INTERVAL_MS) {
        lowLoggedAt = Date.now()
        logger.error(
          { dir, freeBytes: state.freeBytes, minFreeBytes: state.minFreeBytes, refusedEvents: refused.events, refusedUploads: refused.uploads },
          'DATA_DIR is low on disk space: refusing events (503) and uploads (507) until space is freed (ERRATA_MIN_FREE_DISK)',
        )
        refused.events = 0
        refused.uploads = 0
      }
    } else if (was?.low) {
      lowLoggedAt = -Infinity
      logger.warn({ dir, freeBytes: state?.freeBytes, refusedEvents: refused.events, refusedUploads: refused.uploads }, 'DATA_DIR has free disk space again: accepting events and uploads')
      refused.events = 0
      refused.uploads = 0
    }
    return state
  }

  await refresh()
  let looking = false
  const timer = setInterval(() => {
    // A slow file system (a network mount) never piles up looks.
    if (looking) return
    looking = true
    void refresh().finally(() => (looking = false))
  }, checkMs)
  timer.unref()

  return {
    dir,
    current: () => state,
    admitEvents() {
      if (!state?.low) return
      refused.events += 1
      throw new ServiceBusyError('the server is low on disk space and is not accepting events until space is freed; retry later', LOW_DISK_RETRY_AFTER_SECONDS)
    },
    admitUpload() {
      if (!state?.low) return
      refused.uploads += 1
      throw new InsufficientStorageError('the server is low on disk space and is not accepting uploads until space is freed; ask its administrator')
    },
    refresh,
    close: () => clearInterval(timer),
  }
}

declare module '../context.ts' {
  interface AppDeps {
    /** The low disk guard of DATA_DIR (server/main.ts starts it); absent in tests that do not need one: never low. */
    diskGuard?: DiskGuard
  }
}
