const UNITS = ['KB', 'MB', 'GB', 'TB'] as const

/** A size for people: "512 B", "3.4 KB", "12.0 MB", "1.3 GB" (powers of 1024). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024
    unit += 1
  }
  return `${value.toFixed(1)} ${UNITS[unit]}`
}
