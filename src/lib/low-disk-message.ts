import { formatBytes } from './format-bytes.ts'

/** What a server low on disk space does, in a user's words (the storage section and the app's banner). */
export const lowDiskMessage = (freeBytes: number, minFreeBytes: number): string =>
  `Only ${formatBytes(freeBytes)} of disk space is left, less than the ${formatBytes(minFreeBytes)} Errata keeps free. ` +
  'New errors and source map uploads are refused until space is freed; notifiers send those errors again later.'
