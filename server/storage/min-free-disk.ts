// ERRATA_MIN_FREE_DISK: how much of DATA_DIR's file system must stay free before Errata stops
// taking in events and uploads (docs/operations.md, "Disk space").

/** The threshold as configured: a number of bytes, a share of the file system, or the default (the smaller of both). */
export type MinFreeDisk = { bytes: number } | { percent: number } | { bytes: number; percent: number }

/** The default: 1 GiB or 5 % of the file system, whichever is smaller, so a small disk is not "low" from the start. */
export const DEFAULT_MIN_FREE_DISK: MinFreeDisk = { bytes: 1024 ** 3, percent: 5 }

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  tb: 1000 ** 4,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
}

/**
 * Reads "1073741824", "512MiB", "2 GB" or "5%"; throws with what is accepted otherwise.
 * Binary units (KiB, MiB, GiB, TiB) are powers of 1024, decimal ones (KB, MB, GB, TB) of 1000.
 */
export function parseMinFreeDisk(text: string): MinFreeDisk {
  const value = text.trim()
  const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(value)
  if (percent) {
    const share = Number(percent[1])
    if (share <= 0 || share >= 100) throw new Error(`must be a percentage above 0 and below 100, not "${text}"`)
    return { percent: share }
  }
  const size = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(value)
  const unit = size ? UNITS[size[2]!.toLowerCase()] : undefined
  if (!size || unit === undefined) {
    throw new Error(`must be a number of bytes (optionally with KB, MB, GB, KiB, MiB or GiB) or a percentage such as 5%, not "${text}"`)
  }
  const bytes = Math.round(Number(size[1]) * unit)
  if (bytes <= 0) throw new Error(`must be more than 0 bytes, not "${text}"`)
  return { bytes }
}

/** The threshold in bytes on a file system of `totalBytes`. */
export function minFreeBytes(threshold: MinFreeDisk, totalBytes: number): number {
  const share = 'percent' in threshold ? Math.floor((totalBytes * threshold.percent) / 100) : Infinity
  return Math.min('bytes' in threshold ? threshold.bytes : Infinity, share)
}
