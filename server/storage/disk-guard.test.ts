// The low disk guard on a file system it is told about (a fake statfs) and a clock the test moves:
// it looks on its interval, not per request, refuses while low, says so in the log once a
// minute however many requests it refuses, and recovers by itself.
import pino from 'pino'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { InsufficientStorageError, ServiceBusyError } from '../failures.ts'
import { LOW_DISK_LOG_INTERVAL_MS, startDiskGuard, type DiskGuard } from './disk-guard.ts'

const MiB = 1024 ** 2

let guard: DiskGuard | undefined
beforeEach(() => vi.useFakeTimers())
afterEach(() => {
  guard?.close()
  vi.useRealTimers()
})

/** A file system of 100 MiB with `free.bytes` free, and the log lines written. */
function fakeDisk(freeBytes: number) {
  const free = { bytes: freeBytes }
  const looks = { count: 0 }
  const statfs = async () => {
    looks.count += 1
    return { bsize: 4096, blocks: (100 * MiB) / 4096, bavail: Math.floor(free.bytes / 4096) }
  }
  const lines: { level: number; msg: string; refusedEvents?: number }[] = []
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) })
  return { free, looks, statfs, lines, logger }
}

describe('the low disk guard', () => {
  it('refuses events and uploads while space is low, logging once a minute, and recovers by itself', async () => {
    const disk = fakeDisk(50 * MiB)
    guard = await startDiskGuard({ dir: '/data', minFree: { bytes: 10 * MiB }, checkMs: 1000, logger: disk.logger, statfs: disk.statfs })
    expect(guard.current()).toMatchObject({ freeBytes: 50 * MiB, totalBytes: 100 * MiB, minFreeBytes: 10 * MiB, low: false })
    guard.admitEvents()
    guard.admitUpload()

    disk.free.bytes = 5 * MiB
    // Not looked at per request: still admitted until the next look.
    guard.admitEvents()
    await vi.advanceTimersByTimeAsync(1000)
    expect(guard.current()?.low).toBe(true)
    expect(() => guard!.admitEvents()).toThrow(ServiceBusyError)
    expect(() => guard!.admitUpload()).toThrow(InsufficientStorageError)
    const lowLines = () => disk.lines.filter((line) => line.msg.includes('low on disk space'))
    expect(lowLines()).toHaveLength(1)

    // Many refusals and looks within the minute: no more lines.
    for (let i = 0; i < 100; i++) expect(() => guard!.admitEvents()).toThrow(/low on disk space/)
    await vi.advanceTimersByTimeAsync(LOW_DISK_LOG_INTERVAL_MS - 2000)
    expect(lowLines()).toHaveLength(1)
    // A minute on: one more, counting what was refused since.
    await vi.advanceTimersByTimeAsync(2000)
    expect(lowLines()).toHaveLength(2)
    expect(lowLines()[1]).toMatchObject({ refusedEvents: 101 })

    disk.free.bytes = 60 * MiB
    await vi.advanceTimersByTimeAsync(1000)
    expect(guard.current()?.low).toBe(false)
    guard.admitEvents()
    guard.admitUpload()
    expect(disk.lines.filter((line) => line.msg.includes('free disk space again'))).toHaveLength(1)
    expect(disk.looks.count).toBeGreaterThan(60)
  })

  it('answers with Retry-After for events', async () => {
    const disk = fakeDisk(MiB)
    guard = await startDiskGuard({ dir: '/data', minFree: { percent: 5 }, checkMs: 1000, logger: disk.logger, statfs: disk.statfs })
    try {
      guard.admitEvents()
      expect.unreachable()
    } catch (err) {
      expect(err).toBeInstanceOf(ServiceBusyError)
      expect((err as ServiceBusyError).retryAfterSeconds).toBeGreaterThan(0)
    }
  })

  it('guards nothing where DATA_DIR does not exist (PostgreSQL with nothing in DATA_DIR)', async () => {
    const disk = fakeDisk(0)
    const statfs = () => Promise.reject(Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' }))
    guard = await startDiskGuard({ dir: '/nowhere', minFree: { bytes: MiB }, checkMs: 1000, logger: disk.logger, statfs })
    expect(guard.current()).toBeNull()
    guard.admitEvents()
    guard.admitUpload()
    expect(disk.lines).toEqual([])
  })
})
