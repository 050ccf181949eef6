// The time a load took, measured on the server: from the first request it receives to the
// last response it finishes. autocannon's own start/finish are rounded to its one-second
// tick, which made a 2.5 s run read as 2.1 s or 3.1 s (a ±20 % error on the bare server's rate).
import type { Server } from 'node:http'

export interface LoadWindow {
  reset(): void
  /** performance.now() of the first request since reset(). */
  startedAt(): number
  seconds(): number
}

export function watchLoadWindow(server: Server): LoadWindow {
  let first = 0
  let last = 0
  server.on('request', (_req, res) => {
    if (first === 0) first = performance.now()
    res.on('finish', () => {
      last = performance.now()
    })
  })
  return {
    reset() {
      first = 0
      last = 0
    },
    startedAt: () => first,
    seconds: () => (last - first) / 1000,
  }
}
