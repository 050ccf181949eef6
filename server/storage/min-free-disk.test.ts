import { describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { DEFAULT_MIN_FREE_DISK, minFreeBytes, parseMinFreeDisk } from './min-free-disk.ts'

const GiB = 1024 ** 3

describe('ERRATA_MIN_FREE_DISK', () => {
  it('reads bytes, sizes with decimal or binary units, and percentages', () => {
    expect(parseMinFreeDisk('1073741824')).toEqual({ bytes: GiB })
    expect(parseMinFreeDisk('512MiB')).toEqual({ bytes: 512 * 1024 ** 2 })
    expect(parseMinFreeDisk('2 GB')).toEqual({ bytes: 2_000_000_000 })
    expect(parseMinFreeDisk('1.5gib')).toEqual({ bytes: 1.5 * GiB })
    expect(parseMinFreeDisk(' 5% ')).toEqual({ percent: 5 })
    expect(parseMinFreeDisk('0.5 %')).toEqual({ percent: 0.5 })
  })

  it('refuses what is no size, naming what it accepts', () => {
    for (const text of ['', 'lots', '5 parsecs', '-1', '0', '0%', '100%', '120%', '1e9', '5%%']) {
      expect(() => parseMinFreeDisk(text), text).toThrow(/bytes|percentage/)
    }
  })

  it('is the smaller of 1 GiB and 5 % of the file system by default, so a small disk is not low from the start', () => {
    expect(minFreeBytes(DEFAULT_MIN_FREE_DISK, 100 * GiB)).toBe(GiB)
    expect(minFreeBytes(DEFAULT_MIN_FREE_DISK, 10 * GiB)).toBe(Math.floor(0.5 * GiB))
    expect(minFreeBytes({ percent: 10 }, 1000)).toBe(100)
    expect(minFreeBytes({ bytes: 4096 }, 1000)).toBe(4096)
  })

  it('is a configuration error when invalid, and the default when unset', () => {
    expect(() => loadConfig({ ERRATA_MIN_FREE_DISK: 'plenty' })).toThrow(/ERRATA_MIN_FREE_DISK: must be a number of bytes/)
    expect(loadConfig({}).disk).toEqual({ minFree: DEFAULT_MIN_FREE_DISK, checkMs: 5000 })
    expect(loadConfig({ ERRATA_MIN_FREE_DISK: '10%', ERRATA_DISK_CHECK_MS: '250' }).disk).toEqual({ minFree: { percent: 10 }, checkMs: 250 })
  })
})
